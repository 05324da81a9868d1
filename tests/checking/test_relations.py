import json

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.exact import Q, rational
from symrel.fileformat import sha256_of
from symrel.certificates.io import certificate_of
from symrel.relations import factor_relation, factors_to_features, prove_relation
from symrel.relations.examples import random_gram_relation, random_relation


def _certificate(rel, symmetric):
    fac = factor_relation(rel, symmetric=symmetric)
    proof = prove_relation(rel, factors_to_features(rel, fac), symmetric=symmetric, ldl=fac.ldl)
    assert proof.proved
    return json.loads(json.dumps(certificate_of(proof)))


def _rehash(cert, name):
    cert["inputs"][name]["sha256"] = sha256_of(cert["inputs"][name]["object"])


@pytest.fixture(scope="module")
def symmetric_cert():
    return _certificate(random_gram_relation(10, 5, seed=3), True)


@pytest.fixture(scope="module")
def asymmetric_cert():
    return _certificate(random_relation(8, 6, 4, seed=3), False)


def test_valid_certificates_check(symmetric_cert, asymmetric_cert):
    assert check_certificate(symmetric_cert)["result"] == "checked"
    assert check_certificate(asymmetric_cert)["result"] == "checked"


def _tweak(value):
    return str(rational(value) + Q(1, 10**6))


def test_mutated_phi_weight_names_the_failing_entry(asymmetric_cert):
    cert = json.loads(json.dumps(asymmetric_cert))
    W = cert["inputs"]["features"]["object"]["phi"]["layers"][-1]["W"]
    W[0][0] = _tweak(W[0][0])
    _rehash(cert, "features")
    with pytest.raises(CertificateError, match=r"entry \(\d+, \d+\)"):
        check_certificate(cert)


def test_mutated_symmetric_net_is_rejected(symmetric_cert):
    cert = json.loads(json.dumps(symmetric_cert))
    feats = cert["inputs"]["features"]["object"]
    feats["phi"]["layers"][0]["b"][0] = _tweak(feats["phi"]["layers"][0]["b"][0])
    _rehash(cert, "features")
    with pytest.raises(CertificateError, match="psi = phi"):
        check_certificate(cert)  # phi no longer equals psi
    feats["psi"] = feats["phi"]
    _rehash(cert, "features")
    with pytest.raises(CertificateError, match=r"entry \(\d+, \d+\)"):
        check_certificate(cert)


def test_unrehashed_change_fails_the_hash(asymmetric_cert):
    cert = json.loads(json.dumps(asymmetric_cert))
    cert["inputs"]["relation"]["object"]["r"][0][0] = _tweak(cert["inputs"]["relation"]["object"]["r"][0][0])
    with pytest.raises(CertificateError, match="sha256"):
        check_certificate(cert)


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda c: c["steps"][0]["certificate"]["D"].__setitem__(0, "-1"), "negative"),
        (lambda c: c["steps"][0]["certificate"]["L"][0].__setitem__(1, "1"), "unit lower triangular"),
        (lambda c: c["steps"][0]["certificate"]["L"][3].__setitem__(0, _tweak(c["steps"][0]["certificate"]["L"][3][0])), "differs from r"),
        (lambda c: c["steps"][1]["certificate"]["phi"][0].__setitem__(0, _tweak(c["steps"][1]["certificate"]["phi"][0][0])), "recorded phi"),
        (lambda c: c["steps"][2]["certificate"]["values"].__setitem__(0, _tweak(c["steps"][2]["certificate"]["values"][0])), "recorded values"),
        (lambda c: c["steps"].pop(), "ends after"),
        (lambda c: c["steps"][3]["certificate"].__setitem__("row", 0), "rows in order"),
        (lambda c: c["steps"][3].__setitem__("status", "open"), r"steps\[3\].status \(table-row\): expected \"proved\""),
        (lambda c: c["claim"].__setitem__("shape", [1, 1]), "claim.shape"),
        (lambda c: c["claim"].__setitem__("dimension", 1), "claim.dimension"),
    ],
)
def test_altered_numbers_fail(symmetric_cert, edit, message):
    cert = json.loads(json.dumps(symmetric_cert))
    edit(cert)
    with pytest.raises(CertificateError, match=message):
        check_certificate(cert)


def test_every_recorded_number_matters():
    """Each number of a certificate (rank-deficient symmetric, and asymmetric) moved by
    1/10^6 is rejected, including L entries under zero pivots."""
    from symrel.mutation.tamper import altered, numbers_in

    for rel, symmetric in [(random_gram_relation(5, 3, seed=1), True), (random_relation(4, 3, 2, seed=2), False)]:
        cert = _certificate(rel, symmetric)
        for where, _ in numbers_in(cert):
            with pytest.raises(CertificateError):
                check_certificate(altered(cert, where))


@pytest.mark.parametrize("field, value", [("dimension", True), ("psd", 1), ("symmetric", 1), ("shape", [10, "10"])])
def test_a_claim_field_of_the_wrong_json_type_is_malformed(symmetric_cert, field, value):
    """Issue 26: true is not 1, 1 is not true, "10" is not 10 (each equal in Python)."""
    from symrel.checking import MalformedCertificate

    cert = json.loads(json.dumps(symmetric_cert))
    cert["claim"][field] = value
    with pytest.raises(MalformedCertificate, match=f"claim.{field}"):
        check_certificate(cert)


def test_the_limits_are_checked_before_the_entries(symmetric_cert, monkeypatch):
    from symrel.checking import CheckLimit
    from symrel.checking import relations

    monkeypatch.setattr(relations, "MAX_LDL_ROWS", 9)
    with pytest.raises(CheckLimit, match="limit 'relation table-psd rows': 10, more than the 9"):
        check_certificate(symmetric_cert)
    monkeypatch.setattr(relations, "MAX_LDL_ROWS", 10)
    monkeypatch.setattr(relations, "MAX_WORK", 10)
    with pytest.raises(CheckLimit, match="limit 'relation operations'"):
        check_certificate(symmetric_cert)
