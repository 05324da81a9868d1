"""Affine forms over a box as int64 limb matrices: the forward pass of the exact bounds at scale.

Definition. A *form set* is ``(X, c)``: ``X`` a normalized limb matrix (:mod:`symrel.vnnlib.limbs`)
of shape ``(L, m, n)``, row ``i`` the coefficients of ``x_0 .. x_{n-1}``, and ``c`` a list of
``m`` Python integers, the constants; the forms are ``(X[i] . x + c[i]) / den`` for a common
denominator the caller keeps. A *limb box* is a box ``[plo / Q, phi / Q]``
(:class:`~symrel.vnnlib.symbolic.ScaledBox`) with ``plo`` and ``phi - plo`` as limb columns.
The functions compute what :mod:`symrel.vnnlib.symbolic`'s Python path computes row by row
(``_row_min``, ``_row_max``, ``_round_row`` for a power-of-two denominator), the same integers:
only integer operations whose int64 bounds :mod:`~symrel.vnnlib.limbs` checks, so nothing here
rounds and nothing is a float.

Why: at 784 inputs a layer's forms are 256 rows of 785 integers of some 80 bits; kept as
limbs across the layers, the products are BLAS products (:func:`~symrel.vnnlib.limbs.matmul`)
and a bound over the box is one product with a column, where the Python path converts about
400,000 integers per layer each way.

Cost: :func:`extremes` and :func:`round_forms` one limb product with a column each, linear in
the size of ``X``; :func:`pad` and :func:`negate` linear.

>>> import pytest; _ = pytest.importorskip("numpy")
>>> from symrel.vnnlib.symbolic import box_scale
>>> box = limb_box(box_scale([0, -1], [2, 1]))
>>> X = limbs.from_ints([[3, -5], [1, 1]])
>>> extremes(X, [1, 0], box, True), extremes(X, [1, 0], box, False)   # 3a - 5b + 1 and a + b
([-4, -1], [12, 3])
>>> R, c = round_forms(limbs.from_ints([[7, -7]]), [5], 1 << 42, box, False)   # over 2^42, to 2^40
>>> limbs.to_ints(R), c       # floor(7/4) = 1, floor(-7/4) = -2; the constant absorbs the rest at lo
([[1, -2]], [1])
"""

from __future__ import annotations

from dataclasses import dataclass

try:  # the "numeric" extra; symbolic uses this module only where numpy is installed
    import numpy as np
except ImportError:  # pragma: no cover - a core-only install (the doctests skip there)
    np = None

from ..checking.vnnlib import FORM_BITS  # the forms' fractional bits, docs/format.md
from . import limbs


@dataclass(frozen=True)
class LimbBox:
    """A :class:`~symrel.vnnlib.symbolic.ScaledBox` with its lower corner ``plo`` and its widths
    ``phi - plo`` as limb columns (``(L, n, 1)``), and ``Q``."""

    plo: object
    width: object
    Q: int
    n: int


def limb_box(box) -> LimbBox:
    """The :class:`LimbBox` of a scaled box."""
    return LimbBox(limbs.from_ints([[v] for v in box.plo]),
                   limbs.from_ints([[b - a] for a, b in zip(box.plo, box.phi)]), box.Q, len(box.plo))


def pad(X, L: int):
    """``X`` with ``L >= X.shape[0]`` limbs, normalized, the same integers: the old top limb
    ``t`` becomes ``t mod 2^B``, and a negative entry's sign is carried up as limbs ``2^B - 1``
    under a top limb ``-1`` (their sum is ``-2^(B have)``, which with ``t mod 2^B = t + 2^B``
    gives back ``t 2^(B (have - 1))``)."""
    have = X.shape[0]
    if have >= L:
        return X
    Y = np.zeros((L,) + X.shape[1:], dtype=np.int64)
    Y[:have - 1] = X[:have - 1]
    top = X[have - 1]
    neg = top < 0
    Y[have - 1] = top & limbs._MASK
    if L - 1 > have:
        Y[have:L - 1] = np.where(neg, limbs._MASK, 0)[None]
    Y[L - 1] = np.where(neg, -1, 0)
    return Y


def negate(X):
    """``-X``, normalized."""
    return limbs.normalize(-X, fresh=True)


def stack(parts, axis: int):
    """The limb matrices ``parts`` joined along ``axis`` (1: rows, 2: columns), brought to one
    number of limbs first."""
    L = max(p.shape[0] for p in parts)
    return np.concatenate([pad(p, L) for p in parts], axis=axis)


def extremes(X, c, box: LimbBox, lowest: bool) -> list:
    """``Q * min`` (``lowest``) or ``Q * max`` over the box of each form ``X[i] . x + c[i]``,
    as Python integers: ``X . plo + sum_{X_k < 0} X_k width_k`` for the minimum (each
    coefficient takes the corner its sign asks for), ``X . plo + X . width - sum_{X_k < 0}
    X_k width_k`` for the maximum."""
    neg = limbs.negative(X)
    at_lo = limbs.to_ints(limbs.matmul(X, box.plo))
    negw = limbs.to_ints(limbs.matmul(X * neg[None], box.width))
    if lowest:
        return [a[0] + b[0] + v * box.Q for a, b, v in zip(at_lo, negw, c)]
    full = limbs.to_ints(limbs.matmul(X, box.width))
    return [a[0] + w[0] - b[0] + v * box.Q for a, w, b, v in zip(at_lo, full, negw, c)]


def round_forms(X, c, den: int, box: LimbBox, upper: bool):
    """The forms ``(X, c) / den`` (``den`` a power of two) rounded outward to ``FORM_BITS``
    fractional bits, as :func:`symrel.vnnlib.symbolic._round_row` rounds each: the
    coefficients ``floor`` (``ceil`` when ``upper``) of ``2^40 a / den``, and the constant
    ``floor((c Q + sum_k (a_k - r_k 2^sh) plo_k) / (Q 2^sh))`` with ``sh = log2(den) - 40``
    (``ceil`` when ``upper``). For ``den <= 2^40`` the rounding is exact (a shift left)."""
    sh = den.bit_length() - 1 - FORM_BITS
    if sh <= 0:
        return limbs.floor_shift(X, sh), [v << -sh for v in c]
    R = limbs.floor_shift(X, sh) if not upper else negate(limbs.floor_shift(negate(X), sh))
    rem = limbs.add(X, negate(limbs.floor_shift(R, -sh)))
    S = limbs.to_ints(limbs.matmul(rem, box.plo))
    dq = box.Q << sh
    if upper:
        return R, [-((-(s[0] + v * box.Q)) // dq) for s, v in zip(S, c)]
    return R, [(s[0] + v * box.Q) // dq for s, v in zip(S, c)]


def zero_rows(X, keep):
    """``X`` with the rows not in the boolean mask ``keep`` set to 0."""
    return X * np.asarray(keep, dtype=np.int64)[None, :, None]
