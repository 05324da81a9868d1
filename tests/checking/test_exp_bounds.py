"""The checker's exp enclosures: sound against an independent high-precision value, and tight."""

import mpmath
import pytest

from symrel.checking.exp_bounds import EXP_CAP, exp_bounds, exp_lower, exp_upper
from symrel.exact import Q, denominator, numerator, rational


def _mp(q):
    return mpmath.mpf(numerator(q)) / denominator(q)


@pytest.mark.parametrize("text", ["0", "1/7", "-1/7", "1/2", "-1/2", "5", "-5", "100", "-100", "3001/7", "1e-9", "-1e-9"])
def test_enclosure_contains_exp_and_is_tight(text):
    a = rational(text)
    lo, hi = exp_bounds(a)
    with mpmath.workdps(80):
        value = mpmath.exp(_mp(a))
        assert _mp(lo) <= value <= _mp(hi)
    assert lo > 0 and (hi - lo) <= hi / Q(2**90)


def test_products_of_reciprocal_arguments_enclose_one():
    for text in ["1/3", "7/2", "40"]:
        a = rational(text)
        lo_p, hi_p = exp_bounds(a)
        lo_m, hi_m = exp_bounds(-a)
        assert lo_p * lo_m <= 1 <= hi_p * hi_m


def test_below_the_cap_the_upper_end_is_monotone_and_positive():
    lo, hi = exp_bounds(Q(-EXP_CAP - 1))
    assert lo == 0 and 0 < hi == exp_upper(Q(-EXP_CAP)) and exp_lower(Q(-EXP_CAP)) > 0


def test_precision_is_a_parameter():
    lo, hi = exp_bounds(Q(1), bits=16)
    assert lo <= exp_lower(Q(1)) <= exp_upper(Q(1)) <= hi and hi - lo > 0


def test_an_argument_above_the_cap_is_refused_naming_the_limit():
    """exp(a) has about a / ln 2 bits: beyond EXP_CAP the enclosure is refused, never computed."""
    from symrel.checking import CheckLimit
    from symrel.checking.exp_bounds import EXP_CAP, exp_bounds
    from symrel.exact import Q

    lo, hi = exp_bounds(Q(EXP_CAP), bits=16)
    assert 0 < lo <= hi
    with pytest.raises(CheckLimit, match="limit 'exp argument'"):
        exp_bounds(Q(10) ** 12)
