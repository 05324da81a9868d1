"""The checker's own rational enclosures of ``exp``: a series with an explicit remainder.

This is the one place on the check path where ``exp`` is evaluated. It is
written apart from the provers' enclosures (``symrel.softmax.taylor``) on
purpose: a certificate is checked against numbers the checker derives itself,
so a bug in a prover's series cannot make the checker agree with it.

Definition. For a rational ``a`` the enclosure is a pair of rationals
``(lo, hi)`` with ``lo <= exp(a) <= hi``, obtained as follows.

* ``0 <= b <= 1/2``: with ``S_N(b) = sum_{j=0..N} b^j / j!`` (all terms
  positive) and ``t_N = b^N / N!``, the Lagrange remainder is bounded by the
  geometric series
  ``0 <= exp(b) - S_N(b) <= t_N * b / (N+1) * 1 / (1 - b/(N+2))``;
  ``N`` grows until the remainder is below ``2^-(bits+4)``.
* ``a > 1/2``: ``exp(a) = exp(a / 2^k)^(2^k)`` with the least ``k`` such that
  ``a / 2^k <= 1/2``, squaring the enclosure ``k`` times (both ends positive,
  so squaring is monotone).
* ``a < 0``: ``exp(a) = 1 / exp(-a)``, so ``(1/hi, 1/lo)`` encloses it.
* ``a < -EXP_CAP``: ``0 < exp(a) <= exp(-EXP_CAP)`` by monotonicity (the
  upper end then is below ``10^-800``; the numbers stay small).
* ``a > EXP_CAP`` is refused (:class:`~symrel.checking.CheckLimit`, the limit
  ``exp argument``): the enclosure would have ``a / ln 2`` bits, so callers bound an
  argument they read from a certificate before taking its exp.

Between the operations both ends are rounded outward to dyadic rationals with
``bits + 8 + k`` significant bits, so the width is about ``2^-bits`` relative
and the integers involved have ``O(bits + log a)`` bits. An argument whose numerator or
denominator is longer than ``bits + k + 72`` bits (one read from a certificate) is first
enclosed by its dyadic neighbours of ``bits + k + 24`` significant bits, whose series are
taken instead (``exp`` increases), so that its length does not grow the series' terms.

Complexity: ``O(bits)`` series terms and ``O(log a)`` squarings on integers
of ``O(bits + log a)`` bits.

>>> from symrel.exact import rational as r
>>> lo, hi = exp_bounds(r(1))
>>> r("2.718281828459045") < lo <= hi < r("2.718281828459046")
True
>>> lo, hi = exp_bounds(r(-30))
>>> r("9.357622968840174e-14") < lo <= hi < r("9.357622968840176e-14")
True
>>> exp_bounds(r(0)) == (1, 1)
True
>>> exp_upper(r("-1/2")) >= exp_lower(r("-1/2")) > 0
True
"""

from __future__ import annotations

from ..exact import Q, Rational, denominator, numerator
from . import beyond_limit

#: Default precision in bits: an enclosure's relative width is about ``2^-BITS``.
BITS = 96

#: Beyond ``-EXP_CAP`` the upper end is ``exp(-EXP_CAP)`` (sound: ``exp`` increases).
EXP_CAP = 2000

_HALF = Q(1, 2)


def _dyadic(q: Rational, bits: int, up: bool) -> Rational:
    """``q > 0`` rounded to a dyadic rational with ``bits`` significant bits, up or down."""
    num, den = numerator(q), denominator(q)
    shift = bits - (num.bit_length() - den.bit_length())
    if shift >= 0:
        top, bottom, scale_up, scale_down = num << shift, den, 1, 1 << shift
    else:
        top, bottom, scale_up, scale_down = num, den << (-shift), 1 << (-shift), 1
    m = -((-top) // bottom) if up else top // bottom
    return Q(m * scale_up, scale_down)


def _series(b: Rational, bits: int) -> tuple[Rational, Rational]:
    """Enclosure of ``exp(b)`` for ``0 <= b <= 1/2`` by ``S_N(b)`` and its remainder bound."""
    target = Q(1, 1 << (bits + 4))
    partial, term, n = Q(1), Q(1), 0
    while True:
        n += 1
        term = term * b / n  # t_n = b^n / n!
        partial += term
        remainder = term * b / (n + 1) / (1 - b / (n + 2))
        if remainder <= target:
            return _dyadic(partial, bits + 8, up=False), _dyadic(partial + remainder, bits + 8, up=True)


def exp_bounds(a: Rational, bits: int = BITS) -> tuple[Rational, Rational]:
    """Rationals ``(lo, hi)`` with ``lo <= exp(a) <= hi`` (module docstring: how).

    ``lo`` is positive except below ``-EXP_CAP``, where it is ``0``.

    >>> from symrel.exact import rational as r
    >>> lo, hi = exp_bounds(r("1/3"), bits=20)
    >>> lo <= r("1.3956124250860895") <= hi and hi - lo < r("1/262144")
    True
    """
    a = a if Q.of_type(a) else Q(a)
    if a > EXP_CAP:  # exp(a) has more than a / ln 2 bits: every caller bounds its argument first
        raise beyond_limit("exp argument", "a number above 2000", EXP_CAP)
    if a == 0:
        return Q(1), Q(1)
    if a < 0:
        if -a > EXP_CAP:
            return Q(0), exp_bounds(Q(-EXP_CAP), bits)[1]
        lo, hi = exp_bounds(-a, bits)
        return _dyadic(1 / hi, bits + 4, up=False), _dyadic(1 / lo, bits + 4, up=True)
    k, b = 0, a
    while b > _HALF:
        b /= 2
        k += 1
    work = bits + 8 + k  # every squaring doubles the relative width
    if max(numerator(b).bit_length(), denominator(b).bit_length()) > work + 64:
        # a long argument (read from a file) would make the series' terms ever longer: its
        # dyadic neighbours of work + 16 bits enclose it, and exp increases
        lo = _series(_dyadic(b, work + 16, up=False), work)[0]
        return _squared(lo, _series(_dyadic(b, work + 16, up=True), work)[1], k, work)
    lo, hi = _series(b, work)
    return _squared(lo, hi, k, work)


def _squared(lo, hi, k: int, work: int):
    """``(lo, hi)`` squared ``k`` times, rounded outward to ``work`` bits after each squaring."""
    for _ in range(k):
        lo, hi = _dyadic(lo * lo, work, up=False), _dyadic(hi * hi, work, up=True)
    return lo, hi


def exp_lower(a: Rational, bits: int = BITS) -> Rational:
    """A rational ``<= exp(a)``."""
    return exp_bounds(a, bits)[0]


def exp_upper(a: Rational, bits: int = BITS) -> Rational:
    """A rational ``>= exp(a)``."""
    return exp_bounds(a, bits)[1]
