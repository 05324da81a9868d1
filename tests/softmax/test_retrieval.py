import pytest

from symrel.errors import InputError
from symrel.exact import Q
from symrel.softmax import retrieval_beta, retrieval_bound, retrieval_weight_lower
from symrel.softmax.intervals import enclose


def worst_case_weight(n, beta, eta):
    """Weight on the maximal key when every other key sits exactly eta below it."""
    return enclose(lambda B, n, beta, eta: 1 / (1 + (n - 1) * B.exp(-(beta * eta))), Q(n), beta, eta,
                   backends=["taylor"])


@pytest.mark.parametrize("n,eta,eps", [(2, Q(1), Q(1, 10)), (10, Q(1, 3), Q(1, 1000)), (1000, Q(5), Q(1, 10**6))])
def test_beta_is_certified_and_nearly_smallest(n, eta, eps):
    beta = retrieval_beta(n, eta, eps)
    assert worst_case_weight(n, beta, eta).lo >= 1 - eps
    assert retrieval_weight_lower(n, beta, eta).lo >= 1 - eps
    # 10^-5 below, the worst configuration has weight < 1 - eps: beta is the smallest up to rounding
    assert worst_case_weight(n, beta * (1 - Q(1, 10**5)), eta).hi < 1 - eps
    res = retrieval_bound(n, eta, eps)
    assert res.threshold.lo <= beta and res.lam == beta


def test_matches_the_closed_form_ln_over_eta():
    # beta* = ln((n-1)(1-eps)/eps)/eta; with n = 2, eps = 1/(1+e^2), eta = 1 it is exactly 2
    import mpmath

    eps_star = 1 / (1 + mpmath.e ** 2)
    eps = Q(int(eps_star * 10**15), 10**15)  # slightly below eps_star: beta* slightly above 2
    beta = retrieval_beta(2, 1, eps)
    assert Q(2) < beta < Q(2) + Q(1, 10**4)


def test_trivial_and_bad_input():
    assert retrieval_beta(1, 1, Q(1, 2)) == 0
    assert retrieval_beta(3, 1, Q(9, 10)) == 0  # weight >= 1/3 >= 1/10 at any beta
    with pytest.raises(InputError, match="eta"):
        retrieval_beta(3, 0, Q(1, 10))
    with pytest.raises(InputError, match="eps"):
        retrieval_beta(3, 1, 0)
