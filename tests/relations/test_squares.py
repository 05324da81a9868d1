import random

import pytest

from symrel.errors import InputError
from symrel.exact import Q, rational
from symrel.relations.squares import euler_product, integer_squares, quotient_squares, rational_squares


def test_every_small_integer():
    for n in range(0, 2000):
        s = integer_squares(n)
        assert sum(v * v for v in s) == n and len(s) <= 4 and all(v > 0 for v in s)


def test_minimal_counts_on_small_numbers():
    assert len(integer_squares(49)) == 1
    assert len(integer_squares(2)) == 2 and len(integer_squares(65)) == 2
    assert len(integer_squares(3)) == 3 and len(integer_squares(6)) == 3  # 6 = 4+1+1, not 2 squares
    assert len(integer_squares(7)) == 4 and len(integer_squares(28)) == 4


def test_rationals_including_large_ones():
    rng = random.Random(3)
    for _ in range(200):
        d = Q(rng.randrange(0, 10**rng.randint(1, 120)), rng.randrange(1, 10**rng.randint(1, 120)))
        a = rational_squares(d)
        assert sum(v * v for v in a) == d and len(a) <= 4
    assert rational_squares(rational("9/4")) == [Q(3, 2)]
    with pytest.raises(InputError):
        rational_squares(Q(-1))


def test_euler_identity_and_quotients():
    rng = random.Random(4)
    for _ in range(100):
        a = tuple(rng.randint(-99, 99) for _ in range(4))
        b = tuple(rng.randint(-99, 99) for _ in range(4))
        assert sum(v * v for v in euler_product(a, b)) == sum(v * v for v in a) * sum(v * v for v in b)
    for _ in range(50):
        num, den = rng.randrange(1, 10**90), rng.randrange(1, 10**90)
        q = quotient_squares(num, den)
        assert sum(v * v for v in q) == Q(num, den) and len(q) <= 4
