"""Affine maps ``x -> W x + b`` with exact rational coefficients."""

from __future__ import annotations

from ..errors import DimensionError
from ..exact import Matrix, Rational, affine_batch, flat, format_matrix, format_vector, matrix, nonzeros, rows, vector, zeros
from .base import Model, from_array, input_symbols


class AffineMap(Model):
    """The affine map ``x -> W x + b`` from R^n to R^m.

    ``W`` is ``m x n``, ``b`` has length m (zero when omitted). Entries are
    anything :func:`symrel.exact.rational` reads.

    >>> f = AffineMap([[1, "1/2"]], ["-1/3"])
    >>> [str(v) for v in f([2, 4])]
    ['11/3']
    >>> f.compose(AffineMap([[2, 0], [0, 2]])).W == AffineMap([[2, 1]]).W
    True
    """

    kind = "affine"

    def __init__(self, W, b=None, *, input_dim: int | None = None, path: str = "affine", exact_floats: bool = False):
        W, b = from_array(W, f"{path}.W"), from_array(b, f"{path}.b")
        self.W: Matrix = matrix(W, path=f"{path}.W", shape=(None, input_dim), exact_floats=exact_floats)
        m, n = self.W.shape
        if input_dim is None and m == 0:
            raise DimensionError("expected at least one row, or an explicit input_dim", path=f"{path}.W")
        self.b: Matrix = zeros(m, 1) if b is None else vector(b, path=f"{path}.b", length=m, exact_floats=exact_floats)
        self.input_dim, self.output_dim = n, m

    @classmethod
    def identity(cls, n: int) -> "AffineMap":
        """The identity on R^n."""
        from ..exact import identity

        return cls(identity(n))

    def _evaluate_batch(self, X: Matrix) -> Matrix:
        return affine_batch(self.W, self.b, X)

    def compose(self, inner: "AffineMap") -> "AffineMap":
        """``self o inner``: ``x -> W (W' x + b') + b``."""
        if inner.output_dim != self.input_dim:
            raise DimensionError(
                f"cannot compose: inner map has {inner.output_dim} outputs, outer takes {self.input_dim}"
            )
        return AffineMap(self.W * inner.W, self.W * inner.b + self.b, input_dim=inner.input_dim)

    def pieces(self) -> list[tuple[list[Rational], Rational]]:
        """Each output row as ``(a, c)``: the affine form ``a . x + c``."""
        return list(zip(rows(self.W), flat(self.b)))

    def num_parameters(self) -> int:
        return self.output_dim * (self.input_dim + 1)

    def nonzeros(self) -> int:
        """Nonzero coefficients (weights and biases)."""
        return nonzeros(self.W) + nonzeros(self.b)

    def to_json(self) -> dict:
        """``{"W": ..., "b": ...}`` in canonical form."""
        return {"W": format_matrix(self.W), "b": format_vector(self.b)}

    def to_sympy(self, symbols=None):
        """The outputs as sympy expressions in ``x1..xn``."""
        import sympy

        from ..exact import to_sympy

        xs = symbols if symbols is not None else input_symbols(self.input_dim)
        return [
            sympy.Add(*[to_sympy(a) * x for a, x in zip(r, xs)], to_sympy(c)) for r, c in self.pieces()
        ]

    def __eq__(self, other):
        return isinstance(other, AffineMap) and self.W == other.W and self.b == other.b

    def __hash__(self):
        return hash((self.input_dim, self.output_dim))

    def __repr__(self):
        return f"AffineMap({self.input_dim} -> {self.output_dim})"
