import random

import mpmath
import pytest

from symrel.exact import Q
from symrel.softmax.taylor import EXP_CAP, e_bounds, exp_bounds, log_bounds, round_down, round_up


def mp(q):
    return mpmath.mpf(int(q.numerator)) / int(q.denominator)


def random_rationals(n, seed, scale):
    rng = random.Random(seed)
    return [Q(rng.randint(-scale * 1000, scale * 1000), rng.randint(1000, 2000)) for _ in range(n)]


@pytest.mark.parametrize("scale", [1, 30, 700])
def test_exp_bounds_enclose_the_100_digit_value(scale):
    with mpmath.workdps(120):
        for a in random_rationals(40, scale, scale) + [Q(0), Q(1, 2), Q(-1, 2)]:
            lo, hi = exp_bounds(a)
            v = mpmath.exp(mp(a))
            assert mp(lo) <= v <= mp(hi)
            assert hi - lo <= hi / 2**90  # relative width about 2^-96


def test_exp_of_a_huge_negative_argument_is_capped_soundly():
    lo, hi = exp_bounds(Q(-10**6))
    assert lo == 0 and 0 < hi <= exp_bounds(Q(-EXP_CAP))[1]


def test_log_and_e_bounds_enclose():
    with mpmath.workdps(120):
        for y in [Q(1), Q(2), Q(3), Q(10**9 + 7, 3), Q(1, 10**6)] + [abs(q) + Q(1, 7) for q in random_rationals(30, 1, 5)]:
            lo, hi = log_bounds(y)
            assert mp(lo) <= mpmath.log(mp(y)) <= mp(hi)
        lo, hi = e_bounds()
        assert mp(lo) <= mpmath.e <= mp(hi)
    with pytest.raises(ValueError):
        log_bounds(Q(0))


def test_outward_rounding_is_outward_and_short():
    for q in [Q(1, 3), Q(10**30 + 1, 7), Q(5, 10**40)]:
        d, u = round_down(q, 20), round_up(q, 20)
        assert d <= q <= u and d < u
        assert int(d.denominator).bit_length() <= 200 and (u - d) <= q / 2**18
