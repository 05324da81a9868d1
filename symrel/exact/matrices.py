"""Exact rational matrices on sympy's ``DomainMatrix`` over ``QQ``.

``DomainMatrix`` stores elements of the ground domain directly and eliminates
with division, so it is orders of magnitude faster than ``sympy.Matrix``; with
python-flint installed it switches to flint's ``fmpq_mat`` by itself. Every
matrix here is dense. Vectors are ``n x 1`` matrices; a batch of N points in
R^n is an ``n x N`` matrix (points as columns), so a layer acts on a whole
batch with one matrix product.

>>> W = matrix([[1, "1/2"], [0, -1]])
>>> X = matrix([[2], [4]])
>>> format_matrix(W * X)
[[4], [-4]]
>>> format_matrix(affine_batch(W, vector([0, "1/3"]), X))
[[4], ['-11/3']]
"""

from __future__ import annotations

from itertools import chain
from typing import Iterable, Sequence

from sympy import QQ
from sympy.polys.matrices import DomainMatrix

from ..errors import DimensionError, InputError
from .numbers import NumberLimits, Rational, format_rational, rational

Matrix = DomainMatrix


def _dense(M: DomainMatrix) -> DomainMatrix:
    return M.to_dense()


#: the dense representation DomainMatrix uses for QQ (flint's, when it is the ground type)
_DENSE = type(DomainMatrix([[QQ(1)]], (1, 1), QQ).to_dense().rep)
_DIRECT = _DENSE.__name__ == "DFM"


def _fmpq_mat():
    from sympy.external.gmpy import GROUND_TYPES

    if GROUND_TYPES != "flint":
        return None
    import flint

    return flint.fmpq_mat


#: flint's ``fmpq_mat`` when python-flint is sympy's ground type (its ``fmpq`` are then the
#: elements of ``QQ``), else None; called directly where DomainMatrix's set-up would cost
#: more than a small product or inverse itself
FMPQ_MAT = _fmpq_mat()


def from_rationals(data: Sequence[Sequence[Rational]], shape: tuple[int, int] | None = None) -> DomainMatrix:
    """A matrix from rows of elements of ``QQ`` (no parsing); other exact rationals (the
    public sympy Rationals a result hands out, ints, Fractions) are converted first. Under
    flint the dense matrix is built straight from the rows (no intermediate list matrix)."""
    element = QQ.dtype
    data = [list(r) for r in data]
    if set(map(type, chain.from_iterable(data))) - {element}:
        data = [[v if type(v) is element else rational(v) for v in r] for r in data]
    if shape is None:
        shape = (len(data), len(data[0]) if data else 0)
    if _DIRECT and 0 not in shape:
        return DomainMatrix.from_rep(_DENSE(data, shape, QQ))
    return _dense(DomainMatrix(data, shape, QQ))


def matrix(
    data,
    *,
    path: str = "matrix",
    shape: tuple[int | None, int | None] | None = None,
    exact_floats: bool = False,
    limits: NumberLimits | None = None,
) -> DomainMatrix:
    """Parse a list of rows of numbers into an exact matrix.

    ``shape`` may fix the number of rows and/or columns (``None`` = any); a
    mismatch raises :class:`~symrel.errors.DimensionError` naming ``path``.
    A ``DomainMatrix`` is accepted as it is (after the shape check).

    >>> matrix([[1, 2], [3]], path="W")
    Traceback (most recent call last):
    ...
    symrel.errors.DimensionError: W[1]: expected a row of 2 numbers, got 1
    """
    if isinstance(data, DomainMatrix):
        M = _dense(data.convert_to(QQ))
        _check_shape(M.shape, shape, path)
        return M
    if getattr(data, "is_Matrix", False):  # a sympy matrix (a model's public view, say)
        data = data.tolist() if data.shape[0] else []
    if not isinstance(data, (list, tuple)):
        raise InputError(f"expected a matrix (a list of rows), got {type(data).__name__}", path=path)
    n_rows = len(data)
    want_cols = shape[1] if shape else None
    out = []
    for i, row in enumerate(data):
        rp = f"{path}[{i}]"
        if not isinstance(row, (list, tuple)):
            raise InputError(f"expected a row (a list of numbers), got {type(row).__name__}", path=rp)
        if want_cols is None:
            want_cols = len(row)
        if len(row) != want_cols:
            raise DimensionError(f"expected a row of {want_cols} numbers, got {len(row)}", path=rp)
        out.append([rational(v, path=f"{rp}[{j}]", exact_floats=exact_floats, limits=limits) for j, v in enumerate(row)])
    cols = want_cols if want_cols is not None else 0
    _check_shape((n_rows, cols), shape, path)
    return from_rationals(out, (n_rows, cols))


def _check_shape(got, want, path):
    if want is None:
        return
    r, c = want
    if r is not None and got[0] != r:
        raise DimensionError(f"expected {r} rows, got {got[0]}", path=path)
    if c is not None and got[1] != c:
        raise DimensionError(f"expected {c} columns, got {got[1]}", path=path)


def vector(
    data,
    *,
    path: str = "vector",
    length: int | None = None,
    exact_floats: bool = False,
    limits: NumberLimits | None = None,
) -> DomainMatrix:
    """Parse a list of numbers into an exact column vector (``n x 1``).

    >>> format_matrix(vector(["1/2", 3]))
    [['1/2'], [3]]
    """
    if isinstance(data, DomainMatrix):
        M = _dense(data.convert_to(QQ))
        if M.shape[1] != 1:
            raise DimensionError(f"expected a column vector, got shape {M.shape}", path=path)
        if length is not None and M.shape[0] != length:
            raise DimensionError(f"expected a vector of length {length}, got {M.shape[0]}", path=path)
        return M
    if getattr(data, "is_Matrix", False):  # a sympy column (or row) matrix
        if 1 not in data.shape and 0 not in data.shape:
            raise DimensionError(f"expected a column vector, got shape {data.shape}", path=path)
        data = list(data)
    if not isinstance(data, (list, tuple)):
        raise InputError(f"expected a vector (a list of numbers), got {type(data).__name__}", path=path)
    if length is not None and len(data) != length:
        raise DimensionError(f"expected a vector of length {length}, got {len(data)}", path=path)
    vals = [rational(v, path=f"{path}[{i}]", exact_floats=exact_floats, limits=limits) for i, v in enumerate(data)]
    return from_rationals([[v] for v in vals], (len(vals), 1))


def zeros(m: int, n: int) -> DomainMatrix:
    """The ``m x n`` zero matrix."""
    return _dense(DomainMatrix.zeros((m, n), QQ))


def identity(n: int) -> DomainMatrix:
    """The ``n x n`` identity matrix."""
    return _dense(DomainMatrix.eye(n, QQ))


def ones(m: int, n: int) -> DomainMatrix:
    """The ``m x n`` matrix of ones."""
    return from_rationals([[QQ(1)] * n for _ in range(m)], (m, n))


def hstack(*ms: DomainMatrix) -> DomainMatrix:
    """Side by side (same number of rows)."""
    if len(ms) == 1:
        return ms[0]
    return _dense(ms[0].hstack(*ms[1:]))


def vstack(*ms: DomainMatrix) -> DomainMatrix:
    """One above the other (same number of columns)."""
    if len(ms) == 1:
        return ms[0]
    return _dense(ms[0].vstack(*ms[1:]))


def rows(M: DomainMatrix) -> list[list[Rational]]:
    """The entries of ``M`` as a list of rows of ``QQ`` elements."""
    return M.to_list()


def entry(M: DomainMatrix, i: int, j: int) -> Rational:
    """The entry ``M[i, j]`` as an element of ``QQ``."""
    return M.rep.getitem(i, j) if hasattr(M.rep, "getitem") else M.to_list()[i][j]


def column(M: DomainMatrix, j: int) -> list[Rational]:
    """Column ``j`` of ``M`` as a list."""
    return [r[j] for r in M.to_list()]


def columns(M: DomainMatrix) -> list[list[Rational]]:
    """The columns of ``M`` as lists (the points of a batch)."""
    return [list(c) for c in zip(*M.to_list())] if M.shape[0] else [[] for _ in range(M.shape[1])]


def from_columns(cols: Sequence[Sequence[Rational]], n_rows: int | None = None) -> DomainMatrix:
    """The matrix whose columns are ``cols`` (the inverse of :func:`columns`)."""
    cols = [list(c) for c in cols]
    m = n_rows if n_rows is not None else (len(cols[0]) if cols else 0)
    return from_rationals([[c[i] for c in cols] for i in range(m)], (m, len(cols)))


def flat(M: DomainMatrix) -> list[Rational]:
    """The entries of a vector (or any matrix, row by row) as one list."""
    return [v for r in M.to_list() for v in r]


def format_matrix(M: DomainMatrix) -> list[list[int | str]]:
    """Canonical JSON form: rows of ints and ``"p/q"`` strings."""
    return [[format_rational(v) for v in r] for r in M.to_list()]


def format_vector(M: DomainMatrix) -> list[int | str]:
    """Canonical JSON form of a column vector: one list."""
    return [format_rational(v) for v in flat(M)]


def affine_batch(W: DomainMatrix, b: DomainMatrix, X: DomainMatrix) -> DomainMatrix:
    """``W X + b 1^T``: the affine map ``x -> W x + b`` applied to every column of ``X``."""
    n = X.shape[1]
    out = W * X
    if n and b.shape[0]:
        out = out + b * ones(1, n)
    return out


def scale(M: DomainMatrix, c: Rational) -> DomainMatrix:
    """``c * M``."""
    return M * c


def dot(u: Iterable[Rational], v: Iterable[Rational]) -> Rational:
    """The exact inner product of two sequences of rationals."""
    total = QQ(0)
    for a, b in zip(u, v, strict=True):
        total += a * b
    return total


def is_zero(M: DomainMatrix) -> bool:
    """Whether every entry is 0."""
    return M.is_zero_matrix


def nonzeros(M: DomainMatrix) -> int:
    """The number of nonzero entries."""
    return sum(1 for r in M.to_list() for v in r if v)


def sparse_rows(M) -> list[list[tuple[int, Rational]]]:
    """Each row of ``M`` (a matrix or a list of rows) as its nonzero ``(column, entry)`` pairs.

    >>> sparse_rows([[0, 2], [3, 0]])
    [[(1, 2)], [(0, 3)]]
    """
    return [[(j, a) for j, a in enumerate(r) if a] for r in (M if isinstance(M, list) else rows(M))]


def sparse_columns(M: DomainMatrix) -> list[list[tuple[int, Rational]]]:
    """Each column of ``M`` as its nonzero ``(row, entry)`` pairs."""
    return sparse_rows(M.transpose())
