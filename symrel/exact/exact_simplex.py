"""Solve the dual (D) of :mod:`symrel.exact.lp` exactly over ``QQ``, optionally from the
final basis of the float simplex (inverted exactly, then verified by the exact simplex).
"""

from __future__ import annotations

from .matrices import FMPQ_MAT, Matrix, SingularMatrixError
from .numbers import Q
from .simplex import RevisedSimplex

ONE = Q(1)


def inverse(B):
    """The exact inverse of the square matrix ``B`` (a list of rows), or None when it is
    singular. With python-flint the numbers are flint's, and its ``fmpq_mat`` is called
    directly (the region search inverts one small basis per LP); otherwise
    :meth:`~symrel.exact.matrices.Matrix.inv`. The inverse is unique, so both give the same entries.

    >>> [[str(v) for v in r] for r in inverse([[Q(0), Q(2)], [Q(1), Q(1)]])]
    [['-1/2', '1'], ['1/2', '0']]
    >>> inverse([[Q(1), Q(2)], [Q(2), Q(4)]]) is None
    True
    """
    k = len(B)
    if FMPQ_MAT is not None:
        try:
            e = FMPQ_MAT(k, k, [v for r in B for v in r]).inv().entries()
        except ZeroDivisionError:  # singular
            return None
        return [e[i * k:(i + 1) * k] for i in range(k)]
    try:
        return Matrix([list(r) for r in B], (k, k)).inv().to_list()
    except SingularMatrixError:
        return None


def warm_start(A, b, C, d, sigma, basis, budget=None):
    """An exact simplex positioned at ``basis`` (None when it is singular or infeasible)."""
    lp = RevisedSimplex(A, b, C, d, sigma)
    k = lp.n + 1
    cols = [lp.column(j) for j in basis]
    Binv = inverse([[cols[c][r] for c in range(k)] for r in range(k)])
    if Binv is None:  # singular (a float pivot on a tiny number)
        return None
    u = [row[k - 1] for row in Binv]  # B^-1 f with f = e_(n+1)
    # a feasible basis of (D): no negative value and no artificial at a nonzero one
    if any(v < 0 or (j >= lp.ncol and v) for j, v in zip(basis, u)):
        return None
    lp.Binv, lp.u, lp.basis = Binv, u, list(basis)
    # an artificial still basic (at 0) must leave now, as in a start from scratch: the simplex
    # never lets one enter, and one left in a row that is not redundant could take a positive
    # value in a later pivot, ending at an optimum that is not one of (D)
    lp.drive_out_artificials(budget)
    return lp


def exact_simplex(A, b, C=(), d=(), sigma=None, float_start: bool = False, floats=None, budget=None) -> dict:
    """Solve (D) exactly (module docstring). Returns a dict with ``status``
    (``"optimal"`` or ``"unbounded"``) and: ``x, t`` (primal optimum of (P)) and
    ``y, z, w`` (dual optimum) when optimal; ``y, z`` (an unbounded ray, a Farkas
    vector for the non-strict system) when unbounded; ``pivots``.

    >>> from symrel.exact import rational as r
    >>> out = exact_simplex([[r(1)], [r(-1)]], [r(2), r(0)])
    >>> out["status"], [str(v) for v in out["x"]], str(out["t"])
    ('optimal', ['1'], '1')

    With ``float_start`` the same simplex runs first in floating point; its final
    basis is inverted exactly and the exact simplex continues from there (usually
    with no pivot at all: one exact pricing pass verifies optimality). ``floats``: the data
    ``(A, b, C, d)`` rounded to floats, when the caller keeps them (only the float start reads
    them, and it only proposes a basis). ``budget``: anything with a ``check()`` method
    (:class:`symrel.budget.Budget`), called before every pivot, float or exact; what it
    raises ends the solve (it never changes the answer of a solve it lets finish).

    >>> class After:                       # a budget that runs out at its first check
    ...     def check(self):
    ...         raise TimeoutError("out of time")
    >>> exact_simplex([[r(1)], [r(-1)]], [r(2), r(0)], budget=After())
    Traceback (most recent call last):
    ...
    TimeoutError: out of time
    """
    m = len(A)
    sigma = [ONE] * m if sigma is None else sigma
    A, b, C, d = [list(r) for r in A], list(b), [list(r) for r in C], list(d)
    lp = None
    if float_start:
        from .float_simplex import FloatSimplex  # a float proposal: loaded only when asked for

        try:  # the float start only proposes a basis; any float trouble falls back to exact
            fl = FloatSimplex(A, b, C, d, sigma, floats)
            fl.drive_out_artificials(budget)
            fl.solve(max_pivots=10_000, budget=budget)
            lp = warm_start(A, b, C, d, sigma, fl.basis, budget)
        except (RuntimeError, ZeroDivisionError, OverflowError):
            lp = None
    if lp is None:
        lp = RevisedSimplex(A, b, C, d, sigma)
        lp.drive_out_artificials(budget)
    status, info = lp.solve(budget=budget)
    if status == "unbounded":
        col, dcol = info
        ray = lp.full([(col, ONE)] + [(j, -a) for j, a in zip(lp.basis, dcol)])
        y, z = lp.split(ray)
        return {"status": status, "y": y, "z": z, "pivots": lp.pivots}
    u = lp.full(list(zip(lp.basis, lp.u)))
    y, z = lp.split(u)
    return {"status": status, "x": info[: lp.n], "t": info[lp.n], "y": y, "z": z,
            "w": u[lp.ncol - 1], "pivots": lp.pivots}
