"""Rational enclosures of exp, log and e from truncated series with remainder.

This is the referee of :mod:`symrel.softmax`: every enclosure here is a pair of
exact rationals ``(lo, hi)`` with ``lo <= value <= hi``, obtained from a
truncated series whose remainder is bounded in closed form, with outward
rounding to dyadic rationals to keep numbers small. No floating-point or
interval library takes part, so a bug in mpmath.iv or arb cannot reach a proof.

* ``exp(b)``, ``0 <= b <= 1/2``: ``S_N(b) <= exp(b) <= S_N(b) + b^(N+1)/(N+1)! / (1 - b/(N+2))``
  with ``S_N(b) = sum_{j<=N} b^j/j!``; larger arguments by squaring,
  ``exp(a) = exp(a/2^k)^(2^k)``; negative ones by ``exp(-a) = 1/exp(a)``.
* ``log(y)``, ``y = 2^k m`` with ``1 <= m < 2``: ``log y = k log 2 + log m`` and
  ``log m = 2 atanh(z)``, ``z = (m-1)/(m+1) in [0, 1/3)``, whose series has positive
  terms and the tail bound ``2 z^(2N+3) / ((2N+3)(1-z^2))``.

Cost: O(bits) series terms, O(log a) squarings, all on integers of O(bits) size.

>>> from symrel.exact import rational as r
>>> lo, hi = exp_bounds(r(1))
>>> lo < hi and lo > r("2.718281828459045") and hi < r("2.718281828459046")
True
>>> lo, hi = log_bounds(r(2))
>>> r("0.6931471805599453") < lo < hi < r("0.6931471805599454")
True
"""

from __future__ import annotations

from functools import lru_cache

from ..exact import Q, Rational, denominator, numerator, rational

#: Default working precision in bits (relative width of an enclosure is about 2^-bits).
BITS = 96

#: ``exp(-a)`` for ``a`` beyond this is bounded by ``exp(-EXP_CAP)`` (monotone, sound,
#: and keeps the numbers small: the bound is then below 10^-800 anyway).
EXP_CAP = 2000


def round_down(q: Rational, bits: int) -> Rational:
    """The largest dyadic rational with ``bits`` significant bits that is ``<= q`` (``q > 0``)."""
    return _round(q, bits, up=False)


def round_up(q: Rational, bits: int) -> Rational:
    """The smallest dyadic rational with ``bits`` significant bits that is ``>= q`` (``q > 0``)."""
    return _round(q, bits, up=True)


def _round(q: Rational, bits: int, up: bool) -> Rational:
    if q <= 0:
        raise ValueError("outward dyadic rounding is defined here for positive numbers only")
    num, den = numerator(q), denominator(q)
    shift = bits - (num.bit_length() - den.bit_length())
    if shift >= 0:
        top, bottom = num << shift, den
        m = -((-top) // bottom) if up else top // bottom
        return Q(m, 1 << shift)
    bottom = den << (-shift)
    m = -((-num) // bottom) if up else num // bottom
    return Q(m << (-shift), 1)


def _exp_small(b: Rational, bits: int) -> tuple[Rational, Rational]:
    """Enclosure of ``exp(b)`` for ``0 <= b <= 1/2`` (series with remainder)."""
    total, term, j = Q(1), Q(1), 0
    tolerance = Q(1, 1 << (bits + 4))
    while True:
        j += 1
        term = term * b / j
        total += term
        # remainder after the term of degree j: b^(j+1)/(j+1)! * 1/(1 - b/(j+2))
        tail = term * b / (j + 1) / (1 - b / (j + 2))
        if tail <= tolerance:
            return round_down(total, bits + 8), round_up(total + tail, bits + 8)


@lru_cache(maxsize=4096)  # pure; the same constants (e, log T) recur in every propagation
def exp_bounds(a, bits: int = BITS) -> tuple[Rational, Rational]:
    """Exact rationals ``(lo, hi)`` with ``lo <= exp(a) <= hi``, relative width about 2^-bits.

    >>> from symrel.exact import rational as r
    >>> lo, hi = exp_bounds(r(-30))
    >>> r("9.357622968840174e-14") < lo <= hi < r("9.357622968840176e-14")
    True
    """
    a = rational(a) if not Q.of_type(a) else a
    if a == 0:
        return Q(1), Q(1)
    if a < 0:
        if -a > EXP_CAP:
            # exp is increasing: exp(a) <= exp(-EXP_CAP); and exp(a) > 0
            return Q(0), exp_bounds(Q(-EXP_CAP), bits)[1]
        lo, hi = exp_bounds(-a, bits)
        return round_down(1 / hi, bits + 4), round_up(1 / lo, bits + 4)
    k = 0
    b = a
    while b > Q(1, 2):
        b /= 2
        k += 1
    work = bits + k + 8  # each squaring doubles the relative width
    lo, hi = _exp_small(b, work)
    for _ in range(k):
        lo, hi = round_down(lo * lo, work), round_up(hi * hi, work)
    return lo, hi


def _log_1_to_2(m: Rational, bits: int) -> tuple[Rational, Rational]:
    """Enclosure of ``log m`` for ``1 <= m <= 2`` via ``2 atanh((m-1)/(m+1))``."""
    z = (m - 1) / (m + 1)
    if z == 0:
        return Q(0), Q(0)
    z2 = z * z
    total, power, j = Q(0), z, 0
    tolerance = Q(1, 1 << (bits + 4))
    while True:
        total += power / (2 * j + 1)
        power *= z2
        j += 1
        tail = power / (2 * j + 1) / (1 - z2)  # sum of the remaining terms, bounded geometrically
        if 2 * tail <= tolerance:
            return round_down(2 * total, bits + 8), round_up(2 * (total + tail), bits + 8)


@lru_cache(maxsize=4096)
def log_bounds(y, bits: int = BITS) -> tuple[Rational, Rational]:
    """Exact rationals ``(lo, hi)`` with ``lo <= log(y) <= hi`` for rational ``y > 0``.

    >>> from symrel.exact import rational as r
    >>> lo, hi = log_bounds(r("1/3"))
    >>> r("-1.0986122886681098") < lo < hi < r("-1.0986122886681096")
    True
    """
    y = rational(y) if not Q.of_type(y) else y
    if y <= 0:
        raise ValueError(f"log of a non-positive number {y}")
    if y < 1:
        lo, hi = log_bounds(1 / y, bits)
        return -hi, -lo
    k = numerator(y).bit_length() - denominator(y).bit_length()
    m = y / Q(2) ** k if k >= 0 else y * Q(2) ** (-k)
    while m >= 2:
        m /= 2
        k += 1
    while m < 1:
        m *= 2
        k -= 1
    lo, hi = _log_1_to_2(m, bits + 8)
    if k:
        l2lo, l2hi = _log_1_to_2(Q(2), bits + 8 + k.bit_length())
        lo, hi = lo + k * l2lo, hi + k * l2hi
    return lo, hi


def e_bounds(bits: int = BITS) -> tuple[Rational, Rational]:
    """``(lo, hi)`` enclosing Euler's number ``e``."""
    return exp_bounds(Q(1), bits)
