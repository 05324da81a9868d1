"""Certified region counts: activation and linear, checked independently."""

import copy

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.fileformat import canonical_dumps, loads
from symrel.models import Box, CPWL1D
from symrel.certificates.io import certificate_of
from symrel.regions import certify_regions, count_regions

from .regions_fixtures import lines_net, small_relu_net


def _cert(proof):
    return loads(canonical_dumps(certificate_of(proof)))


def _step(cert, rule):
    return next(s for s in cert["steps"] if s["rule"] == rule)["certificate"]


def test_activation_count_certificate():
    net = lines_net([[1, 0, 0], [0, 1, 0], [1, 1, -1]])
    proof = certify_regions(net, Box([[-5, 5], [-5, 5]]), kind="activation")
    cert = _cert(proof)
    assert cert["claim"]["count"] == 7 and check_certificate(cert)["result"] == "checked"
    bad = copy.deepcopy(cert)
    bad["claim"]["count"] = 8
    with pytest.raises(CertificateError):
        check_certificate(bad)


def test_linear_count_with_merges_and_separations():
    # pieces 0 and 1 collinear (merged); pieces 0-1 and 5 both y = x but apart
    f = CPWL1D([0, "1/2", 1, 2, 3, 4], [0, "1/2", 1, 5, 3, 4])
    D = Box([[0, 4]])
    proof = certify_regions(f, D)
    cert = _cert(proof)
    assert cert["claim"]["count"] == count_regions(f, D).count == 4
    assert check_certificate(cert)["result"] == "checked"
    merge = _step(cert, "facet-merge")
    assert merge["merges"] and merge["apart"]

    no_merge = copy.deepcopy(cert)
    _step(no_merge, "facet-merge")["merges"] = []
    with pytest.raises(CertificateError, match="merges leave"):
        check_certificate(no_merge)

    moved = copy.deepcopy(cert)
    _step(moved, "facet-merge")["merges"][0]["point"] = ["1/3"]
    with pytest.raises(CertificateError, match=r"merges\[0\]"):
        check_certificate(moved)

    no_apart = copy.deepcopy(cert)
    _step(no_apart, "facet-merge")["apart"] = []
    no_apart["claim"]["count"] = 4
    with pytest.raises(CertificateError, match="nothing keeps them apart"):
        check_certificate(no_apart)


def test_linear_count_of_a_small_net_in_the_plane():
    net = small_relu_net()
    D = Box([[-1, 1], [-1, 1]])
    cert = _cert(certify_regions(net, D))
    assert cert["claim"]["count"] == count_regions(net, D).count
    assert check_certificate(cert)["result"] == "checked"


def test_two_dimensional_merge():
    from symrel.models import DenseLayer, ReLUNet

    net = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, 1]], [0, 0, 0, 0]), DenseLayer([[1, 1, -1, 1]], [0], "none")])
    cert = _cert(certify_regions(net, Box([[-1, 1], [-1, 1]])))
    assert cert["claim"]["count"] == 2 and check_certificate(cert)["result"] == "checked"
    tampered = copy.deepcopy(cert)
    m = _step(tampered, "facet-merge")["merges"][0]
    m["point"] = [m["point"][0], "1/3"]  # off the common facet y = 0
    with pytest.raises(CertificateError):
        check_certificate(tampered)


def test_consistent_but_wrong_facet_point_is_rejected():
    # the recorded row values agree with the moved point, so only the geometry can object
    from symrel.exact import rational as r
    from symrel.regions import enumerate_cells
    from symrel.regions.cell_json import row_values

    f = CPWL1D([0, "1/2", 1, 2, 3, 4], [0, "1/2", 1, 5, 3, 4])
    D = Box([[0, 4]])
    cert = _cert(certify_regions(f, D))
    cells = enumerate_cells([f], D, geometry="lp").cells
    m = _step(cert, "facet-merge")["merges"][0]
    i, j = m["cells"]
    m["point"] = ["1/3"]
    m["values"] = row_values(cells[i].rows + cells[j].rows, [r("1/3")])
    with pytest.raises(CertificateError, match="common facet"):
        check_certificate(cert)
