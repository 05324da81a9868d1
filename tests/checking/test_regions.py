"""The independent checker of cell certificates rejects every alteration."""

import copy

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.fileformat import canonical_dumps, loads
from symrel.models import Box
from symrel.constructions import relu_to_maxout
from symrel.certificates.io import certificate_of
from symrel.regions import decide_equivalence

from ..regions.regions_fixtures import small_relu_net, tie_transformer


@pytest.fixture(scope="module")
def relu_cert():
    net = small_relu_net()
    proof = decide_equivalence(net, relu_to_maxout(net), Box([[-1, 1], [-1, 1]]))
    return loads(canonical_dumps(certificate_of(proof)))


@pytest.fixture(scope="module")
def tie_cert():
    proof = decide_equivalence(tie_transformer(1), tie_transformer(1), Box([[-1, 1]]))
    return loads(canonical_dumps(certificate_of(proof)))


def _branches(cert):
    return cert["steps"][0]["certificate"]["branches"]


def _rejects(cert, fragment=""):
    with pytest.raises(CertificateError) as err:
        check_certificate(cert)
    assert fragment in str(err.value)


def test_untouched_certificates_pass(relu_cert, tie_cert):
    assert check_certificate(relu_cert)["result"] == "checked"
    assert check_certificate(tie_cert)["result"] == "checked"


def test_tampered_farkas_vector_is_rejected(relu_cert):
    cert = copy.deepcopy(relu_cert)
    entry = next(e for e in _branches(cert) if "farkas" in e and len(e["farkas"]) > 1)
    entry["farkas"][0][1] = "1/1000000"
    _rejects(cert, "Farkas")


def test_negated_multiplier_is_rejected(relu_cert):
    cert = copy.deepcopy(relu_cert)
    entry = next(e for e in _branches(cert) if "farkas" in e)
    entry["farkas"][0][1] = "-1"
    _rejects(cert)


def test_tampered_witness_is_rejected(relu_cert):
    cert = copy.deepcopy(relu_cert)
    entry = next(e for e in _branches(cert) if "witness" in e)
    entry["witness"][0] = "7"
    _rejects(cert, "witness violates")


def test_missing_branch_breaks_coverage(relu_cert):
    cert = copy.deepcopy(relu_cert)
    del _branches(cert)[0]
    _rejects(cert, "not covered")


def test_relabelled_branch_is_rejected(relu_cert):
    cert = copy.deepcopy(relu_cert)
    _branches(cert)[0]["path"][-1] = "?"
    _rejects(cert)


def test_changed_model_is_caught(relu_cert):
    # a model weight altered by 1/10^6 (hash updated, so only the replay can notice)
    from symrel.fileformat import sha256_of

    cert = copy.deepcopy(relu_cert)
    obj = cert["inputs"]["a"]["object"]
    obj["layers"][2]["b"] = ["1/1000000"]
    cert["inputs"]["a"]["sha256"] = sha256_of(obj)
    _rejects(cert)


def test_tie_cell_farkas_pair_tampered(tie_cert):
    cert = copy.deepcopy(tie_cert)
    entries = [e for e in _branches(cert) if "farkas" in e and len(e["farkas"]) > 1]
    assert entries
    entries[0]["farkas"][-1][1] = "3"
    _rejects(cert)


def test_open_mode_refused_for_hardmax(tie_cert):
    cert = copy.deepcopy(tie_cert)
    cert["claim"]["mode"] = "open"
    cert["steps"][0]["certificate"]["mode"] = "open"
    _rejects(cert, "continuous")
