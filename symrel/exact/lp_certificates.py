"""What the exact LP returns and how its answers are verified: a witness satisfies every
row exactly, a Farkas vector certifies emptiness (:mod:`symrel.exact.lp`, Motzkin's
transposition theorem). Nothing of the float layer is trusted: every answer passes
:func:`is_witness` or :func:`is_farkas` before it is returned.
"""

from __future__ import annotations

from .numbers import Q, Rational

ZERO = Q(0)


class LPResult:
    """The outcome of :func:`feasibility`.

    ``feasible``; ``point`` (a witness) and ``slack`` (the smallest slack of the
    rows carrying the slack variable, capped at 1) when feasible; ``farkas`` =
    ``(y, z)`` when not; ``method`` says which path produced the answer; ``stats`` (pivots).

    (A plain class, not a dataclass: defining a dataclass compiles its methods, a cost a
    ``symrel prove`` process paid before its first LP.)"""

    __slots__ = ("feasible", "point", "slack", "farkas", "method", "stats")

    def __init__(self, feasible: bool, point: list | None = None, slack: Rational | None = None,
                 farkas: tuple[list, list] | None = None, method: str = "", stats: dict | None = None):
        self.feasible, self.point, self.slack, self.farkas, self.method = feasible, point, slack, farkas, method
        self.stats = {} if stats is None else stats

    def _fields(self) -> tuple:
        return self.feasible, self.point, self.slack, self.farkas, self.method, self.stats

    def __eq__(self, other):
        return type(other) is LPResult and self._fields() == other._fields()

    __hash__ = None

    def __repr__(self):
        return "LPResult(" + ", ".join(f"{k}={v!r}" for k, v in zip(self.__slots__, self._fields())) + ")"


def sparse_dot(u, v, zero=ZERO) -> Rational:
    """``u . v``, skipping zero factors (``zero``: the field's zero, a float for the float simplex)."""
    s = zero
    for a, c in zip(u, v):
        if a and c:
            s += a * c
    return s


def is_witness(A, b, x, C=(), d=(), strict=None) -> bool:
    """Whether ``x`` satisfies every row exactly (strict rows strictly).

    >>> from symrel.exact import rational as r
    >>> is_witness([[r(1)]], [r(1)], [r(1)]), is_witness([[r(1)]], [r(1)], [r(1)], strict=[True])
    (True, False)
    """
    for i, (row, bi) in enumerate(zip(A, b)):
        lhs = sparse_dot(row, x)
        if strict is not None and strict[i]:
            if not lhs < bi:
                return False
        elif not lhs <= bi:
            return False
    return all(sparse_dot(row, x) == di for row, di in zip(C, d))


def is_farkas(A, b, y, z=(), C=(), d=(), strict=None) -> bool:
    """Whether ``(y, z)`` certifies that the system is empty (see the module docstring).

    >>> from symrel.exact import rational as r
    >>> is_farkas([[r(1)], [r(-1)]], [r(-1), r(0)], [r(1), r(1)])
    True
    >>> is_farkas([[r(1)], [r(-1)]], [r(-1), r(0)], [r(1), r(2)])   # y^T A != 0
    False
    """
    m, n = len(A), (len(A[0]) if A else (len(C[0]) if C else 0))
    if len(y) != m or len(z) != len(C) or any(v < 0 for v in y):
        return False
    for j in range(n):
        s = ZERO
        for i in range(m):
            if y[i]:
                s += y[i] * A[i][j]
        for k in range(len(C)):
            if z[k]:
                s += z[k] * C[k][j]
        if s != 0:
            return False
    value = sparse_dot(y, b) + sparse_dot(z, d)
    if value < 0:
        return True
    strict_weight = strict is not None and any(strict[i] and y[i] > 0 for i in range(m))
    return value == 0 and strict_weight
