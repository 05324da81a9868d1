"""Preorder: every answer compared with a brute-force computation on the raw pairs."""

import random
from itertools import product

import networkx as nx
import pytest

from symrel.errors import InputError
from symrel.preorders import NotAPreorderError, Preorder
from symrel.preorders.generators import random_complete_preorder, random_preorder


def random_relation(n, density, seed, reflexive=True):
    rng = random.Random(seed)
    names = [f"x{i}" for i in range(n)]
    pairs = [(a, b) for a in names for b in names if a != b and rng.random() < density]
    return Preorder.from_pairs(names, pairs, reflexive=reflexive), names


def brute_transitive(P, names):
    return all(P.leq(x, z) for x, y, z in product(names, repeat=3) if P.leq(x, y) and P.leq(y, z))


def brute_closure(P, names):
    """Warshall on a boolean table, reflexive."""
    R = {(x, y): P.leq(x, y) or x == y for x in names for y in names}
    for k in names:
        for i in names:
            if R[i, k]:
                for j in names:
                    if R[k, j]:
                        R[i, j] = True
    return {p for p, v in R.items() if v}


@pytest.mark.parametrize("seed", range(40))
def test_transitivity_witness_agrees_with_brute_force(seed):
    n = 3 + seed % 9
    P, names = random_relation(n, [0.1, 0.3, 0.6, 0.9][seed % 4], seed, reflexive=seed % 5 != 0)
    witness = P.transitivity_witness()
    assert (witness is None) == brute_transitive(P, names)
    if witness is not None:
        x, y, z = witness
        assert P.leq(x, y) and P.leq(y, z) and not P.leq(x, z)


@pytest.mark.parametrize("seed", range(10))
def test_closed_relations_are_transitive_and_closure_matches_warshall(seed):
    P, names = random_relation(12, 0.15, seed)
    closed = P.closure()
    assert set(closed.graph.edges) == brute_closure(P, names)
    assert closed.is_transitive() and closed.is_reflexive()
    assert closed.added_by_closure == len(brute_closure(P, names)) - P.graph.number_of_edges()


def test_witness_on_a_cycle_without_self_loops():
    P = Preorder.from_pairs(["a", "b"], [("a", "b"), ("b", "a")], reflexive=False)
    x, y, z = P.transitivity_witness()
    assert P.leq(x, y) and P.leq(y, z) and not P.leq(x, z) and x == z


def test_non_transitive_relation_is_refused_with_a_witness():
    P = Preorder.from_pairs(["a", "b", "c", "d"], [("a", "b"), ("b", "c"), ("c", "d"), ("a", "c"), ("b", "d")])
    with pytest.raises(NotAPreorderError) as info:
        P.check_preorder()
    x, y, z = info.value.witness
    assert P.leq(x, y) and P.leq(y, z) and not P.leq(x, z)
    assert "not transitive" in str(info.value) and info.value.path == "leq"


@pytest.mark.parametrize("seed", range(10))
def test_complete_and_incomparable_pair(seed):
    P = random_preorder(15, density=1 + seed, seed=seed)
    names = P.elements
    brute = next(((x, y) for x in names for y in names if not P.leq(x, y) and not P.leq(y, x)), None)
    pair = P.incomparable_pair()
    assert (pair is None) == (brute is None)
    if pair:
        x, y = pair
        assert not P.leq(x, y) and not P.leq(y, x)


@pytest.mark.parametrize("seed", range(8))
def test_structure_against_brute_force(seed):
    P = random_preorder(14, density=2, seed=seed) if seed % 2 else random_complete_preorder(14, classes=5, seed=seed)
    names = P.elements
    # indifference classes: x ~ y iff x <= y and y <= x
    classes = P.indifference_classes()
    assert sorted(tuple(sorted(c)) for c in classes) == sorted({tuple(sorted(y for y in names if P.leq(x, y) and P.leq(y, x))) for x in names})
    # lowest first: nothing in a later class is <= something in an earlier one strictly
    position = {x: i for i, c in enumerate(classes) for x in c}
    assert all(position[x] <= position[y] for x in names for y in names if P.leq(x, y))
    strict = P.strict_part()
    assert set(strict.edges) == {(x, y) for x in names for y in names if P.leq(x, y) and not P.leq(y, x)}
    # Hasse diagram: covers between classes
    H = P.hasse_diagram()
    cls = {x: tuple(c) for c in classes for x in c}
    covers = {
        (cls[x], cls[y])
        for (x, y) in strict.edges
        if not any(strict.has_edge(x, z) and strict.has_edge(z, y) for z in names)
    }
    assert {(tuple(H.nodes[a]["members"]), tuple(H.nodes[b]["members"])) for a, b in H.edges} == covers
    assert P.maximal_elements() == [x for x in names if not any(strict.has_edge(x, y) for y in names)]
    assert P.greatest_elements() == [x for x in names if all(P.leq(y, x) for y in names)]
    subset = names[::3]
    assert P.maximal_elements(subset) == [x for x in subset if not any(strict.has_edge(x, y) for y in subset)]


def test_constructors_agree():
    u = {"a": 3, "b": "1/2", "c": 3, "d": -1}
    by_utility = Preorder.from_utility(u)
    by_ranking = Preorder.from_ranking([["a", "c"], "b", "d"])
    by_comparison = Preorder.from_comparison(list(u), lambda x, y: by_utility.leq(x, y))
    pairs = [(x, y) for x in u for y in u if by_utility.leq(x, y)]
    by_pairs = Preorder.from_pairs(list(u), pairs)
    assert by_utility == by_ranking == by_comparison == by_pairs
    assert by_utility.is_complete() and by_utility.is_transitive()
    assert by_utility.greatest_elements() == ["a", "c"]


def test_from_pairs_errors_name_their_path():
    with pytest.raises(InputError) as info:
        Preorder.from_pairs(["a", "b"], [("a", "b"), ("b", "a"), ("a", "a"), ("b", "zz")])
    assert info.value.path == "leq[3][1]" and "'zz'" in str(info.value)
    with pytest.raises(InputError) as info:
        Preorder.from_pairs(["a", "a"], [])
    assert info.value.path == "elements[1]"
    with pytest.raises(InputError) as info:
        Preorder.from_pairs(["a"], [("a",)])
    assert info.value.path == "leq[0]"
    with pytest.raises(InputError):
        Preorder.from_ranking(["a", ["b", "a"]])


def test_transitivity_check_is_linear_for_complete_preorders():
    """The complete case never calls transitive_closure_dag (it would be cubic)."""
    P = random_complete_preorder(300, seed=5)
    calls = []
    original = nx.transitive_closure_dag
    try:
        nx.transitive_closure_dag = lambda *a, **k: calls.append(1) or original(*a, **k)
        assert P.transitivity_witness() is None
    finally:
        nx.transitive_closure_dag = original
    assert calls == []
