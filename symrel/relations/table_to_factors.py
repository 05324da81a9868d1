"""Relation table -> exact factorisation ``R = P Q^T`` (docs/theory.md#relation-functions-as-inner-products-paper-b).

* Symmetric PSD table (:func:`gram_factors`): ``R = L D L^T`` (:mod:`.ldl`), each
  pivot ``d_k >= 0`` a sum of ``s_k <= 4`` rational squares ``a_k1^2 + ..``
  (:mod:`.squares`), so ``R = Phi Phi^T`` with the columns ``a_km L[:, k]``: one
  feature map, of dimension at most ``sum_k s_k`` (zero pivots dropped; 1, 2 or
  3 squares when the pivot allows; pivots of one square class share four
  features per four pivots), so between rank and 4 rank.
* Any table (:func:`rank_factors`): from the reduced row echelon form
  ``E = rref(R)`` with pivot columns J, ``R = R[:, J] E[:r, :]``: dimension
  exactly ``r = rank R``.

Both run on the exact layer (fraction-free integer elimination, the exact
:class:`~symrel.exact.matrices.Matrix` rref), never on sympy ``Matrix``.

>>> from symrel.exact import matrix
>>> f = gram_factors(matrix([[2, 1], [1, 1]]))
>>> f.dimension, f.squares_per_pivot, [[str(v) for v in row] for row in f.P]
(2, [2, 2], [['1', '1'], ['0', '1']])
>>> g = rank_factors(matrix([[1, 2], [2, 4], [0, 0]]))
>>> g.dimension, [[str(v) for v in row] for row in g.P], [[str(v) for v in row] for row in g.Q]
(1, [['1'], ['2'], ['0']], [['1'], ['2']])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..exact import Matrix, Public, Q, Rational, inner, matrix, rows
from .ldl import LDLCertificate, NotPSDWitness, ldl_psd
from .squares import MINIMAL_DIGITS, euler_product, integer_squares, quotient_squares


@dataclass
class Factors:
    """``R = P Q^T``: rows ``P[i]`` are the features of ``x_i``, rows ``Q[j]``
    those of ``y_j`` (``Q is P`` for a Gram factorisation); read as sympy Rationals."""

    P: list[list[Rational]] = Public()
    Q: list[list[Rational]] = Public()
    rank: int
    method: str
    ldl: LDLCertificate | None = None
    squares_per_pivot: list[int] | None = None

    @property
    def dimension(self) -> int:
        return len(self.P[0]) if self.P else 0

    @property
    def symmetric(self) -> bool:
        return inner(self, "Q") is inner(self, "P")


def _zero_features(n: int) -> list[list[Rational]]:
    """A relation that is identically 0 still needs one (zero) feature."""
    return [[Q(0)] for _ in range(n)]


def gram_factors(R: Matrix) -> Factors | NotPSDWitness:
    """``R = P P^T`` over Q for a symmetric PSD R, or the witness that R is not PSD.

    ``R = sum_k d_k l_k l_k^T`` (LDL^T). Pivots whose ratio is a rational square
    form a class ``d_k = d s_k^2``; with ``d = b_1^2 + .. + b_4^2``, a group of
    up to four members has ``sum_t d_(k_t) (l_t . y)^2 = d (u_1^2 + .. + u_4^2)``,
    ``u_t = s_t l_t . y``, which Euler's identity writes as four squares of linear
    forms in u. So a class costs 4 features per four pivots instead of up to 16
    (a 2-square class: 2 per pair), never more than one sum of squares per pivot.

    Cost: the O(n^3) elimination, O(rank x classes) square tests, and one
    four-square search per class representative.
    """
    cert = ldl_psd(R)
    if not cert.psd:
        return cert
    n = len(inner(cert, "D"))
    classes = _square_classes(inner(cert, "D"))
    squares = _pivot_squares(cert, [members[0][0] for members in classes])
    columns, counts = [], [0] * n
    for members in classes:
        b = squares[members[0][0]]
        for k, _ in members:
            counts[k] = len(b)
        for start in range(0, len(members), 4):
            columns.extend(_group_columns(members[start:start + 4], b, inner(cert, "L")))
    P = [list(r) for r in zip(*columns)] if columns else _zero_features(n)
    return Factors(P, P, cert.rank, "ldl-four-squares", cert, counts)


def _rational_sqrt(q: Rational) -> Rational | None:
    """The rational square root of ``q >= 0``, or None when q is not a square."""
    p, d = int(q.numerator), int(q.denominator)
    rp, rd = math.isqrt(p), math.isqrt(d)
    return Q(rp, rd) if rp * rp == p and rd * rd == d else None


def _square_classes(D: list[Rational]) -> list[list[tuple[int, Rational]]]:
    """The nonzero pivots grouped by square class: lists of ``(k, s_k)`` with
    ``D[k] = D[first] s_k^2`` (``s = 1`` for the first member)."""
    classes: list[list[tuple[int, Rational]]] = []
    for k, d in enumerate(D):
        if not d:
            continue
        for members in classes:
            s = _rational_sqrt(d / D[members[0][0]])
            if s is not None:
                members.append((k, s))
                break
        else:
            classes.append([(k, Q(1))])
    return classes


def _pivot_squares(cert: LDLCertificate, wanted: list[int]) -> dict[int, list[Rational]]:
    """For each pivot k in ``wanted``: rationals whose squares sum to ``D[k]``.

    ``D[k] = minor_k / (scale minor_prev)`` with integer minors, so the
    representation comes from those of the integers (:func:`quotient_squares`)."""
    scale = int(cert.scale)
    scale_squares = integer_squares(scale)
    want, out, previous = set(wanted), {}, 1
    for k, minor in enumerate(cert.minors):
        if not minor:
            continue
        if k in want:
            big = len(str(minor)) > MINIMAL_DIGITS
            den_squares = euler_product(scale_squares, integer_squares(previous)) if big else None
            out[k] = quotient_squares(minor, scale * previous, integer_squares(minor) if big else None, den_squares)
        previous = minor
    return out


def _group_columns(group: list[tuple[int, Rational]], b: list[Rational], L) -> list[list[Rational]]:
    """Feature columns for at most four pivots ``d s_t^2`` of one class, ``d = sum b^2``:
    one column ``b_m s_t L[:, k_t]`` per square and pivot, or the four Euler forms
    ``E_m(b, u)`` when fewer."""
    n = len(L)
    u = [[s * L[i][k] for i in range(n)] for k, s in group]
    plain = [[a * v for v in ut] for ut in u for a in b]
    if len(b) == 1 or len(group) == 1:
        return plain
    units = [tuple(Q(int(t == j)) for j in range(len(group))) for t in range(len(group))]
    coefficients = [euler_product(tuple(b), e) for e in units]  # E_m(b, e_t), linear in u
    euler = []
    for m in range(4):
        column = [sum((coefficients[t][m] * u[t][i] for t in range(len(group))), Q(0)) for i in range(n)]
        if any(column):
            euler.append(column)
    return euler if len(euler) < len(plain) else plain


def rank_factors(R: Matrix) -> Factors:
    """``R = P Q^T`` with inner dimension ``rank R`` (1 when R = 0), from rref.

    Cost: one Matrix rref, O(n m min(n, m)) exact operations."""
    R = matrix(R, path="r")  # a Matrix, or a sympy matrix such as Relation.R
    n, m = R.shape
    E, pivots = R.rref()
    r = len(pivots)
    if r == 0:
        return Factors(_zero_features(n), _zero_features(m), 0, "rank-rref")
    table, echelon = rows(R), rows(E)
    P = [[row[j] for j in pivots] for row in table]
    Qf = [[echelon[k][j] for k in range(r)] for j in range(m)]
    return Factors(P, Qf, r, "rank-rref")
