"""Nonnegative rationals as sums of rational squares (Lagrange's four-square theorem).

Every integer ``N >= 0`` is a sum of four integer squares, so every rational
``d = p/q >= 0`` is one of four rational squares: ``d = (p q) / q^2``. Fewer
squares suffice in special cases, decided exactly: one when N is a square; two
when every prime ``= 3 mod 4`` divides N to an even power; three unless
``N = 4^a (8b + 7)`` (Gauss-Legendre). By the Davenport-Cassels lemma an integer
that is a sum of two (three) rational squares is one of two (three) integer
squares, so the count below is the least possible for d when it is computed.
The two-square test needs the factorisation of N, so it is only tried up to
:data:`TWO_SQUARES_DIGITS` digits; the three-square search (a prime search, no
factoring) up to :data:`MINIMAL_DIGITS` digits; above that the answer has one
or four squares, so the count is minimal only for small numbers.

Products use Euler's four-square identity (the norm of a product of quaternions
is the product of the norms), so the square roots of large pivots
``d_k = Delta_k / (c Delta_(k-1))`` are built from one representation per minor.

>>> [str(a) for a in rational_squares(rational("7/3"))]
['4/3', '2/3', '1/3']
>>> sum(a * a for a in rational_squares(rational("7/3"))) == rational("7/3")
True
>>> integer_squares(25), integer_squares(13)
((5,), (3, 2))
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..errors import InputError
from ..exact import Q, Rational, rational

#: Largest number of digits for which two squares are sought (needs factoring).
TWO_SQUARES_DIGITS = 18
#: Above this many digits only the one- and four-square forms are sought.
MINIMAL_DIGITS = 60


@lru_cache(maxsize=4096)
def integer_squares(N: int) -> tuple[int, ...]:
    """Nonnegative integers whose squares sum to ``N >= 0``, fewest found first
    (no zeros; ``()`` for 0). Cost: a square root, plus a sympy search."""
    from sympy.solvers.diophantine.diophantine import sum_of_four_squares, sum_of_three_squares

    N = int(N)
    if N < 0:
        raise InputError(f"expected a nonnegative integer, got {N}", path="N")
    if N == 0:
        return ()
    root = math.isqrt(N)
    if root * root == N:
        return (root,)
    digits = len(str(N))
    if digits <= TWO_SQUARES_DIGITS:
        two = _two_squares(N)
        if two is not None:
            return _nonzero(two)
    if digits <= MINIMAL_DIGITS:
        m = N
        while m % 4 == 0:
            m //= 4
        if m % 8 != 7:
            return _nonzero(sum_of_three_squares(N))
    return _nonzero(sum_of_four_squares(N))


def _two_squares(N: int) -> tuple[int, int] | None:
    """``(a, b)`` with ``a^2 + b^2 = N``, or None when there is none (a prime
    ``= 3 mod 4`` to an odd power). Factors N; composes the primes'
    representations by ``(a^2+b^2)(c^2+d^2) = (ac-bd)^2 + (ad+bc)^2``."""
    from sympy import factorint
    from sympy.solvers.diophantine.diophantine import prime_as_sum_of_two_squares

    a, b = 1, 0
    for p, e in factorint(N).items():
        if p % 4 == 3:
            if e % 2:
                return None
            a, b = a * p ** (e // 2), b * p ** (e // 2)
            continue
        c, d = (1, 1) if p == 2 else prime_as_sum_of_two_squares(p)
        for _ in range(e):
            a, b = a * c - b * d, a * d + b * c
    return a, b


def _nonzero(values) -> tuple[int, ...]:
    return tuple(sorted((abs(int(v)) for v in values if v), reverse=True))


def euler_product(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Four integers whose squares sum to ``(sum a_i^2) (sum b_i^2)`` (Euler's
    identity; a and b padded to four entries)."""
    a1, a2, a3, a4 = (tuple(a) + (0, 0, 0, 0))[:4]
    b1, b2, b3, b4 = (tuple(b) + (0, 0, 0, 0))[:4]
    return (
        a1 * b1 - a2 * b2 - a3 * b3 - a4 * b4,
        a1 * b2 + a2 * b1 + a3 * b4 - a4 * b3,
        a1 * b3 - a2 * b4 + a3 * b1 + a4 * b2,
        a1 * b4 + a2 * b3 - a3 * b2 + a4 * b1,
    )


def rational_squares(d: Rational) -> list[Rational]:
    """Nonzero rationals ``a_1 .. a_s`` (s <= 4) with ``sum a_i^2 = d >= 0``.

    ``d = p/q`` in lowest terms: ``d = (p q) / q^2``, so ``a_i = n_i / q`` with
    ``sum n_i^2 = p q`` (:func:`integer_squares`)."""
    d = rational(d)
    if d < 0:
        raise InputError(f"expected a nonnegative rational, got {d}", path="d")
    p, q = int(d.numerator), int(d.denominator)
    return [Q(n, q) for n in integer_squares(p * q)]


def quotient_squares(num: int, den: int, num_squares=None, den_squares=None) -> list[Rational]:
    """Nonzero rationals whose squares sum to ``num / den`` (positive integers),
    built from representations of num and den by Euler's identity:
    ``num / den = (num den) / den^2``. Fewer squares are used when num den is
    a square or small enough for :func:`integer_squares` to minimise."""
    num, den = int(num), int(den)
    N = num * den
    if math.isqrt(N) ** 2 == N or len(str(N)) <= MINIMAL_DIGITS:
        return [Q(n, den) for n in integer_squares(N)]
    a = num_squares if num_squares is not None else integer_squares(num)
    b = den_squares if den_squares is not None else integer_squares(den)
    return [Q(n, den) for n in euler_product(a, b) if n]
