"""Golden certificates (tests/checking/golden, written by its make.py): every valid file
is checked, every invalid one is rejected with a message naming the step and the field."""

import json
from pathlib import Path

import pytest

from symrel.checking import CLAIM_KINDS, CertificateError, _load_checkers, check_certificate

GOLDEN = Path(__file__).resolve().parent / "golden"
VALID = sorted((GOLDEN / "valid").glob("*.json"))
INVALID = json.loads((GOLDEN / "invalid.json").read_text())


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_valid_golden_certificates_are_checked(path):
    cert = json.loads(path.read_text())
    summary = check_certificate(cert)
    assert summary["result"] == "checked" and summary["claim"] == cert["claim"]["kind"]
    assert sum(summary["rules"].values()) == len(cert["steps"])


def test_every_claim_kind_has_a_valid_golden_certificate():
    _load_checkers()
    kinds = {json.loads(p.read_text())["claim"]["kind"] for p in VALID}
    assert set(CLAIM_KINDS) <= kinds, sorted(set(CLAIM_KINDS) - kinds)


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_golden_certificates_name_the_step_and_the_field(name):
    case = INVALID[name]
    cert = json.loads((GOLDEN / "invalid" / f"{name}.json").read_text())
    with pytest.raises(CertificateError) as caught:
        check_certificate(cert)
    err = caught.value
    assert err.path is not None and err.path.startswith(case["path"]), (err.path, str(err))
    assert case["words"] in str(err)
    if err.path.startswith("steps[") and "." in err.path:
        assert err.rule is not None and f"({err.rule})" in str(err)


def test_every_claim_kind_has_an_invalid_golden_certificate():
    kinds = {json.loads((GOLDEN / "valid" / f"{case['from']}.json").read_text())["claim"]["kind"] for case in INVALID.values()}
    valid_kinds = {json.loads(p.read_text())["claim"]["kind"] for p in VALID}
    assert kinds == valid_kinds, sorted(valid_kinds - kinds)


def test_a_softmax_bound_certificate_without_the_relu_pairing_is_checked_with_the_checkers_own_pairing():
    """Certificates written before the ReLU pairing was recorded: the checker pairs the units by
    its own rule and checks the errors as recorded (tests/checking/test_pre14.py has old files)."""
    cert = json.loads((GOLDEN / "valid" / "softmax-bound.json").read_text())
    blocks = [s for s in cert["steps"] if isinstance(s.get("certificate"), dict) and s["certificate"].get("relu_pairs")]
    assert blocks, "the golden softmax-bound certificate has a feed-forward block with pairs"
    del blocks[0]["certificate"]["relu_pairs"]
    assert check_certificate(cert)["result"] == "checked"
    blocks[0]["certificate"]["errors"][0][0] = "1/1000000"
    with pytest.raises(CertificateError, match="errors"):
        check_certificate(cert)
