"""symrel.exact.sizes: the bounds are upper bounds, cheap for ordinary numbers, exact past the
limit, and a refusal names the limit and its option."""

import random
from math import lcm

import pytest

from symrel.errors import LimitError
from symrel.exact import Q
from symrel.exact.sizes import (arithmetic_limits, check_product_bits, common_denominator_bits, current_arithmetic_limits,
                                lcm_bits, number_bits, weight)


@pytest.mark.parametrize("seed", range(20))
def test_the_bound_is_at_least_the_bits_of_the_lcm(seed):
    rng = random.Random(seed)
    dens = [rng.choice([1, 2, 3, 5, 7, 10, 12, 2 ** 40, 3 ** 20, rng.randrange(1, 10 ** 30)]) for _ in range(rng.randrange(1, 40))]
    assert lcm_bits(dens) >= lcm(*dens).bit_length()


def test_powers_of_two_cost_their_largest_exponent_only():
    assert lcm_bits([2 ** k for k in range(150)]) == 150   # float32 weights: lcm 2^149


def test_past_the_cheap_bound_the_lcm_itself_is_computed_and_not_refused():
    dens = [3 * k for k in range(1, 3000)]                  # many distinct, lcm small
    exact = lcm(*dens).bit_length()
    with arithmetic_limits(denominator_bits=exact + 10):
        assert lcm_bits(dens) == exact


def test_coprime_denominators_beyond_the_limit_are_refused_naming_it():
    rng = random.Random(1)
    values = [Q(1, rng.randrange(10 ** 99, 10 ** 100) | 1) for _ in range(400)]   # about 130,000 bits
    with pytest.raises(LimitError, match=r"layers\[1\]: limit 'denominator bits': .*--max-denominator-bits"):
        common_denominator_bits(values, where="layers[1]")
    with arithmetic_limits(denominator_bits=200_000):
        assert common_denominator_bits(values) > 100_000


def test_product_bits_and_the_option():
    with pytest.raises(LimitError, match="limit 'product bits': x would have up to 300000 bits.*--max-product-bits"):
        check_product_bits(300_000, what="x")
    assert check_product_bits(100) == 100
    with arithmetic_limits(product_bits=50), pytest.raises(LimitError):
        check_product_bits(100)
    assert current_arithmetic_limits().product_bits == 200_000


@pytest.mark.parametrize("bad", [0, -5, True, "10"])
def test_a_limit_is_a_positive_integer(bad):
    with pytest.raises(LimitError, match="expected a positive number of bits"):
        arithmetic_limits(product_bits=bad)


def test_number_bits_bound_the_integers_over_the_common_denominator():
    values = [Q(3, 4), Q(-5, 6), Q(7)]
    D = 12
    assert number_bits(values) >= max(abs(int(v * D)).bit_length() for v in values) + D.bit_length()


def test_weight_is_one_for_ordinary_numbers_and_grows_with_the_square():
    assert weight(0) == weight(8191) == 1 and weight(8192) == 4 and weight(81920) == 121
