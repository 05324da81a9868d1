"""Certificates of CPWL functions on meshes: accepted, and every tampering rejected."""

import copy
import json
import random

import pytest

from symrel.certificates.io import certificate_of
from symrel.checking import CertificateError, check_certificate
from symrel.compiler import compile_model
from symrel.exact import Q
from symrel.models import Box
from symrel.constructions import freudenthal_mesh
from symrel.prover import prove_equivalence
from symrel.mutation.tamper import altered, numbers_in


@pytest.fixture(scope="module")
def cert():
    rng = random.Random(11)
    f = freudenthal_mesh([[0, 1], [0, 1]], [2, 2], lambda x: [Q(rng.randint(-9, 9), rng.randint(1, 3))])
    D = Box([[0, "1/2"], [0, 1]])
    proof = prove_equivalence(f, compile_model(f, D).transformer, D)
    assert proof.result == "proved"
    return json.loads(json.dumps(certificate_of(proof)))


def _lattice_step(cert):
    return next(i for i, s in enumerate(cert["steps"]) if s["rule"] == "cpwl-mesh-lattice")


def test_certificate_checks(cert):
    assert check_certificate(cert)["result"] == "checked"


def test_altered_lattice_numbers_are_rejected(cert):
    k = _lattice_step(cert)
    paths = [p for p, _ in numbers_in(cert) if p.startswith(f"steps[{k}]")]
    assert len(paths) > 20
    for path in random.Random(0).sample(paths, 40):
        with pytest.raises(CertificateError):
            check_certificate(altered(cert, path, "1/1000000"))


@pytest.mark.parametrize("change", ["drop_step", "status", "drop_facet", "drop_term_piece", "lower", "support_min",
                                    "extra_term"])
def test_structural_tampering_is_rejected(cert, change):
    bad = copy.deepcopy(cert)
    k = _lattice_step(bad)
    step = bad["steps"][k]
    lat = step["certificate"]["lattice"][0]
    if change == "drop_step":
        del bad["steps"][k]
    elif change == "status":
        step["status"] = "open"
    elif change == "drop_facet":
        del step["certificate"]["support"][0]
    elif change == "drop_term_piece":
        t = max(range(len(lat["terms"])), key=lambda t: len(lat["terms"][t]))
        lat["terms"][t] = lat["terms"][t][1:]
    elif change == "lower":      # a lower term that does not lie above f on that simplex
        n = len(lat["lower"])
        bad_k = next((s, t) for s in range(n) for t in range(len(lat["terms"])) if t != lat["lower"][s])
        lat["lower"][bad_k[0]] = bad_k[1]
        if check_ok(bad):
            pytest.skip("that term happens to lie above f there too")
    elif change == "support_min":
        step["certificate"]["support"][0][2] = "-1"
    elif change == "extra_term":  # a one-piece term: above f on some simplex, so its max would exceed f
        lat["terms"].append([0])
    with pytest.raises(CertificateError, match="below f" if change == "extra_term" else None):
        check_certificate(bad)


def check_ok(c):
    try:
        check_certificate(c)
        return True
    except CertificateError:
        return False


@pytest.fixture(scope="module")
def split_cert():
    """A Delaunay mesh on which one set per simplex is not enough: the lattice step splits
    simplices by the signs of crossing pieces (trees with Farkas vectors for empty parts)."""
    from symrel.statements.papers.a4_cpwl_functions import random_square_mesh

    f = random_square_mesh()
    D = Box([[0, 1], [0, 1]])
    proof = prove_equivalence(f, compile_model(f, D).transformer, D)
    assert proof.result == "proved"
    return json.loads(json.dumps(certificate_of(proof)))


def _trees(cert):
    lat = cert["steps"][_lattice_step(cert)]["certificate"]["lattice"][0]
    return lat, [t for t in lat["lower"] if isinstance(t, dict)]


def _find(tree, key):
    if key in tree:
        return tree
    for side in ("above", "below"):
        if isinstance(tree.get(side), dict):
            found = _find(tree[side], key)
            if found is not None:
                return found
    return None


def test_split_trees_check_and_tampering_is_rejected(split_cert):
    assert check_certificate(split_cert)["result"] == "checked"
    lat, trees = _trees(split_cert)
    assert trees
    bad = copy.deepcopy(split_cert)
    empty = next(e for e in (_find(t, "empty") for t in _trees(bad)[1]) if e is not None)
    empty["empty"][0][1] = "1/1000000"                 # a moved Farkas weight
    with pytest.raises(CertificateError):
        check_certificate(bad)
    bad = copy.deepcopy(split_cert)
    tree = _trees(bad)[1][0]
    tree["above"], tree["below"] = tree["below"], tree["above"]    # the sides swapped
    with pytest.raises(CertificateError):
        check_certificate(bad)


def test_the_lattice_check_counts_its_work_before_doing_it(cert, monkeypatch):
    # vertices x pieces and terms x simplices are products the file does not spell out:
    # counted first, refused beyond the limit with its name (exit 2), checked under it
    from symrel.checking import CheckLimit, mesh_lattice

    check_certificate(copy.deepcopy(cert))
    monkeypatch.setattr(mesh_lattice, "MAX_LATTICE_OPERATIONS", 10)
    with pytest.raises(CheckLimit, match="limit 'mesh lattice operations'") as err:
        check_certificate(copy.deepcopy(cert))
    assert err.value.path.endswith(".lattice[0].pieces")
