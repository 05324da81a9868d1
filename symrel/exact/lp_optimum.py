"""The exact maximum of an affine objective over a closed polyhedron, with an optimal vertex.

``maximise(A, b, w, w0, upper)`` solves ``max w.x + w0`` over ``P = {x : A x <= b, C x = d}``
(every row taken closed) exactly, through the same programme as
:func:`symrel.exact.lp.feasibility`:

    (P)   max t   s.t.  A x <= b,  C x = d,  -(w / M).x + t <= w0 / M,  t <= 1,

i.e. ``sigma = 0`` on the rows of A and 1 on the objective row, with ``M = 2 upper`` for a bound
the caller knows (``w.x + w0 <= upper`` on P, ``upper > 0``). At an optimum ``t* = min(1,
max (w.x + w0) / M)``, so when the maximum is positive it is ``M t*`` (and ``t* = 1`` shows
a wrong bound), reached at
the primal optimum ``x*`` (a vertex of the simplex method's basis). ``x*`` is checked
exactly against every row and the objective before it is returned. Cost: one exact simplex
solve on ``len(x) + 1`` dual rows.

>>> from symrel.exact import rational as r
>>> A = [[r(1), r(1)], [r(-1), r(0)], [r(0), r(-1)]]          # the triangle x, y >= 0, x + y <= 1
>>> value, x = maximise(A, [r(1), r(0), r(0)], [r(2), r(-1)], r(0), upper=r(2))
>>> str(value), [str(v) for v in x]                            # 2x - y is largest at (1, 0)
('2', ['1', '0'])
>>> maximise(A, [r(1), r(0), r(0)], [r(-1), r(-1)], r(0), upper=r(1)) is None   # max 0: not positive
True
"""

from __future__ import annotations

from typing import Sequence

from .exact_simplex import exact_simplex
from .numbers import Q, Rational

ZERO, ONE = Q(0), Q(1)


def maximise(A: Sequence[Sequence[Rational]], b: Sequence[Rational], w: Sequence[Rational], w0: Rational,
             upper: Rational, C: Sequence[Sequence[Rational]] = (), d: Sequence[Rational] = (), budget=None):
    """``(max, x*)`` of ``w.x + w0`` over the closed polyhedron, when that maximum is positive
    (``upper`` bounds it from above on the polyhedron, ``upper > 0``); None when it is <= 0 or
    the polyhedron is empty. ``budget``: checked before every pivot
    (:func:`symrel.exact.exact_simplex.exact_simplex`)."""
    if upper <= 0:
        raise ValueError("maximise needs a positive upper bound of the objective")
    M = 2 * upper          # a valid bound keeps t* <= 1/2, so t* = 1 shows a wrong one
    rows = [list(r) for r in A] + [[-a / M for a in w]]
    rhs = list(b) + [w0 / M]
    sigma = [ZERO] * len(A) + [ONE]
    out = exact_simplex(rows, rhs, [list(r) for r in C], list(d), sigma, float_start=True, budget=budget)
    if out["status"] != "optimal" or out["t"] <= 0:
        return None
    x, t = list(out["x"]), out["t"]
    value = w0 + sum((a * v for a, v in zip(w, x) if a), ZERO)
    if t == 1 or value > upper:
        raise ValueError(f"the objective exceeds the given upper bound {upper}")
    ok = all(sum((a * v for a, v in zip(row, x) if a), ZERO) <= bi for row, bi in zip(A, b)) and \
        all(sum((a * v for a, v in zip(row, x) if a), ZERO) == di for row, di in zip(C, d))
    if not ok or value != t * M:     # pragma: no cover - would be a bug of the simplex
        raise AssertionError("internal error: the LP optimum failed its exact check")
    return value, x
