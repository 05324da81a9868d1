"""Batches in common-denominator form: the fast path of exact batch evaluation.

Rational arithmetic pays a gcd on every operation. A batch of points X (``n x N``)
is kept instead as an integer matrix ``Nm`` and one positive denominator per
column, ``X[i][j] = Nm[i][j] / d_j``; an affine map ``x -> W x + b`` is scaled
once by the lcm D of its denominators, so that ``[D W | D b]`` is an integer
matrix. Then

    W X + b  =  ([DW | Db] [Nm ; d]) / (D d_j)     (column j),

one *integer* matrix product, and a max over rows of the same column is a max of
integers (all entries of a column share the positive scale ``D d_j``). Columns are
reduced by their gcd after each layer so the integers stay small.

>>> from symrel.exact import matrix, vector, rows
>>> X = ScaledBatch.from_matrix(matrix([["1/2", 3], ["1/3", "-1/4"]]))
>>> Y = X.affine(*integer_affine(matrix([[1, 1]]), vector(["1/6"])))
>>> rows(Y.to_matrix()) == rows(matrix([[1, "35/12"]]))
True
"""

from __future__ import annotations

from math import gcd, lcm
from operator import mul
from typing import Sequence

from .matrices import Matrix
from .numbers import GROUND_TYPES, Rational

if GROUND_TYPES == "flint":
    from flint import fmpz_mat as _FMPZ_MAT
else:
    _FMPZ_MAT = None

#: an integer product of at least this many multiplications goes through flint's ``fmpz_mat``
_FLINT_PRODUCT = 256


def _int(v) -> int:
    return int(v)


class IntegerMatrix:
    """An integer matrix ``[D W | D b]`` (rows of Python ints, ``shape``) to multiply batches by."""

    __slots__ = ("rows", "shape", "_flint")

    def __init__(self, rows: list[list[int]], shape: tuple[int, int]):
        self.rows, self.shape, self._flint = rows, shape, None

    def times(self, M: list[list], n: int) -> list[list]:
        """``self * M`` for ``M`` the rows of a ``shape[1] x n`` integer matrix; rows of integers."""
        m, k = self.shape
        if not k:
            return [[0] * n for _ in range(m)]
        if _FMPZ_MAT is not None and m * k * n >= _FLINT_PRODUCT:
            if self._flint is None:
                self._flint = _FMPZ_MAT(m, k, [v for r in self.rows for v in r])
            e = (self._flint * _FMPZ_MAT(k, n, [v for r in M for v in r])).entries()
            return [e[i * n:(i + 1) * n] for i in range(m)]
        cols = list(zip(*M))
        return [[sum(map(mul, r, c)) for c in cols] for r in self.rows]


def integer_affine(W: Matrix, b: Matrix) -> tuple[IntegerMatrix, int]:
    """``([D W | D b], D)`` over the integers with D the lcm of all denominators of W and b."""
    rows_ = [r + [c] for r, c in zip(W.to_list(), (v for (v,) in b.to_list()))]
    D = 1
    for r in rows_:
        for v in r:
            D = lcm(D, _int(v.denominator))
    data = [[_int(v.numerator) * (D // _int(v.denominator)) for v in r] for r in rows_]
    return IntegerMatrix(data, (len(data), W.shape[1] + 1)), D


class ScaledBatch:
    """An ``n x N`` rational batch as an integer matrix and column denominators."""

    __slots__ = ("num", "den")

    def __init__(self, num: list[list], den: list[int]):
        self.num = num  # n rows of N integers (Python ints, or flint's fmpz after a flint product)
        self.den = den  # N positive Python ints

    @classmethod
    def from_matrix(cls, X: Matrix) -> "ScaledBatch":
        cols = list(zip(*X.to_list())) if X.shape[0] else [()] * X.shape[1]
        dens = []
        for c in cols:
            d = 1
            for v in c:
                d = lcm(d, _int(v.denominator))
            dens.append(d)
        num = [[_int(v.numerator) * (dens[j] // _int(v.denominator)) for j, v in enumerate(r)] for r in X.to_list()]
        return cls(num, dens)

    def affine(self, Waug: IntegerMatrix, D: int) -> "ScaledBatch":
        """``W X + b`` for ``(Waug, D) = integer_affine(W, b)``."""
        P = Waug.times(self.num + [list(self.den)], len(self.den))
        return ScaledBatch(P, [D * d for d in self.den])

    def max_groups(self, sizes: Sequence[int]) -> "ScaledBatch":
        """Row-wise max over consecutive groups of rows of the given sizes."""
        out, start = [], 0
        for k in sizes:
            group = self.num[start : start + k]
            out.append(list(group[0]) if k == 1 else list(map(max, *group)))
            start += k
        return ScaledBatch(out, self.den)

    def relu(self) -> "ScaledBatch":
        return ScaledBatch([[v if v > 0 else 0 for v in r] for r in self.num], self.den)

    def reduced(self) -> "ScaledBatch":
        """Divide every column by the gcd of its entries and its denominator."""
        num = [list(r) for r in self.num]
        den = list(self.den)
        for j, d in enumerate(den):
            g = d
            for r in num:
                if g == 1:
                    break
                g = gcd(g, _int(r[j]))
            if g > 1:
                for r in num:
                    r[j] = r[j] // g
                den[j] = d // g
        return ScaledBatch(num, den)

    def to_matrix(self) -> Matrix:
        """Back to an exact rational matrix."""
        data = [[Rational(_int(v), d) for v, d in zip(r, self.den)] for r in self.num]
        return Matrix(data, (len(data), len(self.den)))
