"""Region certificates of CPWL functions on meshes (claim kind ``regions``): the cells are
the simplices, merged where neighbours share an affine piece; accepted, and every
tampering rejected."""

import copy
import random

import pytest

from symrel.certificates.io import certificate_of
from symrel.checking import CertificateError, check_certificate
from symrel.exact import Q
from symrel.fileformat import canonical_dumps, loads, sha256_of
from symrel.models import Box
from symrel.constructions import freudenthal_mesh
from symrel.mutation.tamper import altered, numbers_in
from symrel.regions import certify_regions, count_regions


def _mesh():
    """A 2 x 2 Freudenthal grid (8 triangles) whose values lie on one plane on [0, 1/2]^2:
    those two triangles merge, the other six are generic."""
    rng = random.Random(5)
    plane = lambda x: x[0] - 2 * x[1] + 3            # noqa: E731
    return freudenthal_mesh([[0, 1], [0, 1]], [2, 2],
                            lambda x: [plane(x) if max(x) <= Q(1, 2) else Q(rng.randint(-999, 999), 7)])


@pytest.fixture(scope="module")
def cert():
    f, D = _mesh(), Box([[0, 1], [0, 1]])
    proof = certify_regions(f, D)
    assert proof.result == "proved" and proof.claim_data["count"] == count_regions(f, D).count == 7
    return loads(canonical_dumps(certificate_of(proof)))


def test_certificate_checks(cert):
    assert check_certificate(cert)["result"] == "checked"
    assert [s["rule"] for s in cert["steps"]] == ["cell-cover", "facet-merge"]
    assert len(cert["steps"][1]["certificate"]["merges"]) == 1


def test_activation_count_of_a_3d_mesh_checks():
    rng = random.Random(3)
    f = freudenthal_mesh([[0, 1]] * 3, [1, 1, 1], lambda x: [Q(rng.randint(-99, 99), 7)])
    proof = certify_regions(f, Box([[0, 1]] * 3), kind="activation")
    assert proof.claim_data["count"] == len(f.simplices) == 6
    assert check_certificate(certificate_of(proof))["result"] == "checked"


def _rejects(bad):
    with pytest.raises(CertificateError):
        check_certificate(bad)


@pytest.mark.parametrize("change", ["status", "drop cover", "drop merge step", "drop merge", "drop branch",
                                    "count", "drop support", "relabel", "values"])
def test_structural_tampering_is_rejected(cert, change):
    bad = copy.deepcopy(cert)
    cover, merge = bad["steps"][0], bad["steps"][1]
    if change == "status":
        merge["status"] = "open"
    elif change == "drop cover":
        del bad["steps"][0]
    elif change == "drop merge step":
        del bad["steps"][1]
    elif change == "drop merge":
        merge["certificate"]["merges"] = []
    elif change == "drop branch":
        del cover["certificate"]["branches"][-1]
    elif change == "count":
        bad["claim"]["count"] = 8
    elif change == "drop support":
        del cover["certificate"]["support"]
    elif change == "relabel":
        cover["certificate"]["branches"][-1]["path"] = ["s99"]
    else:   # a vertex value moved by 1/10^6 (hash updated: only the replay can notice)
        obj = bad["inputs"]["model"]["object"]
        obj["values"][0] = [str(Q(obj["values"][0][0]) + Q(1, 10**6))]
        bad["inputs"]["model"]["sha256"] = sha256_of(obj)
    _rejects(bad)


def test_moved_numbers_are_rejected(cert):
    paths = [p for p, _ in numbers_in(cert) if p.startswith("steps")]
    assert len(paths) > 40
    for path in random.Random(1).sample(paths, 30):
        _rejects(altered(cert, path))
