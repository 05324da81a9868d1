"""Exact interpolation of finitely many points by a ReLU network.

Given distinct rational points ``x_1 .. x_n`` in R^d and rational targets
``y_1 .. y_n`` in R^p, build a ReLU net ``f`` with ``f(x_i) = y_i`` exactly
(docs/theory.md#relation-functions-as-inner-products-paper-b, the last step of "symmetric relation -> MLP features").

Construction (one hidden layer):

1. A direction ``c = (1, M, M^2, .., M^(d-1))`` with an integer ``M >= 0`` that
   separates the points: the projections ``t_i = c . x_i`` are pairwise distinct.
   For a difference ``delta = x_i - x_j != 0`` the value ``c . delta`` is a nonzero
   polynomial in ``M`` of degree < d, so only finitely many ``M`` fail; small ``M``
   are tried first (short weights), then a Cauchy root bound that provably works.
2. Sort the projections ``t_(0) < .. < t_(n-1)``; the piecewise-linear
   interpolant of each output in ``t`` is
   ``y_(0) + sum_k (s_k - s_(k-1)) ReLU(t - t_(k))``, ``k = 0 .. n-2``, where
   ``s_k`` is the slope on ``[t_(k), t_(k+1)]`` and ``s_(-1) = 0``. Every point has
   ``t >= t_(0)``, so ``ReLU(t - t_(0)) = t - t_(0)`` there and the formula is the
   interpolant at every data point. Kinks whose slope change is zero in every
   output are dropped.

Size: at most ``n - 1`` hidden ReLUs (n = number of distinct points), shared by
all p outputs; cost O(n d + n log n + n p) exact operations once ``M`` is found.

>>> net = interpolating_relu_net([[0, 0], [1, 0], [0, 1]], [[1], [2], ["-1/2"]])
>>> [[str(v) for v in net(x)] for x in ([0, 0], [1, 0], [0, 1])]
[['1'], ['2'], ['-1/2']]
>>> net.num_relus
2
"""

from __future__ import annotations

from typing import Sequence

from ..errors import DimensionError, InputError
from ..exact import Q, Rational, dot, from_rationals
from ..models.base import as_point, require_seq
from ..models.relu import DenseLayer, ReLUNet

#: How many small values of ``M`` are tried before the guaranteed root bound.
SMALL_M_TRIES = 16


def separating_direction(points: Sequence[Sequence[Rational]]) -> list[Rational]:
    """An integer direction ``c = (1, M, .., M^(d-1))`` with ``c . x_i`` pairwise
    distinct over the *distinct* points given (exact rationals, all of length d).

    Tries ``M = 0, 1, .., SMALL_M_TRIES - 1`` first, then ``M = 1 + B`` where ``B``
    bounds ``|delta_k / delta_top|`` over all differences (Cauchy's bound: no
    root of ``sum_k delta_k M^k`` exceeds it), which always separates.
    Cost O(n d) per small try; the bound costs O(n^2 d).

    >>> [str(v) for v in separating_direction([[0, 0], [0, 1]])]
    ['1', '1']
    """
    d = len(points[0])
    for M in range(SMALL_M_TRIES):
        c = _powers(M, d)
        if len({dot(c, x) for x in points}) == len(points):
            return c
    return _powers(_cauchy_bound(points) + 1, d)


def _powers(M: int, d: int) -> list[Rational]:
    return [Q(M**k) for k in range(d)]


def _cauchy_bound(points) -> int:
    """An integer ``B`` such that no real root of any ``sum_k (x_i - x_j)_k M^k``
    (i != j) exceeds ``B`` in absolute value."""
    bound = Q(0)
    n = len(points)
    for i in range(n):
        for j in range(i + 1, n):
            delta = [a - b for a, b in zip(points[i], points[j])]
            top = max(k for k, v in enumerate(delta) if v)
            lead = abs(delta[top])
            for v in delta[:top]:
                bound = max(bound, abs(v) / lead)
    return int(bound.numerator // bound.denominator) + 1


def _distinct(points, targets) -> tuple[list, list]:
    """Drop repeated points (their targets must agree); refuses conflicting ones."""
    first: dict[tuple, int] = {}
    keep_x, keep_y = [], []
    for i, (x, y) in enumerate(zip(points, targets)):
        key = tuple(x)
        if key in first:
            j = first[key]
            if y != targets[j]:
                raise InputError(
                    f"point {i} repeats point {j} with a different target: no function interpolates both",
                    path=f"targets[{i}]",
                )
            continue
        first[key] = i
        keep_x.append(x)
        keep_y.append(y)
    return keep_x, keep_y


def interpolating_relu_net(points, targets) -> ReLUNet:
    """A ReLU net ``f`` with ``f(points[i]) == targets[i]`` exactly.

    ``points``: a list of n points in R^d (rationals in any form
    :func:`symrel.exact.rational` reads); ``targets``: a list of n vectors in R^p.
    Repeated points must carry equal targets (else :class:`InputError` naming the
    index). The net has one hidden ReLU layer of at most ``n - 1`` units (see the
    module docstring); with a single distinct point it is one affine layer.

    >>> f = interpolating_relu_net([[0], [1], [2]], [[0, 1], [1, 1], [0, 1]])
    >>> [[str(v) for v in f(x)] for x in ([0], [1], [2])]
    [['0', '1'], ['1', '1'], ['0', '1']]
    >>> f.widths
    [2, 2]
    """
    require_seq(points, "points", "points", min_len=1)
    require_seq(targets, "targets", "targets")
    if len(targets) != len(points):
        raise DimensionError(f"expected {len(points)} targets (one per point), got {len(targets)}", path="targets")
    d = len(points[0]) if isinstance(points[0], (list, tuple)) else None
    if d is None or d == 0:
        raise InputError("expected a point (a non-empty list of numbers)", path="points[0]")
    p = len(targets[0]) if isinstance(targets[0], (list, tuple)) else None
    if p is None or p == 0:
        raise InputError("expected a target (a non-empty list of numbers)", path="targets[0]")
    xs = [as_point(x, d, path=f"points[{i}]") for i, x in enumerate(points)]
    ys = [as_point(y, p, path=f"targets[{i}]") for i, y in enumerate(targets)]
    xs, ys = _distinct(xs, ys)
    if len(xs) == 1:
        return ReLUNet(d, [DenseLayer(from_rationals([[Q(0)] * d for _ in range(p)], (p, d)), ys[0], "none")])

    c = separating_direction(xs)
    order = sorted(range(len(xs)), key=lambda i: dot(c, xs[i]))
    t = [dot(c, xs[i]) for i in order]
    y = [ys[i] for i in order]
    slopes = [[(y[k + 1][o] - y[k][o]) / (t[k + 1] - t[k]) for o in range(p)] for k in range(len(t) - 1)]

    hidden_b, out_cols = [], []  # one hidden unit ReLU(c.x - t_k) per kink with a slope change
    previous = [Q(0)] * p
    for k, s in enumerate(slopes):
        change = [a - b for a, b in zip(s, previous)]
        previous = s
        if any(change):
            hidden_b.append(-t[k])
            out_cols.append(change)
    if not out_cols:  # every output constant on the points
        return ReLUNet(d, [DenseLayer(from_rationals([[Q(0)] * d for _ in range(p)], (p, d)), y[0], "none")])
    h = len(out_cols)
    # the first kink is at t_(0) when its change is nonzero; otherwise the constant
    # y_(0) is still right because every dropped unit contributes zero.
    W1 = from_rationals([list(c) for _ in range(h)], (h, d))
    W2 = from_rationals([[col[o] for col in out_cols] for o in range(p)], (p, h))
    return ReLUNet(d, [DenseLayer(W1, hidden_b, "relu"), DenseLayer(W2, y[0], "none")])
