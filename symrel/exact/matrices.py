"""Exact rational matrices: :class:`Matrix`, dense, over the ground type of :data:`~symrel.exact.numbers.Q`.

A :class:`Matrix` keeps its rows as lists of elements of Q and answers the part of sympy's
``Matrix`` interface symrel uses (``shape``, ``to_list``, ``+``, ``-``, ``*``, ``==``,
``transpose``, ``hstack``, ``vstack``, ``inv``, ``det``, ``rank``, ``rref``) without loading
sympy. With python-flint the products, inverses, determinants and echelon forms above a
small size are flint's ``fmpq_mat`` (as ``Matrix`` did); otherwise they are computed
here by Gauss-Jordan elimination over Q. Inverse, determinant, rank and reduced row
echelon form are unique, so every ground type gives the same entries. Vectors are
``n x 1`` matrices; a batch of N points in R^n is an ``n x N`` matrix (points as
columns), so a layer acts on a whole batch with one matrix product.

>>> W = matrix([[1, "1/2"], [0, -1]])
>>> X = matrix([[2], [4]])
>>> format_matrix(W * X)
[[4], [-4]]
>>> format_matrix(affine_batch(W, vector([0, "1/3"]), X))
[[4], ['-11/3']]
>>> format_matrix(W.inv()), str(W.det()), W.rank()
([[1, '1/2'], [0, -1]], '-1', 2)
"""

from __future__ import annotations

from itertools import chain
from operator import mul
from typing import Iterable, Sequence

from ..errors import DimensionError, InputError
from .numbers import GROUND_TYPES, ONE, ZERO, NumberLimits, Rational, format_rational

#: flint's ``fmpq_mat`` when python-flint is the ground type (its ``fmpq`` are then the
#: elements of Q), else None; called directly where a product or an elimination is big
#: enough for its conversions to pay
if GROUND_TYPES == "flint":
    from flint import fmpq_mat as FMPQ_MAT
else:
    FMPQ_MAT = None

#: a product of at least this many multiplications goes through ``fmpq_mat`` (under flint)
_FLINT_PRODUCT = 64


class SingularMatrixError(ZeroDivisionError):
    """The inverse of a singular (or non-square) matrix was asked for."""


def _flint(rows, shape):
    return FMPQ_MAT(shape[0], shape[1], [v for r in rows for v in r])


def _unflint(F, shape):
    e, n = F.entries(), shape[1]
    return [e[i * n:(i + 1) * n] for i in range(shape[0])]


def _product(A: list[list], B: list[list], n: int) -> list[list]:
    """The rows of ``A B`` for ``B`` with ``n`` columns: each row a combination of the rows of
    ``B``, one per nonzero entry of the row of ``A`` (models' matrices are mostly zeros)."""
    zero_row = [ZERO] * n
    out = []
    for r in A:
        acc = zero_row
        for a, b in zip(r, B):
            if a:
                acc = [x + a * y for x, y in zip(acc, b)] if a != ONE else [x + y for x, y in zip(acc, b)]
        out.append(acc if acc is not zero_row else list(zero_row))
    return out


def _rref(rows: list[list], ncols: int) -> tuple[list[list], tuple[int, ...]]:
    """The reduced row echelon form of ``rows`` (changed in place) and its pivot columns,
    by Gauss-Jordan elimination over Q. Cost O(m n min(m, n)) exact operations."""
    pivots, r = [], 0
    m = len(rows)
    for j in range(ncols):
        p = next((i for i in range(r, m) if rows[i][j]), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        pr = rows[r]
        inv = ONE / pr[j]
        if inv != ONE:
            pr[:] = [v * inv for v in pr]
        for i in range(m):
            c = rows[i][j] if i != r else ZERO
            if c:
                rows[i] = [a - c * b for a, b in zip(rows[i], pr)]
        pivots.append(j)
        r += 1
        if r == m:
            break
    return rows, tuple(pivots)


class Matrix:
    """A dense ``m x n`` matrix over Q, kept as its rows (lists of elements of Q) and, under
    python-flint, as flint's ``fmpq_mat`` too, each made from the other when first needed (a
    product's result is flint's alone until its rows are read, so chains of products stay in C).

    Build one with :func:`matrix` (parsing), :func:`from_rationals` (elements of Q) or the
    operations below; matrices are never changed in place. Costs: ``+``, ``-``, ``==``,
    ``transpose`` O(m n); a product O(m n k) exact operations (flint's, when it is big;
    else O(n) per nonzero entry of the left factor); ``inv``, ``det``, ``rank``, ``rref`` O(n^3).

    >>> A = matrix([[1, 2], [3, 4]])
    >>> A.shape, A * A == matrix([[7, 10], [15, 22]]), format_matrix(A.transpose() - A)
    ((2, 2), True, [[0, 1], [-1, 0]])
    >>> R, pivots = matrix([[1, 2], [2, 4]]).rref()
    >>> format_matrix(R), pivots
    ([[1, 2], [0, 0]], (0,))
    """

    __slots__ = ("_r", "_f", "shape")
    __hash__ = None

    def __init__(self, rows: list[list] | None, shape: tuple[int, int], flint=None):
        # rows of elements of Q (owned by the matrix), or None when ``flint`` (an fmpq_mat) holds them
        self._r, self._f, self.shape = rows, flint, shape

    @property
    def _rows(self) -> list[list]:
        if self._r is None:
            self._r = _unflint(self._f, self.shape)
        return self._r

    def _flint(self):
        if self._f is None:
            self._f = _flint(self._r, self.shape)
        return self._f

    def __getstate__(self):
        return self._rows, self.shape

    def __setstate__(self, state):
        self._r, self.shape = state
        self._f = None

    def __repr__(self):
        return f"Matrix({[[str(v) for v in r] for r in self._rows]}, {self.shape})"

    # the DomainMatrix interface symrel uses
    def to_list(self) -> list[list]:
        """The rows, as fresh lists of elements of Q."""
        return [list(r) for r in self._rows]

    def to_dense(self) -> "Matrix":
        return self

    def convert_to(self, domain=None) -> "Matrix":
        return self

    def getitem(self, i: int, j: int):
        return self._rows[i][j]

    @property
    def is_zero_matrix(self) -> bool:
        return not any(v for r in self._rows for v in r)

    def __eq__(self, other):
        if not isinstance(other, Matrix):
            return NotImplemented
        return self.shape == other.shape and self._rows == other._rows

    def _same_shape(self, other, op):
        if not isinstance(other, Matrix):
            return False
        if self.shape != other.shape:
            raise ValueError(f"{op} of a {self.shape} and a {other.shape} matrix")
        return True

    def __add__(self, other):
        if not self._same_shape(other, "sum"):
            return NotImplemented
        if self._f is not None or other._f is not None:  # one is flint's: add there (only under flint)
            return Matrix(None, self.shape, self._flint() + other._flint())
        return Matrix([[a + b for a, b in zip(r, s)] for r, s in zip(self._rows, other._rows)], self.shape)

    def __sub__(self, other):
        if not self._same_shape(other, "difference"):
            return NotImplemented
        if self._f is not None or other._f is not None:  # one is flint's: add there (only under flint)
            return Matrix(None, self.shape, self._flint() - other._flint())
        return Matrix([[a - b for a, b in zip(r, s)] for r, s in zip(self._rows, other._rows)], self.shape)

    def __neg__(self):
        return Matrix([[-a for a in r] for r in self._rows], self.shape)

    def __mul__(self, other):
        if isinstance(other, Matrix):
            (m, k), (k2, n) = self.shape, other.shape
            if k != k2:
                raise ValueError(f"product of a {self.shape} and a {other.shape} matrix")
            if not k:
                return zeros(m, n)
            if FMPQ_MAT is not None and (m * k * n >= _FLINT_PRODUCT or (self._r is None and other._r is None)):
                return Matrix(None, (m, n), self._flint() * other._flint())
            return Matrix(_product(self._rows, other._rows, n), (m, n))
        if isinstance(other, (int, Rational)) and not isinstance(other, bool):
            return Matrix([[a * other for a in r] for r in self._rows], self.shape)
        return NotImplemented

    def __rmul__(self, other):
        if isinstance(other, (int, Rational)) and not isinstance(other, bool):
            return Matrix([[other * a for a in r] for r in self._rows], self.shape)
        return NotImplemented

    def transpose(self) -> "Matrix":
        m, n = self.shape
        if self._r is None:
            return Matrix(None, (n, m), self._f.transpose())
        return Matrix([list(c) for c in zip(*self._r)] if m else [[] for _ in range(n)], (n, m))

    def hstack(self, *others: "Matrix") -> "Matrix":
        ms = (self, *others)
        if len({M.shape[0] for M in ms}) > 1:
            raise ValueError(f"hstack of matrices with {[M.shape[0] for M in ms]} rows")
        rows = [list(chain.from_iterable(r)) for r in zip(*(M._rows for M in ms))]
        return Matrix(rows, (self.shape[0], sum(M.shape[1] for M in ms)))

    def vstack(self, *others: "Matrix") -> "Matrix":
        ms = (self, *others)
        if len({M.shape[1] for M in ms}) > 1:
            raise ValueError(f"vstack of matrices with {[M.shape[1] for M in ms]} columns")
        return Matrix([list(r) for M in ms for r in M._rows], (sum(M.shape[0] for M in ms), self.shape[1]))

    def rref(self) -> tuple["Matrix", tuple[int, ...]]:
        """``(R, pivots)``: the reduced row echelon form and its pivot columns (unique)."""
        m, n = self.shape
        if FMPQ_MAT is not None and m and n:
            F, rank = self._flint().rref()
            rows = _unflint(F, self.shape)
            return Matrix(rows, self.shape), tuple(next(j for j, v in enumerate(rows[i]) if v) for i in range(rank))
        rows, pivots = _rref(self.to_list(), n)
        return Matrix(rows, self.shape), pivots

    def rank(self) -> int:
        if FMPQ_MAT is not None and 0 not in self.shape:
            return self._flint().rank()
        return len(_rref(self.to_list(), self.shape[1])[1])

    def inv(self) -> "Matrix":
        """The inverse; :class:`SingularMatrixError` when the matrix is singular or not square."""
        n = self.shape[0]
        if self.shape[1] != n:
            raise SingularMatrixError(f"a {self.shape} matrix has no inverse")
        if FMPQ_MAT is not None and n:
            try:
                return Matrix(_unflint(self._flint().inv(), self.shape), self.shape)
            except ZeroDivisionError:
                raise SingularMatrixError("the matrix is singular") from None
        eye = identity(n)._rows
        rows, pivots = _rref([r + e for r, e in zip(self._rows, eye)], n)
        if pivots != tuple(range(n)):
            raise SingularMatrixError("the matrix is singular")
        return Matrix([r[n:] for r in rows], self.shape)

    def det(self):
        """The determinant (an element of Q)."""
        n = self.shape[0]
        if self.shape[1] != n:
            raise ValueError(f"a {self.shape} matrix has no determinant")
        if FMPQ_MAT is not None and n:
            return self._flint().det()
        rows, d = self.to_list(), ONE
        for j in range(n):
            p = next((i for i in range(j, n) if rows[i][j]), None)
            if p is None:
                return ZERO
            if p != j:
                rows[j], rows[p], d = rows[p], rows[j], -d
            pj = rows[j]
            d *= pj[j]
            for i in range(j + 1, n):
                c = rows[i][j] / pj[j]
                if c:
                    rows[i] = [a - c * b for a, b in zip(rows[i], pj)]
        return d

    def to_Matrix(self):
        """The public view: a ``sympy.ImmutableMatrix`` of sympy Rationals (imports sympy)."""
        from .public import public_matrix

        return public_matrix(self)


def from_rationals(data: Sequence[Sequence[Rational]], shape: tuple[int, int] | None = None) -> Matrix:
    """A matrix from rows of elements of Q (no parsing); other exact rationals (the public
    sympy Rationals a result hands out, ints, Fractions) are converted first."""
    data = [list(r) for r in data]
    if set(map(type, chain.from_iterable(data))) - {Rational}:
        from .number_text import rational   # here: the checker's LP builds from elements of Q alone

        data = [[v if type(v) is Rational else rational(v) for v in r] for r in data]
    if shape is None:
        shape = (len(data), len(data[0]) if data else 0)
    if not shape[0]:
        data = []
    return Matrix(data, shape)


def _from_domain_matrix(M) -> Matrix:
    """A sympy ``DomainMatrix`` (over ZZ or QQ) as a :class:`Matrix`."""
    return from_rationals([[Rational(int(v.numerator), int(v.denominator)) for v in r] for r in M.to_list()],
                          M.shape)


def matrix(
    data,
    *,
    path: str = "matrix",
    shape: tuple[int | None, int | None] | None = None,
    exact_floats: bool = False,
    limits: NumberLimits | None = None,
) -> Matrix:
    """Parse a list of rows of numbers into an exact matrix.

    ``shape`` may fix the number of rows and/or columns (``None`` = any); a
    mismatch raises :class:`~symrel.errors.DimensionError` naming ``path``.
    A ``Matrix`` is accepted as it is (after the shape check).

    >>> matrix([[1, 2], [3]], path="W")
    Traceback (most recent call last):
    ...
    symrel.errors.DimensionError: W[1]: expected a row of 2 numbers, got 1
    """
    if isinstance(data, Matrix):
        _check_shape(data.shape, shape, path)
        return data
    if type(data).__name__ == "DomainMatrix":  # sympy's
        M = _from_domain_matrix(data)
        _check_shape(M.shape, shape, path)
        return M
    if getattr(data, "is_Matrix", False):  # a sympy matrix (a model's public view, say)
        data = data.tolist() if data.shape[0] else []
    if not isinstance(data, (list, tuple)):
        raise InputError(f"expected a matrix (a list of rows), got {type(data).__name__}", path=path)
    from .number_text import rational   # user data: the one reader of numbers

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
) -> Matrix:
    """Parse a list of numbers into an exact column vector (``n x 1``).

    >>> format_matrix(vector(["1/2", 3]))
    [['1/2'], [3]]
    """
    if isinstance(data, Matrix) or type(data).__name__ == "DomainMatrix":
        M = data if isinstance(data, Matrix) else _from_domain_matrix(data)
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
    from .number_text import rational   # user data: the one reader of numbers

    vals = [rational(v, path=f"{path}[{i}]", exact_floats=exact_floats, limits=limits) for i, v in enumerate(data)]
    return from_rationals([[v] for v in vals], (len(vals), 1))


def zeros(m: int, n: int) -> Matrix:
    """The ``m x n`` zero matrix."""
    return Matrix([[ZERO] * n for _ in range(m)], (m, n))


def identity(n: int) -> Matrix:
    """The ``n x n`` identity matrix."""
    return Matrix([[ONE if i == j else ZERO for j in range(n)] for i in range(n)], (n, n))


def ones(m: int, n: int) -> Matrix:
    """The ``m x n`` matrix of ones."""
    return Matrix([[ONE] * n for _ in range(m)], (m, n))


def hstack(*ms: Matrix) -> Matrix:
    """Side by side (same number of rows)."""
    return ms[0] if len(ms) == 1 else ms[0].hstack(*ms[1:])


def vstack(*ms: Matrix) -> Matrix:
    """One above the other (same number of columns)."""
    return ms[0] if len(ms) == 1 else ms[0].vstack(*ms[1:])


def rows(M: Matrix) -> list[list[Rational]]:
    """The entries of ``M`` as a list of rows of ``QQ`` elements."""
    return M.to_list()


def entry(M: Matrix, i: int, j: int) -> Rational:
    """The entry ``M[i, j]`` as an element of ``QQ``."""
    return M._rows[i][j]


def column(M: Matrix, j: int) -> list[Rational]:
    """Column ``j`` of ``M`` as a list."""
    return [r[j] for r in M._rows]


def columns(M: Matrix) -> list[list[Rational]]:
    """The columns of ``M`` as lists (the points of a batch)."""
    return [list(c) for c in zip(*M._rows)] if M.shape[0] else [[] for _ in range(M.shape[1])]


def from_columns(cols: Sequence[Sequence[Rational]], n_rows: int | None = None) -> Matrix:
    """The matrix whose columns are ``cols`` (the inverse of :func:`columns`)."""
    cols = [list(c) for c in cols]
    m = n_rows if n_rows is not None else (len(cols[0]) if cols else 0)
    return from_rationals([[c[i] for c in cols] for i in range(m)], (m, len(cols)))


def flat(M: Matrix) -> list[Rational]:
    """The entries of a vector (or any matrix, row by row) as one list."""
    return [v for r in M._rows for v in r]


def format_matrix(M: Matrix) -> list[list[int | str]]:
    """Canonical JSON form: rows of ints and ``"p/q"`` strings."""
    return [[format_rational(v) for v in r] for r in M._rows]


def format_vector(M: Matrix) -> list[int | str]:
    """Canonical JSON form of a column vector: one list."""
    return [format_rational(v) for v in flat(M)]


def affine_batch(W: Matrix, b: Matrix, X: Matrix) -> Matrix:
    """``W X + b 1^T``: the affine map ``x -> W x + b`` applied to every column of ``X``."""
    n = X.shape[1]
    out = W * X
    if n and b.shape[0]:
        out = out + b * ones(1, n)
    return out


def scale(M: Matrix, c: Rational) -> Matrix:
    """``c * M``."""
    return M * c


def dot(u: Iterable[Rational], v: Iterable[Rational]) -> Rational:
    """The exact inner product of two sequences of rationals."""
    total = ZERO
    for a, b in zip(u, v, strict=True):
        total += a * b
    return total


def is_zero(M: Matrix) -> bool:
    """Whether every entry is 0."""
    return M.is_zero_matrix


def nonzeros(M: Matrix) -> int:
    """The number of nonzero entries."""
    return sum(1 for r in M.to_list() for v in r if v)


def sparse_rows(M) -> list[list[tuple[int, Rational]]]:
    """Each row of ``M`` (a matrix or a list of rows) as its nonzero ``(column, entry)`` pairs.

    >>> sparse_rows([[0, 2], [3, 0]])
    [[(1, 2)], [(0, 3)]]
    """
    return [[(j, a) for j, a in enumerate(r) if a] for r in (M if isinstance(M, list) else rows(M))]


def sparse_columns(M: Matrix) -> list[list[tuple[int, Rational]]]:
    """Each column of ``M`` as its nonzero ``(row, entry)`` pairs."""
    return sparse_rows(M.transpose())
