"""Exact evaluation against an independent sympy evaluation (sympy Max of Rationals)."""

import random

import pytest
import sympy

from symrel.exact import to_sympy
from symrel.fileformat import to_json
from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, AffineMap
from symrel.constructions.random import random_maxout_net, random_point


def sympy_eval_maxout(obj, x):
    """Evaluate a maxout net from its JSON object with sympy alone."""
    R = sympy.Rational
    h = [R(v) for v in x]
    for layer in obj["layers"]:
        h = [
            sympy.Max(*[sum((R(w) * v for w, v in zip(p["w"], h)), R(0)) + R(p["b"]) for p in u["pieces"]])
            for u in layer["units"]
        ]
    if "readout" in obj:
        h = [sum((R(w) * v for w, v in zip(row, h)), R(0)) + R(b) for row, b in zip(obj["readout"]["W"], obj["readout"]["b"])]
    return h


@pytest.mark.parametrize("seed", range(6))
def test_random_nets_agree_with_sympy(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 5)
    net = random_maxout_net(rng, d, [rng.randint(1, 6) for _ in range(rng.randint(1, 3))], rank=(1, 4))
    obj = to_json(net)
    pts = [random_point(rng, d, 20, 7) for _ in range(40)]
    batch = net.evaluate_points(pts)
    for p, y in zip(pts, batch):
        expected = sympy_eval_maxout(obj, [to_sympy(v) for v in p])
        assert [to_sympy(v) for v in y] == expected
        assert net.evaluate(p) == y


def test_ties_are_exact():
    # pieces x and 1 - x tie at x = 1/2; |x - 1/2| has its kink there
    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 1]), MaxoutUnit([[2], [-2]], [-1, 1])])], AffineMap([[1, 1]]))
    assert [str(v) for v in net(["1/2"])] == ["1/2"]
    assert [str(v) for v in net(["1/4"])] == ["5/4"]
    for t in range(-10, 11):
        x = sympy.Rational(t, 20)
        assert net([str(x)])[0] == sympy.Max(x, 1 - x) + sympy.Max(2 * x - 1, 1 - 2 * x)


def test_hundreds_of_points_with_ties_against_symbolic_view():
    rng = random.Random(7)
    net = random_maxout_net(rng, 2, [3, 2], rank=3, max_num=3, max_den=2)
    expr = net.to_sympy()[0]
    x1, x2 = sympy.symbols("x1:3")
    grid = [[sympy.Rational(i, 4), sympy.Rational(j, 4)] for i in range(-8, 9) for j in range(-8, 9)]
    out = net.evaluate_points([[str(a), str(b)] for a, b in grid])
    for (a, b), y in zip(grid, out):
        assert to_sympy(y[0]) == expr.xreplace({x1: a, x2: b})


def test_structure_errors():
    from symrel.errors import DimensionError, InputError

    with pytest.raises(InputError, match="at least 1 units"):
        MaxoutLayer([])
    u2 = MaxoutUnit([[1, 2]])
    with pytest.raises(DimensionError, match="layers\\[0\\]"):
        MaxoutNet(3, [MaxoutLayer([u2])])


def test_hidden_batch_reads_points_and_gives_points_by_units():
    from fractions import Fraction

    import sympy

    from symrel.models import AffineMap, MaxoutLayer, MaxoutNet, MaxoutUnit

    first = MaxoutLayer([MaxoutUnit([[1, 0], [-1, 0]]), MaxoutUnit([[0, 1], [0, "1/2"]], [0, 1])])
    net = MaxoutNet(2, [first, MaxoutLayer([MaxoutUnit([[1, -1]])])], AffineMap([[2]], [1]))
    points = [["-1/2", 3], [2, -4]]
    hidden = net.hidden_batch(points)
    assert hidden == [[[Fraction(1, 2), 3], [2, -1]], [[Fraction(-5, 2)], [3]]]
    assert all(isinstance(v, (int, sympy.Rational)) for layer in hidden for p in layer for v in p)
    assert net.evaluate_batch(points) == [[2 * layer_out[0] + 1 for layer_out in hidden[-1][k:k + 1]] for k in range(2)]
    assert net.hidden_batch([]) == [[], []]
