"""Exact ranges of affine forms over boxes, and the ground types in use.

The range of ``a . x + c`` over the box ``prod [l_i, u_i]`` is attained at a
vertex: the maximum takes ``u_i`` where ``a_i > 0`` and ``l_i`` otherwise, so
both ends are exact sums of coefficient-times-endpoint (THEORY.md section 7).

>>> from symrel.exact import rational as r
>>> lo, hi = affine_range_on_box([r(1), r(-2)], r(1), [(r(-1), r(1)), (r(0), r(2))])
>>> (lo, hi) == (r(-4), r(2))
True
"""

from __future__ import annotations

from typing import Sequence

from .numbers import Q, Rational


def affine_range_on_box(
    a: Sequence[Rational], c: Rational, box: Sequence[tuple[Rational, Rational]]
) -> tuple[Rational, Rational]:
    """``(min, max)`` of ``a . x + c`` over the box, exactly. Cost O(d)."""
    lo = hi = c
    for ai, (l, u) in zip(a, box, strict=True):
        if ai > 0:
            lo += ai * l
            hi += ai * u
        elif ai < 0:
            lo += ai * u
            hi += ai * l
    return lo, hi


def ground_types() -> str:
    """Which integer backend sympy's ``QQ`` uses: ``flint``, ``gmpy`` or ``python``."""
    from sympy.external.gmpy import GROUND_TYPES

    return GROUND_TYPES


_ = Q  # re-exported through the package
