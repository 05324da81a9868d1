"""One public number type, sympy's Rational, whatever ground types sympy uses: a numbers.Rational
that equals Fraction, int and symrel's inner QQ elements (a Fraction does not equal flint's fmpq)."""

from fractions import Fraction
from numbers import Rational

import pytest
import sympy

from symrel.errors import InputError
from symrel.exact import Q
from symrel.models import AffineMap, Box, CPWL1D, DenseLayer, MaxoutUnit, Polytope, ReLUNet


def _net():
    return ReLUNet(2, [DenseLayer([[1, -1], [2, "1/3"]], ["1/2", 0]), DenseLayer([[1, 1]], [0], "none")])


def test_outputs_are_fractions():
    y = _net()(["1/4", 0])
    assert isinstance(y[0], sympy.Rational) and isinstance(y[0], Rational)
    assert y[0] == Fraction(5, 4) and y[0] + Fraction(1, 4) == Fraction(3, 2) and Fraction(5, 4) == y[0]
    assert y[0] == Q(5, 4) and Q(5, 4) == y[0]  # and symrel's own numbers, under every ground type
    assert str(y[0].evalf(3)) == "1.25" and sympy.latex(y[0]) == r"\frac{5}{4}"


def test_batch_is_points_by_outputs():
    out = _net().evaluate_batch([[0, 0], [1, "1/3"], [-1, 0]])
    assert len(out) == 3 and all(len(r) == 1 for r in out)
    assert all(isinstance(v, sympy.Rational) for r in out for v in r)
    assert out[0] == [Fraction(1, 2)]


def test_float_inputs_need_exact_floats():
    net = _net()
    with pytest.raises(InputError, match="exact_floats=True"):
        net([0.25, 0])
    assert net([0.25, 0], exact_floats=True) == net(["1/4", 0])
    assert Box([[-0.5, 1]], exact_floats=True).bounds[0][0] == Q(-1, 2)
    assert MaxoutUnit([[0.5], [-1]], [0, 0.25], exact_floats=True).evaluate([1]) == Fraction(1, 2)
    P = Polytope([[1.0, 1.0]], [0.5], exact_floats=True)
    assert P.contains(["1/4", "1/4"]) and not P.contains(["1/2", "1/4"])
    assert CPWL1D([0, 0.5], [1, 2], exact_floats=True)(["1/4"]) == [Fraction(3, 2)]
    assert AffineMap([[0.1]], exact_floats=True)([1])[0] == Fraction(*0.1.as_integer_ratio())


def test_numpy_arrays_are_accepted():
    np = pytest.importorskip("numpy")
    net = _net()
    assert net(np.array([1, 0])) == net([1, 0])
    assert net.evaluate_batch(np.array([[1, 0], [0, 0]])) == net.evaluate_batch([[1, 0], [0, 0]])
    with pytest.raises(InputError, match="exact_floats=True"):
        net(np.array([0.25, 0.0]))
    assert net(np.array([0.25, 0.0]), exact_floats=True) == net(["1/4", 0])
    assert net.evaluate_batch(np.array([[0.25, 0.0]], dtype=np.float32), exact_floats=True) == [net(["1/4", 0])]
    assert Box(np.array([[-1, 1], [0, 2]])).bounds[1][1] == 2
    with pytest.raises(InputError, match="dtype bool"):
        net(np.array([True, False]))


def test_counterexamples_are_fractions():
    from symrel.prover import prove_equivalence

    a = _net()
    b = ReLUNet(2, [DenseLayer([[1, -1], [2, "1/3"]], ["1/2", "1/1000"]), DenseLayer([[1, 1]], [0], "none")])
    proof = prove_equivalence(a, b, Box.cube(2))
    assert proof.result == "refuted"
    assert all(isinstance(v, sympy.Rational) for v in proof.counterexample)


# The same numbers under every ground type (python, gmpy, flint) are compared by the
# slow walk of every public reading in tests/exact/test_public.py.


def test_transformer_parts_take_exact_floats():
    from symrel.models import AttentionHead, FeedForward, Readout

    with pytest.raises(InputError, match="exact_floats=True"):
        FeedForward([[0.5]], [0], [[1]], [0])
    ff = FeedForward([[0.5]], [0.25], [[1.0]], [0], exact_floats=True)
    assert ff.W1[0, 0] == Fraction(1, 2) and ff.b1[0] == Fraction(1, 4)
    assert Readout(0, [[0.125]], [0.5], width=1, tokens=1, exact_floats=True).b[0] == Fraction(1, 2)
    assert AttentionHead([[0.5]], [[1]], [[1]], [[1]], exact_floats=True).WQ[0, 0] == Fraction(1, 2)


def test_crossval_figures_are_public_rationals():
    pytest.importorskip("numpy")
    from symrel.crossval.compare import crossvalidate

    rep = crossvalidate(_net(), "numpy", "float32", 10, seed=0)
    assert isinstance(rep.max_abs_error, sympy.Rational) and isinstance(rep.max_ulp_error, sympy.Rational)
    assert all(isinstance(v, sympy.Rational) for v in rep.worst_input)
    assert rep.max_abs_error < Fraction(1, 10**4)
