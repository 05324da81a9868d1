"""Attention retrieval: proofs on random tasks, re-checked by plain exact evaluation,
and broken constructions refuted with a counterexample that exact evaluation confirms."""

import random
from itertools import combinations

import pytest

from symrel.errors import InputError
from symrel.exact import Q, from_rationals
from symrel.models import DenseLayer, ReLUNet, hardmax
from symrel.preorders import (
    IncompletePreorderError,
    Preorder,
    RetrievalAttention,
    RetrievalTask,
    build_retrieval_attention,
    prove_retrieval,
)
from symrel.preorders.generators import random_retrieval_task


def scores_by_evaluation(task, phi_q, phi_k):
    """<phi_q(x), phi_k(y)> by evaluating each net at each point on its own."""
    out = {}
    for q, x in task.queries.items():
        fq = phi_q(x)
        out[q] = {k: sum((a * b for a, b in zip(fq, phi_k(y))), Q(0)) for k, y in task.keys.items()}
    return out


def maximal_by_brute_force(P, subset):
    return [y for y in subset if not any(P.leq(y, z) and not P.leq(z, y) for z in subset)]


def confirm_counterexample(task, phi_q, phi_k, detail):
    """The refutation's query and keys really break hardmax retrieval."""
    q, subset = detail["query"], detail["keys"]
    s = scores_by_evaluation(task, phi_q, phi_k)[q]
    weights = hardmax([s[y] for y in subset])
    top = maximal_by_brute_force(task.preorders[q], subset)
    expected = [Q(1, len(top)) if y in top else Q(0) for y in subset]
    assert weights != expected


@pytest.mark.parametrize("seed", range(4))
def test_random_tasks_with_ties_are_proved_and_rechecked(seed):
    task = random_retrieval_task(10, 20, dim=2, seed=seed)
    assert any(len(c) > 1 for P in task.preorders.values() for c in P.indifference_classes())  # ties present
    att = build_retrieval_attention(task, eps=Q(1, 100))
    proof = prove_retrieval(task, att, max_subset=3, eps=Q(1, 100))
    assert proof.result == "proved", proof.obstacle
    assert proof.extra["scores_equal_beta_u"] is True
    # independent re-check: scores are beta * utility, and hardmax retrieves on random subsets of any size
    S = scores_by_evaluation(task, att.phi_q, att.phi_k)
    U = task.utility_matrix()
    for i, q in enumerate(task.queries):
        for j, k in enumerate(task.keys):
            assert S[q][k] == att.beta * U[i][j]
    rng = random.Random(seed)
    keys = task.key_names
    for _ in range(200):
        q = rng.choice(task.query_names)
        subset = rng.sample(keys, rng.randint(1, len(keys)))
        top = maximal_by_brute_force(task.preorders[q], subset)
        assert hardmax([S[q][y] for y in subset]) == [Q(1, len(top)) if y in top else Q(0) for y in subset]


def test_feature_dimension_is_the_rank_of_the_utility_matrix():
    task = random_retrieval_task(12, 8, seed=11)
    att = build_retrieval_attention(task)
    assert att.feature_dim == from_rationals(task.utility_matrix()).rank()
    assert prove_retrieval(task, att).extra["scores_equal_beta_u"] is True


def test_one_hot_factorisation_also_proves():
    task = random_retrieval_task(5, 7, seed=12)
    att = build_retrieval_attention(task, factorisation="one-hot")
    assert att.feature_dim == 7
    assert prove_retrieval(task, att, max_subset=7).result == "proved"


def _mutated(task, key, features):
    keys = dict(task.keys)
    keys[key] = features
    return RetrievalTask(keys, task.queries, task.preorders)


def test_moving_one_key_onto_another_is_refuted_with_the_query_and_keys():
    task = random_retrieval_task(10, 20, seed=5)
    att = build_retrieval_attention(task)
    # key k3 now sits where k7 is: their scores coincide, though some query ranks them apart
    assert any(not (P.leq("k3", "k7") and P.leq("k7", "k3")) for P in task.preorders.values())
    broken = _mutated(task, "k3", task.keys["k7"])
    proof = prove_retrieval(broken, att)
    assert proof.result == "refuted"
    detail = proof.extra["counterexample"]
    assert proof.counterexample == [detail["query"], *detail["keys"]]
    confirm_counterexample(broken, att.phi_q, att.phi_k, detail)


def test_a_tiny_move_of_one_key_feature_is_refuted_where_it_breaks_a_tie():
    task = random_retrieval_task(10, 20, seed=6)
    att = build_retrieval_attention(task)
    refuted = 0
    for key in task.key_names:
        x = task.keys[key]
        broken = _mutated(task, key, [x[0] + Q(1, 10**6), x[1]])
        proof = prove_retrieval(broken, att, max_subset=2)
        if proof.result == "refuted":
            refuted += 1
            confirm_counterexample(broken, att.phi_q, att.phi_k, proof.extra["counterexample"])
        else:  # the scores happen not to move: then they must still be beta * u
            assert proof.result == "proved"
    assert refuted > 0


def test_a_key_weight_changed_by_one_millionth_is_refuted():
    task = random_retrieval_task(6, 10, seed=7)
    att = build_retrieval_attention(task)
    last = att.phi_k.layers[-1]
    W = last.affine.exact_W.to_list()
    # find a single weight of the key map whose change by 1e-6 breaks retrieval
    for i in range(len(W)):
        for j in range(len(W[0])):
            W2 = [r[:] for r in W]
            W2[i][j] += Q(1, 10**6)
            layers = att.phi_k.layers[:-1] + [DenseLayer(W2, last.affine.b, last.activation)]
            broken = RetrievalAttention(att.phi_q, ReLUNet(att.phi_k.input_dim, layers))
            proof = prove_retrieval(task, broken, max_subset=2)
            if proof.result == "refuted":
                confirm_counterexample(task, broken.phi_q, broken.phi_k, proof.extra["counterexample"])
                return
    pytest.fail("no single weight change of 1e-6 broke retrieval")


def test_softmax_bound_with_beta_one_is_open_not_proved():
    task = random_retrieval_task(4, 10, seed=8)
    att = build_retrieval_attention(task, beta=1)
    proof = prove_retrieval(task, att, eps="1/1000")
    assert proof.result == "open" and "raise beta" in proof.obstacle


def test_softmax_weight_at_the_certified_beta_is_at_least_one_minus_eps():
    import mpmath

    task = random_retrieval_task(3, 12, seed=9)
    eps = Q(1, 100)
    att = build_retrieval_attention(task, eps=eps)
    assert prove_retrieval(task, att, eps=eps).result == "proved"
    S = scores_by_evaluation(task, att.phi_q, att.phi_k)
    with mpmath.workdps(50):
        for q in task.queries:
            top = task.preorders[q].maximal_elements()
            s = {k: mpmath.mpf(int(v.numerator)) / int(v.denominator) for k, v in S[q].items()}
            m = max(s.values())
            total = mpmath.fsum(mpmath.exp(v - m) for v in s.values())
            weight = mpmath.fsum(mpmath.exp(s[k] - m) for k in top) / total
            assert 1 - mpmath.mpf(1) / 100 <= weight < 1


def test_incomplete_preorder_in_a_task_is_refused_with_the_query():
    task = RetrievalTask(
        {"a": [0], "b": [1], "c": [2]},
        {"x": [0], "y": [1]},
        {"x": Preorder.from_ranking(["a", "b", "c"]), "y": Preorder.from_pairs(["a", "b", "c"], [("a", "b")])},
    )
    with pytest.raises(IncompletePreorderError) as info:
        build_retrieval_attention(task)
    assert info.value.query == "y" and set(info.value.pair) in ({"a", "c"}, {"b", "c"})


def test_equal_features_with_different_preorders_are_refused():
    task = RetrievalTask(
        {"a": [0], "b": [1]},
        {"x": [0], "y": [0]},
        {"x": Preorder.from_ranking(["a", "b"]), "y": Preorder.from_ranking(["b", "a"])},
    )
    with pytest.raises(InputError) as info:
        build_retrieval_attention(task)
    assert info.value.path == "queries.y" and "'y'" in str(info.value)
    keys = RetrievalTask({"a": [0], "b": [0]}, {"x": [0]}, {"x": Preorder.from_ranking(["a", "b"])})
    with pytest.raises(InputError) as info:
        build_retrieval_attention(keys)
    assert info.value.path == "keys.b"


def test_all_keys_tied_and_single_key():
    tied = RetrievalTask({"a": [0], "b": [1]}, {"x": [0]}, {"x": Preorder.from_ranking([["a", "b"]])})
    att = build_retrieval_attention(tied)
    assert prove_retrieval(tied, att, eps="1/10").result == "proved"
    single = RetrievalTask({"a": [3]}, {"x": [0], "y": [1]}, {q: Preorder.from_ranking(["a"]) for q in "xy"})
    assert prove_retrieval(single, build_retrieval_attention(single)).result == "proved"


def test_every_subset_is_enumerated():
    task = random_retrieval_task(2, 6, seed=10)
    proof = prove_retrieval(task, build_retrieval_attention(task), max_subset=6)
    counts = [s.certificate["subsets"] for s in proof.steps if s.rule == "hardmax-subsets"]
    assert counts == [2**6 - 1] * 2
    assert sum(1 for _ in combinations(range(6), 3)) == 20


def test_queries_checked_on_an_executor_give_the_same_proof(capsys):
    from concurrent.futures import ThreadPoolExecutor

    task = random_retrieval_task(4, 8, seed=13)
    att = build_retrieval_attention(task)
    alone = prove_retrieval(task, att)
    with ThreadPoolExecutor(2) as pool:
        pooled = prove_retrieval(task, att, executor=pool, progress=True)
    assert [s.to_json() for s in pooled.steps] == [s.to_json() for s in alone.steps]
    assert capsys.readouterr().err.count("retrieval: query") == 4


def test_too_many_subsets_are_refused():
    from symrel.errors import LimitError

    task = random_retrieval_task(10, 20, seed=14)
    with pytest.raises(LimitError):
        prove_retrieval(task, build_retrieval_attention(task), max_subset=12)


def test_a_limit_of_one_key_is_never_refuted_by_a_pair():
    task = random_retrieval_task(3, 6, seed=15)
    att = build_retrieval_attention(task)
    broken = _mutated(task, "k1", task.keys["k2"])
    assert prove_retrieval(broken, att, max_subset=1).result == "proved"  # singletons are always retrieved
    assert prove_retrieval(broken, att, max_subset=2).result == "refuted"
