"""``symrel prove --report`` writes a report for every outcome and says where."""

import json

import pytest

NET = {"symrel": 1, "kind": "maxout", "input_dim": 2,
       "layers": [{"units": [{"pieces": [{"w": [1, "-2/3"], "b": "1/2"}, {"w": [0, 1], "b": 0}]}]}]}
MUTANT = {**NET, "layers": [{"units": [{"pieces": [{"w": [1, "-2/3"], "b": "1/2"}, {"w": [0, 1], "b": "1/5"}]}]}]}
BOX = {"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1]]}


@pytest.fixture
def files(tmp_path):
    for name, obj in (("net", NET), ("mutant", MUTANT), ("box", BOX)):
        (tmp_path / f"{name}.json").write_text(json.dumps(obj))
    return tmp_path


@pytest.mark.parametrize("ext", ["md", "html", "tex"])
def test_a_refuted_claim_gets_its_report(run_cli, files, ext):
    d = files
    report = d / f"R.{ext}"
    code, out, err = run_cli("prove", d / "net.json", d / "mutant.json", "--domain", d / "box.json",
                             "--report", report)
    assert code == 1 and out.strip().splitlines()[-1] == "refuted"
    assert f"report written to {report}" in err
    text = report.read_text()
    assert text.index("Counterexample") < text.index("Claim.")
    if ext == "md":
        assert "- $A(x) = (" in text and "- $B(x) = (" in text
    if ext == "html":
        assert "<math" in text and "http" not in text


def test_a_refuted_claim_has_no_certificate_report(run_cli, files):
    d = files
    code, out, err = run_cli("prove", d / "net.json", d / "mutant.json", "--domain", d / "box.json",
                             "--report", d / "R.json")
    assert code == 1 and not (d / "R.json").exists()
    assert "no report written" in err and "no certificate" in err


def test_a_proved_claim_says_where_its_report_is(run_cli, files):
    d = files
    code, out, err = run_cli("prove", d / "net.json", d / "net.json", "--domain", d / "box.json",
                             "--report", d / "P.md")
    assert code == 0 and f"report written to {d / 'P.md'}" in err and (d / "P.md").exists()
