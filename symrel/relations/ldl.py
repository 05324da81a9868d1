"""Exact positive-semidefiniteness of a symmetric rational matrix by LDL^T.

Definition: a symmetric ``R`` is PSD iff ``z^T R z >= 0`` for every z. Gaussian
elimination without pivoting decides it: after k steps

    ``R = L_k diag(d_1 .. d_k, S) L_k^T``

with ``L_k`` unit lower triangular and ``S`` the Schur complement. At step k:

* ``S_kk > 0``: a pivot, eliminate its column;
* ``S_kk = 0`` and the rest of its column is zero: ``d_k = 0``, nothing to do;
* ``S_kk < 0``, or ``S_kk = 0`` beside a nonzero ``S_jk``: not PSD. The witness
  ``w = e_k`` (first case) or ``w = a e_k + e_j`` with ``a = -(S_jj + 1) / (2 S_kj)``
  (then ``w^T S w = -1``) gives ``z = L_k^(-T) w`` with
  ``z^T R z = w^T S w < 0``.

A PSD matrix ends with ``R = L D L^T``, ``D >= 0``: the certificate. Cost
O(n^3) exact operations, no pivoting (a PSD matrix never needs it: a zero pivot
of a PSD matrix has a zero column). Entries of S are ratios of minors of R, so
their size stays bounded.

>>> from symrel.exact import matrix
>>> cert = ldl_psd(matrix([[4, 2], [2, 2]]))
>>> [str(d) for d in cert.D], [[str(v) for v in r] for r in cert.L]
(['4', '1'], [['1', '0'], ['1/2', '1']])
>>> bad = ldl_psd(matrix([[0, 1], [1, 0]]))
>>> [str(v) for v in bad.z], str(bad.value)
(['-1/2', '1'], '-1')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sympy import ZZ

from ..errors import DimensionError
from ..exact import Matrix, Public, Q, Rational, from_rationals, matrix, rational, rows


@dataclass
class LDLCertificate:
    """``R = L diag(D) L^T`` with L unit lower triangular and every ``D[k] >= 0`` (read as
    sympy Rationals, :mod:`symrel.exact.public`)."""

    L: list[list[Rational]] = Public()
    D: list[Rational] = Public()
    #: the integers behind D: ``D[k] = minors[k] / (scale * previous nonzero minor)``
    #: with ``scale * R`` integral (``minors[k] = 0`` for a zero pivot).
    minors: list[int] | None = None
    scale: int = 1

    psd = True

    @property
    def rank(self) -> int:
        return sum(1 for d in self.D if d)


@dataclass
class NotPSDWitness:
    """``z^T R z = value < 0``; ``step`` is the pivot where elimination stopped."""

    z: list[Rational] = Public()
    value: Rational = Public()
    step: int
    reason: str

    psd = False


def quadratic_form(R: Matrix, z) -> Rational:
    """``z^T R z``, exactly (R a ``Matrix``, a sympy matrix or rows of numbers)."""
    R, z = matrix(R, path="r"), [rational(v) for v in z]
    total = Q(0)
    for zi, row in zip(z, rows(R)):
        if zi:
            total += zi * sum((a * b for a, b in zip(row, z) if b), Q(0))
    return total


def _integer_rows(R: Matrix) -> tuple[list[list], int]:
    """``(A, c)`` with ``A = c R`` an integer matrix, c the lcm of the denominators."""
    table = rows(R)
    c = 1
    for row in table:
        for v in row:
            c = math.lcm(c, int(v.denominator))
    return [[ZZ(int(v.numerator) * (c // int(v.denominator))) for v in row] for row in table], c


def ldl_psd(R: Matrix) -> LDLCertificate | NotPSDWitness:
    """Decide whether the symmetric matrix ``R`` (a Matrix over Q, a sympy matrix such
    as ``Relation.R``, or rows of numbers) is PSD.

    Returns an :class:`LDLCertificate` or a :class:`NotPSDWitness` whose value
    ``z^T R z < 0`` was recomputed from R. Symmetry is the caller's promise
    (:class:`~symrel.relations.table.Relation` checks it); a non-square R is refused.

    The elimination runs fraction-free (Bareiss) on the integer matrix
    ``A = c R``: after pivots on the index set P, ``A_ij = det A[P+i, P+j]`` and
    the Schur complement of R is ``S = A / (c det A[P, P])``, so no gcd is ever
    taken inside the loop; exact integer divisions only (about 20x faster than
    rational elimination on 60x60 random tables).
    """
    R = matrix(R, path="r")
    n, m = R.shape
    if n != m:
        raise DimensionError(f"expected a square matrix, got {n}x{m}", path="r")
    A, c = _integer_rows(R)
    L = [[Q(int(i == j)) for j in range(n)] for i in range(n)]
    D: list[Rational] = []
    minors: list[int] = []
    previous = ZZ(1)  # det A[P, P] for the pivots P so far (> 0)

    def schur(i, j):  # the entry (i, j) of the Schur complement of R, exactly
        return Q(A[i][j]) / (Q(previous) * c)

    for k in range(n):
        pivot = A[k][k]
        if pivot < 0:
            return _witness(R, L, {k: Q(1)}, k, f"pivot {k} is negative ({schur(k, k)})")
        if pivot == 0:
            j = next((j for j in range(k + 1, n) if A[j][k]), None)
            if j is not None:
                a = -(schur(j, j) + 1) / (2 * schur(k, j))
                return _witness(R, L, {k: a, j: Q(1)}, k, f"pivot {k} is zero but entry ({j}, {k}) of its column is not")
            D.append(Q(0))
            minors.append(0)
            continue
        D.append(schur(k, k))
        minors.append(int(pivot))
        row_k = A[k]
        for i in range(k + 1, n):
            row_i, a_ik = A[i], A[i][k]
            L[i][k] = Q(a_ik) / Q(pivot)
            for j in range(k + 1, n):
                row_i[j] = (pivot * row_i[j] - a_ik * row_k[j]) // previous
        previous = pivot
    return LDLCertificate(L, D, minors, c)


def _witness(R, L, w: dict[int, Rational], step: int, reason: str) -> NotPSDWitness:
    """``z = L^(-T) w`` by back substitution (L^T is unit upper triangular)."""
    n = len(L)
    z = [Q(0)] * n
    for i in range(n - 1, -1, -1):
        z[i] = w.get(i, Q(0)) - sum((L[j][i] * z[j] for j in range(i + 1, n) if L[j][i] and z[j]), Q(0))
    value = quadratic_form(R, z)
    if not value < 0:  # pragma: no cover - would be a bug in the elimination above
        raise AssertionError(f"internal error: witness has z^T R z = {value} >= 0")
    return NotPSDWitness(z, value, step, reason)


def ldl_product(L, D) -> Matrix:
    """``L diag(D) L^T`` (to check a certificate), one Matrix product."""
    n = len(L)
    L, D = [[rational(v) for v in r] for r in L], [rational(d) for d in D]  # public Rationals too
    Lm = from_rationals(L, (n, n))
    LD = from_rationals([[L[i][k] * D[k] for k in range(n)] for i in range(n)], (n, n))
    return LD * Lm.transpose()
