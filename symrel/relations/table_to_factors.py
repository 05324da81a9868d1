"""Relation table -> exact factorisation ``R = P Q^T`` (THEORY.md section 5).

* Symmetric PSD table (:func:`gram_factors`): ``R = L D L^T`` (:mod:`.ldl`), each
  pivot ``d_k >= 0`` a sum of ``s_k <= 4`` rational squares ``a_k1^2 + ..``
  (:mod:`.squares`), so ``R = Phi Phi^T`` with the columns ``a_km L[:, k]``: one
  feature map, of dimension ``sum_k s_k`` (zero pivots dropped; 1, 2 or 3
  squares when the pivot allows, so between rank and 4 rank).
* Any table (:func:`rank_factors`): from the reduced row echelon form
  ``E = rref(R)`` with pivot columns J, ``R = R[:, J] E[:r, :]``: dimension
  exactly ``r = rank R``.

Both run on the exact layer (fraction-free integer elimination, DomainMatrix
rref), never on sympy ``Matrix``.

>>> from symrel.exact import matrix
>>> f = gram_factors(matrix([[2, 1], [1, 1]]))
>>> f.dimension, f.squares_per_pivot, [[str(v) for v in row] for row in f.P]
(4, [2, 2], [['1', '1', '0', '0'], ['1/2', '1/2', '1/2', '1/2']])
>>> g = rank_factors(matrix([[1, 2], [2, 4], [0, 0]]))
>>> g.dimension, [[str(v) for v in row] for row in g.P], [[str(v) for v in row] for row in g.Q]
(1, [['1'], ['2'], ['0']], [['1'], ['2']])
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exact import Matrix, Q, Rational, rows
from .ldl import LDLCertificate, NotPSDWitness, ldl_psd
from .squares import MINIMAL_DIGITS, euler_product, integer_squares, quotient_squares


@dataclass
class Factors:
    """``R = P Q^T``: rows ``P[i]`` are the features of ``x_i``, rows ``Q[j]``
    those of ``y_j`` (``Q is P`` for a Gram factorisation)."""

    P: list[list[Rational]]
    Q: list[list[Rational]]
    rank: int
    method: str
    ldl: LDLCertificate | None = None
    squares_per_pivot: list[int] | None = None

    @property
    def dimension(self) -> int:
        return len(self.P[0]) if self.P else 0

    @property
    def symmetric(self) -> bool:
        return self.Q is self.P


def _zero_features(n: int) -> list[list[Rational]]:
    """A relation that is identically 0 still needs one (zero) feature."""
    return [[Q(0)] for _ in range(n)]


def gram_factors(R: Matrix) -> Factors | NotPSDWitness:
    """``R = P P^T`` over Q for a symmetric PSD R, or the witness that R is not PSD.

    Cost: the O(n^3) elimination plus one four-square search per nonzero pivot
    minor (Euler's identity combines consecutive minors).
    """
    cert = ldl_psd(R)
    if not cert.psd:
        return cert
    n = len(cert.D)
    columns, counts = [], []
    scale = int(cert.scale)
    scale_squares = integer_squares(scale)
    previous, previous_squares = 1, (1,)
    for k, minor in enumerate(cert.minors):
        if not minor:
            counts.append(0)
            continue
        # d_k = minor / (scale * previous): write it as a sum of rational squares
        den_squares = euler_product(scale_squares, previous_squares)
        minor_squares = integer_squares(minor) if len(str(minor)) > MINIMAL_DIGITS else None
        squares = quotient_squares(minor, scale * previous, minor_squares, den_squares)
        counts.append(len(squares))
        for a in squares:
            columns.append([a * cert.L[i][k] for i in range(n)])
        previous, previous_squares = minor, minor_squares if minor_squares is not None else integer_squares(minor)
    P = [list(r) for r in zip(*columns)] if columns else _zero_features(n)
    return Factors(P, P, cert.rank, "ldl-four-squares", cert, counts)


def rank_factors(R: Matrix) -> Factors:
    """``R = P Q^T`` with inner dimension ``rank R`` (1 when R = 0), from rref.

    Cost: one DomainMatrix rref, O(n m min(n, m)) exact operations."""
    n, m = R.shape
    E, pivots = R.rref()
    r = len(pivots)
    if r == 0:
        return Factors(_zero_features(n), _zero_features(m), 0, "rank-rref")
    table, echelon = rows(R), rows(E)
    P = [[row[j] for j in pivots] for row in table]
    Qf = [[echelon[k][j] for k in range(r)] for j in range(m)]
    return Factors(P, Qf, r, "rank-rref")
