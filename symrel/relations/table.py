"""Finite relations: a table ``r(x_i, y_j)`` on rational feature points.

A :class:`Relation` holds the points ``x_1 .. x_n`` (in R^dx), the points
``y_1 .. y_m`` (in R^dy; the same set as x when omitted, a relation *on one
set*) and the exact table ``R[i][j] = r(x_i, y_j)``. A repeated point must carry
the same row (column) of the table: otherwise no function r has this table.
:class:`RelationFeatures` pairs two models phi, psi meant to satisfy
``<phi(x_i), psi(y_j)> = r(x_i, y_j)`` (file kind ``relation-features``).

>>> rel = Relation([[0], [1]], [[1, 2], [2, 5]])
>>> rel.shape, rel.one_set, rel.is_symmetric()
((2, 2), True, True)
>>> Relation([[0], [0]], [[1, 2], [3, 5]])
Traceback (most recent call last):
...
symrel.errors.InputError: x[1]: point x[1] repeats x[0] but row 1 of r differs from row 0: no function has this table
"""

from __future__ import annotations

from ..errors import DimensionError, InputError
from ..exact import Matrix, PublicView, Rational, entry, from_rationals, rows, to_public
from ..models.base import as_point, require_seq


def _points(data, name: str) -> list[list[Rational]]:
    require_seq(data, "points", name, min_len=1)
    first = data[0]
    if not isinstance(first, (list, tuple)) or not first:
        raise InputError("expected a point (a non-empty list of numbers)", path=f"{name}[0]")
    return [as_point(p, len(first), path=f"{name}[{i}]") for i, p in enumerate(data)]


def _check_repeats(points, lines, name: str, what: str) -> None:
    """A repeated point must carry an identical row (``what``) of the table."""
    first: dict[tuple, int] = {}
    for i, p in enumerate(points):
        j = first.setdefault(tuple(p), i)
        if j != i and lines[i] != lines[j]:
            raise InputError(
                f"point {name}[{i}] repeats {name}[{j}] but {what} {i} of r differs from {what} {j}: "
                "no function has this table",
                path=f"{name}[{i}]",
            )


class Relation:
    """A relation table on rational points (docs/format.md, "Relations").

    ``x``: n points; ``r``: an ``n x m`` table (lists of numbers, a ``Matrix`` or
    a sympy matrix); ``y``: m points, or ``None`` for a relation on the set x
    (then ``m = n``). Entries are exact rationals; errors name the field path.

    ``x``, ``y`` (lists of points) and ``R`` (a ``sympy.ImmutableMatrix``) read as sympy
    Rationals (:mod:`symrel.exact.public`); ``exact_x``, ``exact_y`` and ``exact_R`` (a
    ``Matrix``) hold the same numbers in ``QQ``, for the library.

    >>> Relation([[0], ["1/2"]], [[1, 0], [0, "1/3"]]).R
    Matrix([
    [1,   0],
    [0, 1/3]])
    """

    kind = "relation"
    x, y, R = PublicView(), PublicView(), PublicView()

    def __init__(self, x, r, y=None):
        self.exact_x = xs = _points(x, "x")
        self.exact_y = ys = None if y is None else _points(y, "y")
        n, m = len(xs), len(ys if ys is not None else xs)
        if isinstance(r, Matrix) or getattr(r, "is_Matrix", False):
            from ..exact import matrix

            self.exact_R = matrix(r, path="r", shape=(n, m))
        else:
            require_seq(r, "rows", "r")
            if len(r) != n:
                raise DimensionError(f"expected {n} rows (one per point of x), got {len(r)}", path="r")
            table = [_row(row, m, i) for i, row in enumerate(r)]
            self.exact_R = from_rationals(table, (n, m))
        table = rows(self.exact_R)
        _check_repeats(xs, table, "x", "row")
        if ys is not None:
            _check_repeats(ys, [list(c) for c in zip(*table)], "y", "column")

    @property
    def one_set(self) -> bool:
        """Whether the relation is on one set (``y`` omitted or equal to ``x``)."""
        return self.exact_y is None or self.exact_y == self.exact_x

    @property
    def ys(self) -> list[list[Rational]]:
        """The second set of points (``x`` when the relation is on one set)."""
        return self.x if self.y is None else self.y

    def exact_points(self) -> tuple[list, list]:
        """``(x, ys)`` as elements of ``QQ``, for computations inside symrel."""
        xs, ys = self.exact_x, self.exact_y
        return xs, (xs if ys is None else ys)

    @property
    def shape(self) -> tuple[int, int]:
        return self.exact_R.shape

    def entry(self, i: int, j: int) -> Rational:
        return to_public(entry(self.exact_R, i, j))

    def is_symmetric(self) -> bool:
        """On one set and ``r(x_i, x_j) = r(x_j, x_i)`` for all i, j."""
        return self.one_set and self.exact_R == self.exact_R.transpose()

    def asymmetric_pair(self) -> tuple[int, int] | None:
        """The first ``(i, j)`` with ``r[i][j] != r[j][i]`` (None when symmetric)."""
        table = rows(self.exact_R)
        for i in range(len(table)):
            for j in range(i + 1, len(table[i])):
                if table[i][j] != table[j][i]:
                    return i, j
        return None

    def __eq__(self, other):
        return isinstance(other, Relation) and (self.exact_x, self.exact_y, self.exact_R) == (
            other.exact_x, other.exact_y, other.exact_R)

    def __repr__(self):
        return f"Relation({self.shape[0]}x{self.shape[1]}, one_set={self.one_set})"


def _row(row, m: int, i: int) -> list[Rational]:
    if not isinstance(row, (list, tuple)):
        raise InputError(f"expected a row (a list of numbers), got {type(row).__name__}", path=f"r[{i}]")
    if len(row) != m:
        raise DimensionError(f"expected a row of {m} numbers (one per point of y), got {len(row)}", path=f"r[{i}]")
    return as_point(row, m, path=f"r[{i}]")


class RelationFeatures:
    """Two feature models ``phi`` (on x) and ``psi`` (on y): the relation they
    realise is ``(x, y) -> <phi(x), psi(y)>``. ``psi is phi`` in the symmetric case."""

    kind = "relation-features"

    def __init__(self, phi, psi=None):
        self.phi = phi
        self.psi = phi if psi is None else psi
        if self.phi.output_dim != self.psi.output_dim:
            raise DimensionError(
                f"expected phi and psi with the same output dimension, got {self.phi.output_dim} and {self.psi.output_dim}",
                path="psi",
            )

    @property
    def dimension(self) -> int:
        return self.phi.output_dim

    def value(self, x, y) -> Rational:
        """``<phi(x), psi(y)>``, exactly."""
        from ..exact import dot

        return dot(self.phi(x), self.psi(y))

    def __eq__(self, other):
        return isinstance(other, RelationFeatures) and (self.phi, self.psi) == (other.phi, other.psi)

    def __repr__(self):
        return f"RelationFeatures(dimension={self.dimension})"
