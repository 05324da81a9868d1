"""symrel.mutation.campaign: how outcomes are counted, a wrong refutation included."""

import subprocess
import sys
from pathlib import Path

from symrel.mutation import campaign
from symrel.mutation.campaign import Tally


def test_a_refutation_the_independent_check_contradicts_is_a_defect():
    t = Tally("p")
    t.add("refuted", False, "a")
    t.add("refuted", None, "b")
    t.add("refuted", True, "c")
    t.add("proved", False, "d")
    assert (t.refuted, t.defects) == (2, 2)
    assert t.defect_paths[0].startswith("c (refuted, yet")


class _Refuted:
    result = "refuted"

    def __init__(self, counterexample=None):
        self.counterexample = counterexample


def _wrong_refutations(monkeypatch):
    """Every "mutant" is the instance itself (the claim holds) and the prover refutes it anyway."""
    import symrel.relations.prove

    monkeypatch.setattr(campaign, "mutant", lambda thing, path, how: thing)
    monkeypatch.setattr(symrel.relations.prove, "prove_relation", lambda rel, f: _Refuted())


def test_a_relation_refuted_with_every_entry_realised_is_a_defect(monkeypatch):
    _wrong_refutations(monkeypatch)
    t = campaign.relations_campaign(seeds=[0], per_instance=2)
    assert t.defects == t.mutants == 2 and t.refuted == 0


def test_an_unconfirmed_counterexample_is_a_defect(monkeypatch):
    import symrel.prover

    monkeypatch.setattr(campaign, "mutant", lambda thing, path, how: thing)
    monkeypatch.setattr(symrel.prover, "prove_equivalence", lambda a, b, D: _Refuted(next(iter(D.vertices()))))
    outcomes = campaign.equivalence_outcomes(0, 2)
    assert [r for r, preserved, _ in outcomes if preserved] == ["refuted"] * 2


def test_counted_under_python_O_too():
    """The check is no ``assert``: with assertions compiled away the defect still counts."""
    code = ("import symrel.relations.prove as p, symrel.mutation.campaign as c\n"
            "class R: result = 'refuted'\n"
            "c.mutant = lambda thing, path, how: thing\n"
            "p.prove_relation = lambda rel, f: R()\n"
            "print(c.relations_campaign(seeds=[0], per_instance=2).defects)\n")
    root = Path(campaign.__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True, cwd=root,
                         env={"PYTHONPATH": str(root), "PATH": ""}, timeout=120)
    assert out.returncode == 0 and out.stdout.split() == ["2"], out.stderr


def test_the_softmax_campaign_leaves_nothing_open():
    """Every model mutant of the softmax bound is decided; sign flips that make keys tie
    (a query or key sign, a query offset) are proved by the tied-keys rule."""
    t = campaign.softmax_campaign()
    assert t.open == 0 and t.defects == 0 and t.mutants >= 150, t
