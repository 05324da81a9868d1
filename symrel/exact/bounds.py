"""Exact ranges of dense affine forms over boxes, and the ground types in use.

The range of ``a . x + c`` over the box ``prod [l_i, u_i]`` is attained at a
vertex (docs/theory.md#proofs-and-certificates); :class:`symrel.exact.forms.AffineForm` defines it.

>>> from symrel.exact import rational as r
>>> lo, hi = affine_range_on_box([r(1), r(-2)], r(1), [(r(-1), r(1)), (r(0), r(2))])
>>> (lo, hi) == (r(-4), r(2))
True
"""

from __future__ import annotations

from typing import Sequence

from .forms import AffineForm
from .numbers import Q, Rational


def affine_range_on_box(
    a: Sequence[Rational], c: Rational, box: Sequence[tuple[Rational, Rational]]
) -> tuple[Rational, Rational]:
    """``(min, max)`` of ``a . x + c`` over the box, exactly: the range of the affine
    form (:meth:`symrel.exact.forms.AffineForm.range_on_box`, its one definition) with
    dense coefficients. Cost O(d)."""
    if len(a) != len(box):
        raise ValueError(f"{len(a)} coefficients for a box of dimension {len(box)}")
    return AffineForm.from_dense(a, c).range_on_box(box)


def ground_types() -> str:
    """Which integer backend sympy's ``QQ`` (and symrel's :data:`~symrel.exact.numbers.Q`) uses:
    ``flint``, ``gmpy`` or ``python``."""
    from .numbers import GROUND_TYPES

    return GROUND_TYPES


_ = Q  # re-exported through the package
