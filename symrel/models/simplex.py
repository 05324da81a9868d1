"""Exact geometry of one simplex in R^d: barycentric coordinates and the affine interpolant.

A simplex with vertices ``v_0 .. v_d`` is non-degenerate iff the ``(d+1) x (d+1)``
matrix ``B = [v_0 .. v_d ; 1 .. 1]`` (vertices as columns, a row of ones below) is
invertible. Then the barycentric coordinates of x are ``lambda = B^(-1) [x ; 1]``
(``sum lambda_i = 1``, ``x = sum lambda_i v_i``); x lies in the closed simplex iff every
``lambda_i >= 0``, in its interior iff every ``lambda_i > 0``. The rows of ``B^(-1)`` are
affine functions of x; row i vanishes on the facet opposite ``v_i``.

The affine interpolant of values ``y_0 .. y_d`` at the vertices is
``f(x) = sum_i lambda_i(x) y_i = (y^T B^(-1)) [x ; 1]``.

>>> from symrel.exact import Q, rational_str
>>> s = Simplex([[0, 0], [2, 0], [0, 2]])
>>> [rational_str(v) for v in s.barycentric([Q(1, 2), Q(1, 2)])]
['1/2', '1/4', '1/4']
>>> a, c = s.interpolant([0, 2, 4])
>>> [rational_str(v) for v in a], rational_str(c)
(['1', '2'], '0')
>>> Simplex([[0, 0], [1, 1], [2, 2]]).inverse is None     # degenerate
True

Cost: one exact ``(d+1) x (d+1)`` inversion, O(d^3); each coordinate O(d^2).
"""

from __future__ import annotations

from typing import Sequence

from ..exact import Q, Rational, from_rationals, rational

ZERO, ONE = Q(0), Q(1)


class Simplex:
    """The simplex spanned by ``d + 1`` points of Q^d (lists of exact rationals).

    ``inverse`` holds the rows of ``B^(-1)`` (each ``[a_1 .. a_d, c]``: the affine
    barycentric coordinate ``a . x + c``), or None when the simplex is degenerate."""

    __slots__ = ("points", "dim", "inverse", "lower", "upper")

    def __init__(self, points: Sequence[Sequence[Rational]]):
        self.points = [[rational(v) for v in p] for p in points]
        self.dim = d = len(self.points) - 1
        B = [[p[i] for p in self.points] for i in range(d)] + [[ONE] * (d + 1)]
        M = from_rationals(B, (d + 1, d + 1))
        self.inverse = M.inv().to_list() if M.det() != 0 else None
        self.lower = [min(p[i] for p in self.points) for i in range(d)]
        self.upper = [max(p[i] for p in self.points) for i in range(d)]

    def barycentric(self, x: Sequence[Rational]) -> list[Rational]:
        """The barycentric coordinates of x (exact; they add up to 1)."""
        out = []
        for row in self.inverse:
            total = row[-1]
            for a, xi in zip(row, x):
                total += a * xi
            out.append(total)
        return out

    def contains(self, x: Sequence[Rational]) -> bool:
        """Whether x lies in the closed simplex."""
        return all(lo <= xi <= hi for xi, lo, hi in zip(x, self.lower, self.upper)) and min(self.barycentric(x)) >= 0

    def interpolant(self, values: Sequence[Rational]) -> tuple[list[Rational], Rational]:
        """``(a, c)`` with ``a . x + c`` the affine function taking ``values[i]`` at vertex i."""
        d = self.dim
        coeffs = [ZERO] * (d + 1)
        for y, row in zip(values, self.inverse):
            if y:
                for k in range(d + 1):
                    coeffs[k] += y * row[k]
        return coeffs[:d], coeffs[d]
