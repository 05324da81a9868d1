"""The mutation campaign (symrel.mutation): no prover proves a function-changing mutant."""

import pytest

from symrel.mutation import report_markdown, run_campaign
from symrel.mutation.campaign import CAMPAIGNS
from symrel.mutation.mutants import mutant, parameters
from symrel.models import CPWL1D


def test_mutants_change_exactly_one_number():
    f = CPWL1D([0, 1, 2], [0, 1, 0])
    for path, how in [("y[1]", "+tiny"), ("x[2]", "-tiny"), ("y[1]", "sign")]:
        m = mutant(f, path, how)
        changed = [p for (p, a), (_, b) in zip(parameters(f), parameters(m)) if a != b]
        assert changed == [path]


def test_small_campaign_every_prover():
    tallies = run_campaign(per_instance=6)
    assert [t.prover.split()[0] for t in tallies] == list(CAMPAIGNS)
    for t in tallies:
        assert t.mutants > 0 and t.defects == 0, t
        assert t.refuted > 0, f"{t.prover}: no mutant refuted, the campaign would not be testing anything"
    assert "| **total** |" in report_markdown(tallies)


@pytest.mark.slow
def test_full_campaign_zero_defects_over_1000_mutants():
    tallies = run_campaign()
    assert sum(t.mutants for t in tallies) >= 1000
    assert sum(t.defects for t in tallies) == 0, [t.defect_paths for t in tallies]


def test_mutate_command_writes_the_report(run_cli, tmp_path):
    out = tmp_path / "mutation.md"
    code, stdout, _ = run_cli("mutate", "--prover", "relations", "--per-instance", "4", "--out", out)
    assert code == 0 and stdout.strip().splitlines()[-1] == "0"
    assert "| relations (prove_relation) | 16 |" in out.read_text()
    code, _, err = run_cli("mutate", "--per-instance", "0")
    assert code == 2 and "--per-instance" in err
