"""The tamper campaign: every original accepted, not one tampered certificate accepted,
for every claim kind and every tamper (docs/checker.md is its report)."""

from pathlib import Path

import pytest

from symrel.statements.campaign import TAMPERS, report, row, run_campaign, sample_certificates, tampers

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def result():
    return run_campaign(sample_certificates())


def test_every_original_is_accepted_and_every_tamper_rejected(result):
    assert result["refused_originals"] == []
    assert result["accepted"] == []
    assert all(rejected == tried for tried, rejected in result["counts"].values())


def test_every_claim_kind_meets_every_tamper_it_can(result):
    kinds = set(result["originals"])
    assert {"equivalence", "equivalence-cells", "regions", "softmax-bound", "utility", "richter-peleg-utility",
            "multi-utility", "retrieval", "relation", "vnnlib-unsat", "vnnlib-unsat (layered net)",
            "output-bounds"} <= kinds
    for kind in kinds:
        for tamper in ("status", "removed", "step-number", "sha256"):
            assert result["counts"][(kind, tamper)][0] > 0, (kind, tamper)


def test_the_tampers_are_one_change_each():
    cert = {"claim": {"kind": "k", "n": 2}, "inputs": {"a": {"sha256": "ab"}},
            "steps": [{"rule": "r", "status": "proved", "certificate": {"v": 1}},
                      {"rule": "s", "status": "proved", "certificate": {}}]}
    made = {(name, where) for name, where, _ in tampers(cert)}
    assert made == {("status", "steps[0]"), ("status", "steps[1]"), ("removed", "steps[0]"), ("removed", "steps[1]"),
                    ("truncated", "steps[:1]"), ("reordered", "steps[0] <-> steps[1]"),
                    ("step-number", "steps[0].certificate.v"), ("claim-number", "claim.n"),
                    ("sha256", "inputs.a.sha256")}
    assert set(TAMPERS) == {name for name, _ in made}


def test_the_report_says_so(result):
    import re

    text = report(result)
    tried, rejected = map(int, re.search(r"In all: (\d+) of (\d+) tampered", text).groups()[::-1])
    assert tried == rejected > 0
    page = (ROOT / "docs" / "checker.md").read_text()
    assert "tampered certificates rejected" in page and "Accepted tampers" not in page
    assert all(f"| {kind} |" in page for kind in result["originals"])


def test_the_golden_certificates_meet_every_tamper_too():
    """docs/checker.md is written with ``--also tests/checking/golden/valid``: each golden file
    accepted, each tamper of it refused (the layered one's unsafe atoms each matter: a number of
    the second moved, or a close pointed at the other atom, was accepted when the first implied
    the second)."""
    import json

    golden = sorted((ROOT / "tests" / "checking" / "golden" / "valid").glob("*.json"))
    certs = [(path.stem, json.loads(path.read_text())) for path in golden]
    assert "vnnlib-unsat (layered net)" in {row(cert) for _, cert in certs}
    got = run_campaign(certs)
    assert got["refused_originals"] == [] and got["accepted"] == []
