"""Continuous piecewise-linear functions of one variable (``cpwl1d``)."""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING

from ..errors import DimensionError, InputError

from ..exact import Matrix, PublicView, Rational, from_rationals, rational, rows, to_public
from .base import Model, require_seq

if TYPE_CHECKING:  # sympy is the public number type, loaded only when a view is made
    import sympy


class CPWL1D(Model):
    """The CPWL function through ``(x_i, y_i)``, linear in between; outside
    ``[x_0, x_n]`` the first and last pieces extend (``extend="linear"``).

    ``x``, ``y`` (lists) and ``pieces()`` give sympy Rationals (:mod:`symrel.exact.public`);
    ``exact_x``, ``exact_y`` and ``exact_pieces()`` the same numbers in ``QQ``, for the library.

    >>> from fractions import Fraction
    >>> f = CPWL1D([0, "1/2", 1], [0, 1, 0])
    >>> [str(f([t])[0]) for t in ("-1", "1/4", "1", "2")]
    ['-2', '1/2', '0', '-2']
    >>> f.x, f.x[1] == Fraction(1, 2)
    ([0, 1/2, 1], True)
    >>> f.pieces()
    [(2, 0), (-2, 2)]
    """

    kind = "cpwl1d"
    x, y = PublicView(), PublicView()
    input_dim = 1
    output_dim = 1

    def __init__(self, x, y, extend: str = "linear", *, path: str = "", exact_floats: bool = False):
        p = f"{path}." if path else ""
        require_seq(x, "breakpoints", f"{p}x", min_len=2)
        require_seq(y, "values", f"{p}y")
        if len(y) != len(x):
            raise DimensionError(f"expected {len(x)} values (one per breakpoint), got {len(y)}", path=f"{p}y")
        if extend != "linear":
            raise InputError(f'expected extend "linear", got {extend!r}', path=f"{p}extend")
        self.exact_x = [rational(v, path=f"{p}x[{i}]", exact_floats=exact_floats) for i, v in enumerate(x)]
        self.exact_y = [rational(v, path=f"{p}y[{i}]", exact_floats=exact_floats) for i, v in enumerate(y)]
        for i in range(1, len(self.exact_x)):
            if not self.exact_x[i] > self.exact_x[i - 1]:
                raise InputError("expected strictly increasing breakpoints", path=f"{p}x[{i}]")
        self.extend = extend

    def pieces(self) -> list[tuple[sympy.Rational, sympy.Rational]]:
        """The affine piece ``(a, c)``, ``a*x + c``, of each segment, left to right (sympy Rationals)."""
        return to_public(self.exact_pieces())

    def exact_pieces(self) -> list[tuple[Rational, Rational]]:
        """:meth:`pieces` in ``QQ``."""
        out = []
        for i in range(len(self.exact_x) - 1):
            a = (self.exact_y[i + 1] - self.exact_y[i]) / (self.exact_x[i + 1] - self.exact_x[i])
            out.append((a, self.exact_y[i] - a * self.exact_x[i]))
        return out

    def segment(self, t: Rational) -> int:
        """Index of the segment holding ``t`` (the outer ones extend)."""
        return min(max(bisect_right(self.exact_x, t) - 1, 0), len(self.exact_x) - 2)

    def _evaluate_batch(self, X: Matrix) -> Matrix:
        pieces = self.exact_pieces()
        out = []
        for t in rows(X)[0]:
            a, c = pieces[self.segment(t)]
            out.append(a * t + c)
        return from_rationals([out], (1, len(out)))

    def num_parameters(self) -> int:
        return 2 * len(self.exact_x)

    def sizes(self) -> dict:
        return {"kind": self.kind, "input_dim": 1, "output_dim": 1, "breakpoints": len(self.exact_x),
                "pieces": len(self.exact_x) - 1, "parameters": self.num_parameters()}

    def to_sympy(self, symbols=None):
        """A sympy ``Piecewise`` in ``x1``."""
        import sympy

        from ..exact import to_sympy

        (t,) = symbols if symbols is not None else sympy.symbols("x1:2")
        pieces = self.exact_pieces()
        args = [
            (to_sympy(a) * t + to_sympy(c), t <= to_sympy(self.exact_x[i + 1]))
            for i, (a, c) in enumerate(pieces[:-1])
        ]
        a, c = pieces[-1]
        args.append((to_sympy(a) * t + to_sympy(c), True))
        return [sympy.Piecewise(*args)]

    def __eq__(self, other):
        return isinstance(other, CPWL1D) and self.exact_x == other.exact_x and self.exact_y == other.exact_y

    def __repr__(self):
        return f"CPWL1D(breakpoints={len(self.exact_x)})"
