"""What a certificate proves is derived from its data (symrel.checking.claims, issue 26)."""

import copy
import json
from pathlib import Path

import pytest

from symrel.checking import (CLAIM_KINDS, CertificateError, MalformedCertificate, _load_checkers, check_certificate,
                             claim_checker)
from symrel.checking.claims import SPECS, claim_statement

GOLDEN = Path(__file__).resolve().parent / "golden"
VALID = sorted((GOLDEN / "valid").glob("*.json")) + sorted((GOLDEN / "pre14").glob("*.json"))


def test_every_claim_kind_derives_its_statement():
    _load_checkers()
    assert set(SPECS) == set(CLAIM_KINDS)


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_a_golden_certificate_states_what_its_data_proves(path):
    cert = json.loads(path.read_text())
    summary = check_certificate(cert)
    assert summary["statement"] == cert["claim"]["statement"]
    assert all(name in summary["statement"] for name in cert["inputs"])  # each input named with its sha256
    bare = copy.deepcopy(cert)
    del bare["claim"]["statement"]
    assert check_certificate(bare)["statement"] == summary["statement"]


def test_the_statement_follows_the_claims_numbers():
    cert = json.loads((GOLDEN / "valid" / "softmax-bound.json").read_text())
    statement = check_certificate(cert)["statement"]
    assert "<= 1/10 at lambda = 735759/100000" in statement and "D is [-1, 1]" in statement
    cert["claim"]["statement"] = statement.replace("<= 1/10", "<= 1/100")
    with pytest.raises(CertificateError) as caught:
        check_certificate(cert)
    assert caught.value.path == "claim.statement" and not isinstance(caught.value, MalformedCertificate)


def test_unknown_and_unused_claim_keys_and_inputs_are_refused():
    cert = json.loads((GOLDEN / "valid" / "relation.json").read_text())
    bad = copy.deepcopy(cert)
    bad["claim"]["rank"] = 1
    with pytest.raises(MalformedCertificate, match="claim.rank"):
        check_certificate(bad)
    bad = copy.deepcopy(cert)
    del bad["claim"]["dimension"]
    with pytest.raises(MalformedCertificate, match="claim.dimension"):
        check_certificate(bad)
    bad = copy.deepcopy(cert)
    bad["inputs"]["other"] = bad["inputs"]["relation"]
    with pytest.raises(MalformedCertificate, match="inputs.other"):
        check_certificate(bad)


def test_a_claim_of_no_point_is_reported_vacuous_not_checked():
    kind = "test-vacuous-claim"
    claim_checker(kind, rules={"none"})(lambda cert, inputs: {"vacuous": "the domain is empty"})
    claim_statement(kind)(lambda claim, inputs: "nothing at all")
    try:
        cert = {"symrel": 1, "kind": "certificate", "claim": {"kind": kind}, "inputs": {},
                "steps": [{"rule": "none", "status": "proved", "certificate": {}}]}
        with pytest.raises(CertificateError, match="never proves"):  # 'none' proves no step
            check_certificate(cert)
        CLAIM_KINDS[kind] = CLAIM_KINDS[kind].__class__(CLAIM_KINDS[kind].check, frozenset({"vacuous-rule"}))
        cert["steps"][0]["rule"] = "vacuous-rule"
        summary = check_certificate(cert)
        assert summary["result"] == "vacuous" and summary["vacuous"] == "the domain is empty"
        assert summary["statement"] == "nothing at all"
    finally:
        CLAIM_KINDS.pop(kind, None)
        SPECS.pop(kind, None)


def test_malformed_data_inside_a_step_is_malformed_not_rejected():
    from symrel.checking import at_step

    def check(cert, inputs):
        at_step(0)
        return len(cert["steps"][0]["certificate"]["cells"]) + 1

    claim_checker("test-malformed-data", rules={"test-rule"})(check)
    try:
        cert = {"symrel": 1, "kind": "certificate", "claim": {"kind": "test-malformed-data"}, "inputs": {},
                "steps": [{"rule": "test-rule", "status": "proved", "certificate": {"cells": 3}}]}
        with pytest.raises(MalformedCertificate) as caught:
            check_certificate(cert)
        assert caught.value.path == "steps[0].certificate" and "Error" not in str(caught.value)
    finally:
        CLAIM_KINDS.pop("test-malformed-data", None)
