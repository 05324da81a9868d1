"""What every symrel model shares: exact evaluation on one point or a batch.

A model maps R^input_dim to R^output_dim. ``evaluate(x)`` takes a sequence of
numbers (anything :func:`symrel.exact.rational` reads) and returns a list of
exact rationals; ``evaluate_batch(points)`` takes a list of points or an
``input_dim x N`` matrix and returns the ``output_dim x N`` matrix of outputs.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import DimensionError, InputError
from ..exact import Matrix, Rational, columns, flat, from_columns, rational, vector


def as_point(x, dim: int, *, path: str = "input", exact_floats: bool = False) -> list[Rational]:
    """``x`` as a list of ``dim`` exact rationals (one input point)."""
    if isinstance(x, Matrix):
        x = flat(x)
    if not isinstance(x, (list, tuple)):
        raise InputError(f"expected a point (a list of {dim} numbers), got {type(x).__name__}", path=path)
    if len(x) != dim:
        raise DimensionError(f"expected a point with {dim} coordinates, got {len(x)}", path=path)
    return [rational(v, path=f"{path}[{i}]", exact_floats=exact_floats) for i, v in enumerate(x)]


def as_batch(points, dim: int, *, path: str = "inputs", exact_floats: bool = False) -> Matrix:
    """A batch of points as a ``dim x N`` matrix (points as columns)."""
    if isinstance(points, Matrix):
        if points.shape[0] != dim:
            raise DimensionError(f"expected points with {dim} coordinates, got {points.shape[0]}", path=path)
        return points
    if not isinstance(points, (list, tuple)):
        raise InputError(f"expected a list of points, got {type(points).__name__}", path=path)
    cols = [as_point(p, dim, path=f"{path}[{i}]", exact_floats=exact_floats) for i, p in enumerate(points)]
    return from_columns(cols, dim)


class Model:
    """Base class: subclasses define ``input_dim``, ``output_dim`` and
    ``_evaluate_batch(X)`` on a ``input_dim x N`` matrix."""

    kind: str = "model"
    input_dim: int
    output_dim: int

    def evaluate(self, x) -> list[Rational]:
        """The exact output at one point."""
        X = vector(as_point(x, self.input_dim))
        return flat(self._evaluate_batch(X))

    __call__ = evaluate

    def evaluate_batch(self, points, *, path: str = "inputs") -> Matrix:
        """The exact outputs at a batch of points, as an ``output_dim x N`` matrix.
        ``path`` names the batch in error messages."""
        X = as_batch(points, self.input_dim, path=path)
        if X.shape[1] == 0:
            from ..exact import zeros

            return zeros(self.output_dim, 0)
        return self._evaluate_batch(X)

    def evaluate_points(self, points, *, path: str = "inputs") -> list[list[Rational]]:
        """The exact outputs at a batch of points, one list per point."""
        return columns(self.evaluate_batch(points, path=path))

    def _evaluate_batch(self, X: Matrix) -> Matrix:  # pragma: no cover - abstract
        raise NotImplementedError

    def num_parameters(self) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


def input_symbols(dim: int):
    """The sympy symbols ``x1 .. xd`` used by the symbolic views."""
    import sympy

    return sympy.symbols(f"x1:{dim + 1}") if dim else ()


def check_dim(value, name: str, path: str, minimum: int = 1) -> int:
    """``value`` as an int >= minimum, or an InputError naming ``path``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"expected {name} as an integer, got {type(value).__name__}", path=path)
    if value < minimum:
        raise InputError(f"expected {name} >= {minimum}, got {value}", path=path)
    return value


def require_seq(value, what: str, path: str, min_len: int = 0) -> Sequence:
    """``value`` as a list with at least ``min_len`` items, or an InputError."""
    if not isinstance(value, (list, tuple)):
        raise InputError(f"expected {what} (a list), got {type(value).__name__}", path=path)
    if len(value) < min_len:
        raise InputError(f"expected at least {min_len} {what}, got {len(value)}", path=path)
    return value
