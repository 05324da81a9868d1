"""tracr-audit certificates: checked, and every tamper refused."""

import copy

import pytest

pytest.importorskip("tracr")

from symrel.certificates.io import certificate_of  # noqa: E402
from symrel.checking import CertificateError, check_certificate  # noqa: E402
from symrel.fileformat import canonical_dumps, loads  # noqa: E402
from symrel.interop.tracr import audit_tracr  # noqa: E402


@pytest.fixture(scope="module")
def certificate(tracr_program):
    program, vocab, n, causal, model = tracr_program("hist_small")
    proof = audit_tracr(program, vocab, n, model=model)
    assert proof.proved and [s.rule for s in proof.steps][-1] == "tracr-coldness-bracket"
    return loads(canonical_dumps(certificate_of(proof)))


def test_certificate_checks(certificate):
    assert check_certificate(certificate)["result"] == "checked"


def _tampers(cert):
    for i in range(len(cert["steps"])):
        t = copy.deepcopy(cert)
        t["steps"][i]["status"] = "open"
        yield f"step {i} open", t
        t = copy.deepcopy(cert)
        del t["steps"][i]
        yield f"step {i} removed", t
    t = copy.deepcopy(cert)
    t["steps"][2], t["steps"][3] = t["steps"][3], t["steps"][2]
    yield "steps swapped", t
    t = copy.deepcopy(cert)
    t["steps"][2]["certificate"]["enclosures"][5]["hi"][0][1] += 1
    yield "enclosure end point moved", t
    t = copy.deepcopy(cert)
    t["steps"][1]["certificate"]["expected"][4][0] = 2 if t["steps"][1]["certificate"]["expected"][4][0] == 1 else 1
    yield "recorded output changed", t
    t = copy.deepcopy(cert)
    t["steps"][0]["certificate"]["count"] += 1
    yield "count moved", t
    t = copy.deepcopy(cert)
    t["steps"][-1]["certificate"]["lower"] = "1/1000"
    yield "bracket lower moved", t
    t = copy.deepcopy(cert)
    t["steps"][-2]["certificate"]["input"] = 0
    yield "witness moved", t
    t = copy.deepcopy(cert)
    t["inputs"]["model"]["sha256"] = "0" * 64
    yield "hash changed", t
    t = copy.deepcopy(cert)
    t["inputs"]["model"]["object"]["unembedding"][0][0] = 7
    yield "weight changed", t


def test_every_tamper_is_refused(certificate):
    for what, t in _tampers(certificate):
        with pytest.raises(CertificateError):
            check_certificate(t)
            pytest.fail(f"accepted: {what}")


def _campaign(cert):
    from symrel.statements.campaign import run_campaign

    result = run_campaign([("tracr", cert)])
    assert not result["refused_originals"]
    return result


def test_campaign_tampers_of_a_numerical_audit_are_refused(tracr_program):
    program, vocab, n, causal, model = tracr_program("frac_small")
    proof = audit_tracr(program, vocab, n, model=model)
    assert proof.proved and proof.claim_data["coldness"]["status"] == "bracketed"
    result = _campaign(loads(canonical_dumps(certificate_of(proof))))
    assert result["accepted"] == [] and sum(n for n, _ in result["counts"].values()) > 80


@pytest.mark.slow
def test_campaign_tampers_of_a_categorical_audit_are_refused(certificate):
    assert _campaign(certificate)["accepted"] == []
