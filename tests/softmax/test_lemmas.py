import random

import pytest

from symrel.errors import InputError
from symrel.exact import Q
from symrel.softmax.intervals import enclose
from symrel.softmax.lemmas import (
    ceil_significant,
    lambda_for_max_head,
    lambda_for_selection,
    max_head_gap,
    selection_error,
    selection_weight_loss,
    softmax_gap,
)


def random_scores(rng, n):
    return [Q(rng.randint(-50, 50), rng.randint(1, 10)) for _ in range(n)]


@pytest.mark.parametrize("seed", range(6))
def test_max_head_lemma_holds_rigorously_on_random_scores(seed):
    rng = random.Random(seed)
    for _ in range(10):
        n = rng.randint(1, 12)
        lam = Q(rng.randint(1, 500), rng.randint(1, 20))
        actual = softmax_gap(random_scores(rng, n), lam, backends=["taylor"])
        bound = max_head_gap(n, lam, backends=["taylor"])
        assert Q(0) <= actual.lo and actual.hi <= bound.lo


def test_max_head_bound_is_nearly_attained():
    # n - 1 scores at distance 1/lambda below the max: the first term's extremal configuration
    n, lam = 9, Q(50)
    actual = softmax_gap([Q(0)] + [-1 / lam] * (n - 1), lam, backends=["taylor"])
    bound = max_head_gap(n, lam, backends=["taylor"])
    assert actual.lo * 4 > bound.hi  # within a factor 4 (it is 1 + (n-1)/e)


def test_selection_lemma_on_scores_with_a_margin():
    rng = random.Random(3)
    for _ in range(20):
        n, delta, lam = rng.randint(2, 8), Q(rng.randint(1, 10), 4), Q(rng.randint(1, 40), 3)
        others = [-delta - Q(rng.randint(0, 10), 3) for _ in range(n - 1)]
        # winner weight 1 / (1 + sum exp(lambda (s - 0)))
        loss = enclose(lambda B, lam, *s: sum((B.exp(lam * v) for v in s[1:]), B.exp(lam * s[0])) /
                       (1 + sum((B.exp(lam * v) for v in s[1:]), B.exp(lam * s[0]))), lam, *others, backends=["taylor"])
        assert loss.hi <= selection_weight_loss(n, lam, delta, backends=["taylor"]).lo
        assert selection_error(n, lam, delta, Q(3)).hi == 6 * selection_weight_loss(n, lam, delta).hi


def test_inverse_forms_are_certified_and_nearly_smallest():
    for n in (2, 3, 10, 100):
        for eps in (Q(1, 10), Q(1, 1000), Q(1, 10**6)):
            res = lambda_for_max_head(n, eps)
            assert res.bound <= eps and max_head_gap(n, res.lam, backends=["taylor"]).hi <= eps
            assert res.threshold.hi <= res.lam <= res.threshold.hi * (1 + Q(1, 10**5))
            assert max_head_gap(n, res.threshold.lo * (1 - Q(1, 10**9)), backends=["taylor"]).lo > eps
            sel = lambda_for_selection(n, Q(1, 2), Q(2), eps)
            assert selection_error(n, sel.lam, Q(1, 2), Q(2), backends=["taylor"]).hi <= eps
            assert selection_error(n, sel.threshold.lo * (1 - Q(1, 10**9)), Q(1, 2), Q(2), backends=["taylor"]).lo > eps


def test_lambda_is_order_one_over_eps_for_a_max_head_and_log_for_selection():
    rows = []
    for k in range(1, 7):
        eps = Q(1, 10**k)
        rows.append((k, lambda_for_max_head(4, eps).lam * eps, lambda_for_selection(4, Q(1), Q(1), eps).lam))
    products = [p for _, p, _ in rows]
    assert max(products) / min(products) < 1 + Q(1, 10**4)          # lambda * eps constant
    steps = [b - a for (_, _, a), (_, _, b) in zip(rows, rows[1:])]
    assert all(Q(2302, 1000) < s < Q(2303, 1000) for s in steps)   # + ln 10 per decade


def test_trivial_cases_and_bad_input():
    assert lambda_for_max_head(1, Q(1, 10)).lam == 0
    assert max_head_gap(1, Q(5)).hi == 0
    with pytest.raises(InputError, match="eps"):
        lambda_for_max_head(3, Q(2))
    with pytest.raises(InputError, match="lambda"):
        max_head_gap(3, Q(-1))
    with pytest.raises(InputError):
        max_head_gap(0, Q(1))
    assert ceil_significant(Q(123456789), 3) == 124000000
    assert ceil_significant(Q(1, 3), 2) == Q(34, 100)
