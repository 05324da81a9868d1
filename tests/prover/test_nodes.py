"""Max nodes in normal form (symrel.prover.nodes): scaled and shifted copies are one node
(rule max-scale-shift), and the proofs that rely on it are checked."""

import json
import random

import pytest

from symrel.certificates.io import certificate_of
from symrel.checking import CertificateError, check_certificate
from symrel.exact import Q
from symrel.exact.forms import AffineForm, linear_combination
from symrel.models import AffineMap, Box, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from symrel.prover import prove_equivalence
from symrel.prover.nodes import Registry, canonical_terms

X, Y = AffineForm.var(0), AffineForm.var(1)


def _affine(c, form, k):
    return linear_combination([(Q(c), form)], Q(k))


def test_canonical_terms_are_invariant_under_positive_scaling_and_shifts():
    rng = random.Random(3)
    for _ in range(50):
        terms = [linear_combination([(Q(rng.randint(-5, 5), rng.randint(1, 4)), X),
                                     (Q(rng.randint(-5, 5), rng.randint(1, 4)), Y)], Q(rng.randint(-9, 9), 7))
                 for _ in range(3)]
        if all(t.is_constant() for t in terms):
            continue
        c, k = Q(rng.randint(1, 9), rng.randint(1, 9)), Q(rng.randint(-9, 9), rng.randint(1, 5))
        c0, k0, u0 = canonical_terms(terms)
        c1, k1, u1 = canonical_terms([_affine(c, t, k) for t in terms])
        assert u0 == u1 and c1 == c * c0 and k1 == c * k0 + k
        assert sorted(_affine(c0, u, k0).key() for u in u0) == sorted(t.key() for t in terms)


def test_a_scaled_and_shifted_max_is_the_same_node():
    reg = Registry([(Q(-1), Q(1)), (Q(-2), Q(3))])
    y, facts = reg.max_of([X, Y - X])
    assert "scale" not in facts
    n = len(reg.nodes)
    z, facts = reg.max_of([_affine("3/7", Y - X, 5), _affine("3/7", X, 5)])
    assert len(reg.nodes) == n and z == _affine("3/7", y, 5) and facts["scale"] == ["3/7", 5]
    w, facts = reg.max_of([_affine(-1, X, 0), _affine(-1, Y - X, 0)])      # c < 0: min, another node
    assert len(reg.nodes) == n + 1 and "scale" not in facts
    v, _ = reg.max_of([X, Y - X])                                          # the very same max: no scale
    assert v == y


def _nets():
    relu = ReLUNet(2, [DenseLayer([[1, -1], [2, 1]], [0, "1/2"]), DenseLayer([[1, 1]], [0], "none")])
    scaled = ReLUNet(2, [DenseLayer([[3, -3], ["1/2", "1/4"]], [0, "1/8"]), DenseLayer([["1/3", 4]], [0], "none")])
    unit = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-2]], [0, 1])])])
    shifted = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[5], [-10]], [2, 7])])], AffineMap([["1/5"]], ["-2/5"]))
    return [(relu, scaled, Box([[-1, 1], [-1, 2]])), (unit, shifted, Box([[-1, 1]]))]


@pytest.mark.parametrize("case", [0, 1])
def test_scaled_or_shifted_units_are_proved_layer_by_layer_and_checked(case):
    a, b, D = _nets()[case]
    proof = prove_equivalence(a, b, D)
    assert proof.result == "proved"
    assert proof.steps[-1].rule == "linear-identity"           # no cell decision needed
    assert any("max-scale-shift" in s.rule.split("+") for s in proof.steps)
    cert = json.loads(json.dumps(certificate_of(proof)))
    assert check_certificate(cert)["result"] == "checked"
    for tamper in (["0", "0"], ["1", "0"], ["2", "0"], None):   # c <= 0, the identity, a wrong c, removed
        bad = json.loads(json.dumps(cert))
        step = next(s for s in bad["steps"] if "max-scale-shift" in s["rule"])
        facts = next(f for f in (u[1] if isinstance(u, list) else u for u in step["certificate"]["units"])
                     if isinstance(f, dict) and "scale" in f)
        if tamper is None:
            del facts["scale"]
        else:
            facts["scale"] = tamper
        with pytest.raises(CertificateError):
            check_certificate(bad)


@pytest.mark.parametrize("case", [0, 1])
def test_a_tiny_change_of_the_scaled_copy_is_refuted(case):
    a, b, D = _nets()[case]
    from symrel.fileformat import from_json, to_json

    obj = to_json(b)
    if case == 0:
        obj["layers"][1]["W"][0][0] = str(Q(1, 3) + Q(1, 10 ** 6))
    else:
        obj["readout"]["b"][0] = str(Q(-2, 5) + Q(1, 10 ** 6))
    b2 = from_json(obj)
    proof = prove_equivalence(a, b2, D)
    assert proof.result == "refuted"
    x = proof.counterexample
    assert D.contains(x) and a.evaluate_exact(x) != b2.evaluate_exact(x)
