"""Utilities: each representation re-checked by a plain loop over every pair."""

import pytest

from symrel.exact import Q
from symrel.preorders import (
    IncompletePreorderError,
    NotAPreorderError,
    Preorder,
    debreu_utility,
    multi_utility,
    representation_mismatch,
    richter_peleg_utility,
)
from symrel.preorders.generators import random_complete_preorder, random_preorder


def plain_iff_holds(P, utilities):
    names = P.elements
    return all(P.leq(x, y) == all(u[x] <= u[y] for u in utilities) for x in names for y in names)


@pytest.mark.parametrize("n,classes,seed", [(1, 1, 0), (5, 1, 1), (40, 40, 2), (300, 60, 3), (300, 7, 4)])
def test_debreu_utility_on_random_complete_preorders(n, classes, seed):
    P = random_complete_preorder(n, classes=classes, seed=seed)
    rep = debreu_utility(P)
    assert rep.proof.result == "proved"
    assert plain_iff_holds(P, [rep.utility])
    levels = sorted(set(rep.utility.values()))
    assert levels == [Q(i) for i in range(len(levels))]  # gap 1, starting at 0
    assert len(levels) == len(P.indifference_classes())


def test_a_utility_off_by_one_millionth_is_caught_on_a_real_pair():
    P = random_complete_preorder(60, classes=10, seed=9)
    u = dict(debreu_utility(P).utility)
    x = P.elements[17]
    u[x] += Q(1, 10**6)
    bad = representation_mismatch(P, [u])
    assert bad is not None
    a, b = bad
    assert P.leq(a, b) != (u[a] <= u[b])  # a genuine failure of the iff


def test_non_transitive_relation_is_refused_naming_a_triple():
    P = Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("b", "c"), ("c", "a"), ("b", "a")])
    with pytest.raises(NotAPreorderError) as info:
        debreu_utility(P)
    x, y, z = info.value.witness
    assert P.leq(x, y) and P.leq(y, z) and not P.leq(x, z)


def test_incomplete_preorder_is_refused_naming_a_pair_and_the_alternatives():
    P = Preorder.from_pairs(["a", "b", "c", "d"], [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("a", "d")])
    with pytest.raises(IncompletePreorderError) as info:
        debreu_utility(P)
    x, y = info.value.pair
    assert {x, y} == {"b", "c"} and not P.leq(x, y) and not P.leq(y, x)
    assert "richter_peleg_utility" in str(info.value) and "multi_utility" in str(info.value)


@pytest.mark.parametrize("seed", range(6))
def test_richter_peleg_utility_is_strictly_monotone_and_constant_on_classes(seed):
    P = random_preorder(30, density=1.5 + seed, seed=seed)
    rep = richter_peleg_utility(P)
    u = rep.utility
    assert rep.proof.result == "proved"
    for x in P.elements:
        for y in P.elements:
            if P.leq(x, y) and not P.leq(y, x):
                assert u[x] < u[y]
            if P.leq(x, y) and P.leq(y, x):
                assert u[x] == u[y]


@pytest.mark.parametrize("seed", range(6))
def test_multi_utility_represents_incomplete_preorders(seed):
    P = random_preorder(25, density=1 + seed, seed=seed)
    rep = multi_utility(P)
    assert rep.proof.result == "proved"
    assert plain_iff_holds(P, rep.utilities)
    assert 1 <= len(rep.utilities) <= len(P.indifference_classes())
    if not P.is_complete():
        assert len(rep.utilities) >= 2  # one utility cannot represent an incomplete preorder


def test_multi_utility_of_an_antichain_needs_two_extensions():
    P = Preorder.from_pairs(["a", "b", "c", "d"], [])
    rep = multi_utility(P)
    assert len(rep.utilities) == 2 and plain_iff_holds(P, rep.utilities)


def test_multi_utility_of_a_complete_preorder_is_one_utility():
    P = random_complete_preorder(30, classes=6, seed=1)
    rep = multi_utility(P)
    assert len(rep.utilities) == 1 and plain_iff_holds(P, rep.utilities)
