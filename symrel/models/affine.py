"""Affine maps ``x -> W x + b`` with exact rational coefficients."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import DimensionError

from ..exact import Matrix, PublicView, Rational, affine_batch, flat, format_matrix, format_vector, matrix, nonzeros, rows, to_public, vector, zeros
from .base import Model, from_array, input_symbols

if TYPE_CHECKING:  # sympy is the public number type, loaded only when a view is made
    import sympy


class AffineMap(Model):
    """The affine map ``x -> W x + b`` from R^n to R^m.

    ``W`` is ``m x n``, ``b`` has length m (zero when omitted). Entries are
    anything :func:`symrel.exact.rational` reads.

    ``W`` and ``b`` (an ``m x 1`` column) read as ``sympy.ImmutableMatrix`` of Rationals
    and ``pieces()`` gives Rationals (the public number type of
    :mod:`symrel.exact.public`); ``exact_W``, ``exact_b`` (``Matrix`` over ``QQ``)
    and ``exact_pieces()`` give the same numbers to the rest of the library.

    >>> from fractions import Fraction
    >>> f = AffineMap([[1, "1/2"]], ["-1/3"])
    >>> [str(v) for v in f([2, 4])]
    ['11/3']
    >>> f.W, f.b[0] == Fraction(-1, 3)
    (Matrix([[1, 1/2]]), True)
    >>> f.compose(AffineMap([[2, 0], [0, 2]])).W == AffineMap([[2, 1]]).W
    True
    """

    kind = "affine"
    W = PublicView()
    b = PublicView()

    def __init__(self, W, b=None, *, input_dim: int | None = None, path: str = "affine", exact_floats: bool = False):
        W, b = from_array(W, f"{path}.W"), from_array(b, f"{path}.b")
        self.exact_W: Matrix = matrix(W, path=f"{path}.W", shape=(None, input_dim), exact_floats=exact_floats)
        m, n = self.exact_W.shape
        if input_dim is None and m == 0:
            raise DimensionError("expected at least one row, or an explicit input_dim", path=f"{path}.W")
        self.exact_b: Matrix = zeros(m, 1) if b is None else vector(b, path=f"{path}.b", length=m, exact_floats=exact_floats)
        self.input_dim, self.output_dim = n, m

    @classmethod
    def identity(cls, n: int) -> "AffineMap":
        """The identity on R^n."""
        from ..exact import identity

        return cls(identity(n))

    def _evaluate_batch(self, X: Matrix) -> Matrix:
        return affine_batch(self.exact_W, self.exact_b, X)

    def compose(self, inner: "AffineMap") -> "AffineMap":
        """``self o inner``: ``x -> W (W' x + b') + b``."""
        if inner.output_dim != self.input_dim:
            raise DimensionError(
                f"cannot compose: inner map has {inner.output_dim} outputs, outer takes {self.input_dim}"
            )
        W = self.exact_W
        return AffineMap(W * inner.exact_W, W * inner.exact_b + self.exact_b, input_dim=inner.input_dim)

    def pieces(self) -> list[tuple[list[sympy.Rational], sympy.Rational]]:
        """Each output row as ``(a, c)``: the affine form ``a . x + c``, in sympy Rationals."""
        return to_public(self.exact_pieces())

    def exact_pieces(self) -> list[tuple[list[Rational], Rational]]:
        """:meth:`pieces` as elements of ``QQ``."""
        return list(zip(rows(self.exact_W), flat(self.exact_b)))

    def num_parameters(self) -> int:
        return self.output_dim * (self.input_dim + 1)

    def nonzeros(self) -> int:
        """Nonzero coefficients (weights and biases)."""
        return nonzeros(self.exact_W) + nonzeros(self.exact_b)

    def to_json(self) -> dict:
        """``{"W": ..., "b": ...}`` in canonical form."""
        return {"W": format_matrix(self.exact_W), "b": format_vector(self.exact_b)}

    def to_sympy(self, symbols=None):
        """The outputs as sympy expressions in ``x1..xn``."""
        import sympy

        from ..exact import to_sympy

        xs = symbols if symbols is not None else input_symbols(self.input_dim)
        return [
            sympy.Add(*[to_sympy(a) * x for a, x in zip(r, xs)], to_sympy(c)) for r, c in self.exact_pieces()
        ]

    def __eq__(self, other):
        return isinstance(other, AffineMap) and self.exact_W == other.exact_W and self.exact_b == other.exact_b

    def __hash__(self):
        return hash((self.input_dim, self.output_dim))

    def __repr__(self):
        return f"AffineMap({self.input_dim} -> {self.output_dim})"
