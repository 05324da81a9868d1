"""The simplex of :mod:`symrel.exact.simplex` in floating point, with tolerances: it only proposes a
basis, which the exact simplex then verifies (:func:`symrel.exact.exact_simplex.exact_simplex`).
"""

from __future__ import annotations

from .simplex import RevisedSimplex


class FloatSimplex(RevisedSimplex):
    """The same simplex in floating point, with tolerances: it only proposes a basis."""

    zero, one, eps = 0.0, 1.0, 1e-9

    def __init__(self, A, b, C, d, sigma, floats=None):
        """``floats``: the data ``(A, b, C, d)`` already rounded to floats, when the caller
        keeps such copies (rounding every entry of every LP was a tenth of a region count)."""
        if floats is None:
            from .numbers import to_float

            fl = lambda rows_: [[to_float(v) for v in r] for r in rows_]  # noqa: E731
            floats = fl(A), [to_float(v) for v in b], fl(C), [to_float(v) for v in d]
        super().__init__(*floats, sigma)
