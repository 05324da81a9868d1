"""Bounds on the size of exact arithmetic, computed before the arithmetic is done.

Exact arithmetic on the numbers of a file can build numbers far longer than any the file
spells out: the common denominator of ``n`` fractions can have the bits of all their
denominators together, and a chain of ``k`` matrix products adds the bits of every matrix
in it. A 0.9 MB network whose weights have 100-digit denominators so asked for common
denominators of some 800,000 digits (issue 39). Before such arithmetic, symrel bounds the
bits of what it will build from the numbers as written (their bit lengths, how many there
are) and refuses, naming the limit, beyond one of two limits:

* ``denominator bits`` (:attr:`ArithmeticLimits.denominator_bits`, ``--max-denominator-bits``,
  default 100,000 bits, about 30,000 digits): the least common multiple of denominators
  read from a file, such as the common denominator of one layer's weights;
* ``product bits`` (:attr:`ArithmeticLimits.product_bits`, ``--max-product-bits``, default
  200,000 bits, about 60,000 digits): any number a chain of products and sums computes
  from them (a network evaluated layer by layer, a backward substitution), bounded by
  adding up the bits each stage of the chain can add.

The refusal is a :class:`~symrel.errors.LimitError` (exit 2) whose message starts with
``limit 'NAME'``; ``symrel verify`` answers ``unknown`` (exit 3) naming it instead. Ordinary
inputs stay far inside: an ACAS Xu network's layers have common denominators of about 40
bits and its numbers, through all seven layers, at most about 600.

The bound of a common denominator costs one pass over the denominators: ``lcm(q_1, ..,
q_n)`` has at most ``v + 1 + sum_i bits(o_i)`` bits, where ``q_i = 2^(v_i) o_i`` with ``o_i`` odd,
``v`` the largest ``v_i`` and the sum over the distinct ``o_i > 1`` (float weights, whose
denominators are powers of two, cost nothing). Only when that bound passes the limit is the
least common multiple itself computed, one denominator at a time, stopping as soon as it
passes the limit: at most ``n`` operations on numbers of the limit's size, never more.

>>> from symrel.exact import Q
>>> common_denominator_bits([Q(1, 3), Q(1, 8), Q(5, 6)])   # lcm 24 (5 bits): at most 3 + 1 + 2
6
>>> with arithmetic_limits(denominator_bits=500):
...     try:
...         common_denominator_bits([Q(1, 10**100 + k) for k in (1, 3, 7, 9, 13, 19)], where="layers[0].W")
...     except LimitError as err:
...         print(err)
layers[0].W: limit 'denominator bits': a common denominator would have more than the 500 bits allowed (--max-denominator-bits)
"""

from __future__ import annotations

from math import gcd
from typing import NamedTuple

from ..errors import LimitError


class ArithmeticLimits(NamedTuple):
    """The two limits on the numbers exact arithmetic may build (module docstring), in bits."""

    denominator_bits: int = 100_000
    product_bits: int = 200_000


#: the limits when none are set
DEFAULT_ARITHMETIC_LIMITS = ArithmeticLimits()
_limits = [DEFAULT_ARITHMETIC_LIMITS]

#: the command-line option that sets each limit, named in the refusals
OPTION = {"denominator bits": "--max-denominator-bits", "product bits": "--max-product-bits"}


def current_arithmetic_limits() -> ArithmeticLimits:
    """The arithmetic limits in force (see :class:`arithmetic_limits`)."""
    return _limits[-1]


class arithmetic_limits:
    """Context manager setting the arithmetic limits (None keeps the limit in force).

    >>> with arithmetic_limits(product_bits=64):
    ...     current_arithmetic_limits()
    ArithmeticLimits(denominator_bits=100000, product_bits=64)
    """

    def __init__(self, denominator_bits: int | None = None, product_bits: int | None = None):
        cur = _limits[-1]
        for name, value in (("--max-denominator-bits", denominator_bits), ("--max-product-bits", product_bits)):
            if value is not None and (type(value) is not int or value < 1):
                raise LimitError(f"expected a positive number of bits, got {value!r}", path=name)
        self.limits = ArithmeticLimits(cur.denominator_bits if denominator_bits is None else denominator_bits,
                                       cur.product_bits if product_bits is None else product_bits)

    def __enter__(self):
        _limits.append(self.limits)
        return self.limits

    def __exit__(self, *exc):
        _limits.pop()
        return False


def beyond(name: str, what: str, most: int, where: str | None = None, got: int | None = None) -> LimitError:
    """The refusal at the limit ``name`` (``"denominator bits"`` or ``"product bits"``): ``what``
    would have ``got`` bits (or, unknown, more than ``most``).

    >>> print(beyond("product bits", "the outputs", 64, "network", 90))
    network: limit 'product bits': the outputs would have up to 90 bits, more than the 64 allowed (--max-product-bits)
    """
    size = f"up to {got} bits, more than the {most}" if got is not None else f"more than the {most} bits"
    err = LimitError(f"limit {name!r}: {what} would have {size} allowed ({OPTION.get(name, 'a limit')})", path=where)
    err.limit = name
    return err


def _odd_parts(dens) -> tuple[int, int]:
    """``(v, s)``: the largest power of two dividing one of ``dens`` (its exponent) and the
    bits of the distinct odd parts > 1 added up."""
    v, total, seen = 0, 0, set()
    for q in dens:
        if q & (q - 1) == 0:  # a power of two (1 included)
            v = max(v, q.bit_length() - 1)
            continue
        low = (q & -q).bit_length() - 1
        if low:
            v = max(v, low)
            q >>= low
        if q not in seen:
            seen.add(q)
            total += q.bit_length()
    return v, total


def lcm_bits(dens, *, limit: int | None = None, where: str | None = None, what: str = "a common denominator") -> int:
    """An upper bound on the bit length of ``lcm(dens)`` (positive Python ints), the exact one
    when the cheap bound (module docstring) passes ``limit`` (default: the ``denominator
    bits`` limit in force); beyond ``limit`` a :class:`~symrel.errors.LimitError` naming it.
    Cost: one pass over ``dens``, and then, only past the cheap bound, at most ``len(dens)``
    lcm steps on numbers of at most ``limit`` bits.

    >>> lcm_bits([4, 6, 10]), lcm_bits([2 ** 40, 2 ** 12, 1])   # 60 (6 bits): at most 2 + 1 + 2 + 3; 2^40
    (8, 41)
    """
    if limit is None:
        limit = _limits[-1].denominator_bits
    dens = list(dens)
    v, total = _odd_parts(dens)
    bound = v + 1 + total
    if bound <= limit:
        return bound
    den = 1
    for q in dens:
        den = den * q // gcd(den, q)
        if den.bit_length() > limit:
            raise beyond("denominator bits", what, limit, where)
    return den.bit_length()


def common_denominator_bits(values, *, where: str | None = None, what: str = "a common denominator") -> int:
    """:func:`lcm_bits` of the denominators of the rationals ``values`` (elements of Q, Fractions)."""
    return lcm_bits((int(v.denominator) for v in values), where=where, what=what)


def number_bits(values, *, where: str | None = None, what: str = "a common denominator") -> int:
    """A bound on the bits of the rationals ``values`` over their common denominator ``D``: those
    of ``D`` (:func:`common_denominator_bits`, twice: the integers ``v D`` have at most the
    largest numerator's bits plus ``D``'s) and of the largest numerator.

    >>> from symrel.exact import Q
    >>> number_bits([Q(3, 4), Q(-5, 2)])          # D = 4 (3 bits at most), numerators of 3 bits
    9
    """
    values = list(values)
    return 2 * common_denominator_bits(values, where=where, what=what) + numerator_bits(values)


def numerator_bits(values) -> int:
    """The largest bit length of the numerators of the rationals ``values`` (0 for none)."""
    return max((int(v.numerator).bit_length() for v in values), default=0)


def check_product_bits(bits: int, *, where: str | None = None, what: str = "a number computed") -> int:
    """``bits`` when within the ``product bits`` limit in force, else its :class:`LimitError`."""
    most = _limits[-1].product_bits
    if bits > most:
        raise beyond("product bits", what, most, where, bits)
    return bits


def fan_in_bits(n: int) -> int:
    """The bits a sum of ``n`` terms can add to the largest of them: ``bits(n)``."""
    return max(int(n), 1).bit_length()


#: numbers of at most this many bits cost one operation in the checker's operation counts; longer
#: ones :func:`weight` each
WEIGHT_BITS = 8192


def weight(bits: int) -> int:
    """What one arithmetic operation on numbers of ``bits`` bits counts in an operation limit:
    1 up to :data:`WEIGHT_BITS` bits (the numbers of ordinary inputs), then
    ``(1 + bits // WEIGHT_BITS) ** 2`` (a product of b-bit numbers costs about b^2 word operations
    at these sizes), so that a count of operations, bounded before the work, also bounds its time
    when the numbers are long.

    >>> weight(5_000), weight(200_000)
    (1, 625)
    """
    return (1 + max(bits, 0) // WEIGHT_BITS) ** 2

