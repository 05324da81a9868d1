"""Attention that retrieves: query-dependent preorders realised by inner products
of ReLU feature maps (Paper B; docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b).

Construction (symrel's, realising the paper's retrieval theorem on a finite task),
run through the relations pipeline (:mod:`symrel.relations`):

1. the utility matrix ``U[i][j] = u_(x_i)(y_j)`` of the Debreu utilities (gap 1);
2. an exact factorisation ``beta U = F G^T``: by default the rank factorisation
   from the reduced row echelon form (``G^T`` = the non-zero rows of
   ``rref(beta U)``, ``F`` = its pivot columns, so the feature dimension is
   ``rank U``); ``"one-hot"`` takes ``F = beta U`` and ``G = I``
   (``phi_k(y_j) = e_j``, dimension n);
3. ReLU MLPs interpolating the rows exactly
   (:func:`symrel.constructions.interpolate.interpolating_relu_net`):
   ``phi_q(x_i) = F_i`` and ``phi_k(y_j) = G_j``, so that
   ``<phi_q(x_i), phi_k(y_j)> = beta u_(x_i)(y_j)`` exactly.

:func:`prove_retrieval` then proves, from the realised scores alone (exact
evaluation of both nets), that hardmax attention returns exactly the maximal
keys, averaged over ties, for every query and every non-empty set of keys: the
scores order the keys as ``<=_x`` does (checked on every pair), so the argmax set
of any subset is its set of maximal keys; every subset up to a size limit is
also enumerated and evaluated with :func:`symrel.models.hardmax`. With ``eps`` it
also proves that softmax (scale 1) puts weight ``>= 1 - eps`` on the maximal
keys, with the beta of :func:`symrel.softmax.retrieval.retrieval_bound`.

>>> from symrel.preorders import Preorder
>>> task = RetrievalTask({"a": [0], "b": [1], "c": [2]}, {"x": [0], "y": [1]},
...     {"x": Preorder.from_ranking(["a", ["b", "c"]]), "y": Preorder.from_ranking(["c", "b", "a"])})
>>> att = build_retrieval_attention(task)
>>> proof = prove_retrieval(task, att, max_subset=3)
>>> proof.result, att.feature_dim
('proved', 2)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from itertools import combinations
from math import comb

from ..errors import InputError, LimitError
from ..exact import Q, Rational, format_rational, identity, rational, rational_str, rows
from ..models import ReLUNet, hardmax
from ..relations.factors_to_mlp import factors_to_features
from ..relations.table import Relation
from ..relations.table_to_factors import Factors, rank_factors
from ..certificates import OPEN, PROVED, REFUTED, Proof, Step
from .task import RetrievalTask

FACTORISATIONS = ("rank", "one-hot")
#: The most hardmax evaluations (queries x enumerated sets of keys) one proof may ask for.
MAX_SUBSETS = 2_000_000


@dataclass
class RetrievalAttention:
    """Query and key feature maps; the score of key y for query x is
    ``<phi_q(x), phi_k(y)>``. ``beta`` and ``factorisation`` record how it was
    built (None / "" for attention given from outside)."""

    phi_q: ReLUNet
    phi_k: ReLUNet
    beta: Rational | None = None
    factorisation: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def feature_dim(self) -> int:
        return self.phi_q.output_dim

    def score_matrix(self, task: RetrievalTask) -> list[list[Rational]]:
        """``S[i][j] = <phi_q(x_i), phi_k(y_j)>`` by exact evaluation of both nets
        on the task's feature points (one batch each). Cost: two batch
        evaluations and one m x r x n product."""
        if self.phi_q.input_dim != task.query_dim:
            raise InputError(f"phi_q takes {self.phi_q.input_dim} inputs, the queries have {task.query_dim}", path="phi_q.input_dim")
        if self.phi_k.input_dim != task.key_dim:
            raise InputError(f"phi_k takes {self.phi_k.input_dim} inputs, the keys have {task.key_dim}", path="phi_k.input_dim")
        if self.phi_q.output_dim != self.phi_k.output_dim:
            raise InputError(
                f"phi_q has {self.phi_q.output_dim} outputs, phi_k {self.phi_k.output_dim}; they must match", path="phi_k"
            )
        Phi_q = self.phi_q.evaluate_matrix(list(task.exact_queries.values()))
        Phi_k = self.phi_k.evaluate_matrix(list(task.exact_keys.values()))
        return rows(Phi_q.transpose() * Phi_k)


# -- construction ---------------------------------------------------------------------------
def _utility_relation(task: RetrievalTask, beta: Rational) -> Relation:
    """The relation table ``r(x_i, y_j) = beta u_(x_i)(y_j)`` on the query and key
    points. Two points with equal features need equal rows (columns): the error
    names them."""
    queries, keys = task.query_names, task.key_names
    table = [[beta * u for u in row] for row in task.exact_utility_matrix()]
    try:
        return Relation(list(task.exact_queries.values()), table, y=list(task.exact_keys.values()))
    except InputError as err:
        side, names = ("queries", queries) if err.path.startswith("x[") else ("keys", keys)
        index = int(err.path[2:-1])
        raise InputError(
            f"{names[index]!r} has the features of an earlier {side[:-1]} but needs other scores; "
            "no feature map of the features can tell them apart",
            path=f"{side}.{names[index]}",
        ) from None


def build_retrieval_attention(
    task: RetrievalTask, *, beta=None, eps=None, factorisation: str = "rank"
) -> RetrievalAttention:
    """Query and key ReLU MLPs with ``<phi_q(x), phi_k(y)> = beta u_x(y)`` exactly
    on the task's points (module docstring), through the relations pipeline:
    the table ``beta U`` as a :class:`~symrel.relations.table.Relation`, its exact
    rank factorisation (:func:`~symrel.relations.table_to_factors.rank_factors`)
    or the one-hot one, and the interpolating nets
    (:func:`~symrel.relations.factors_to_mlp.factors_to_features`). ``beta``
    defaults to the certified softmax beta for ``eps`` (utility gap 1, n keys),
    or 1 without ``eps``.

    Raises when a query's relation is not a complete preorder (naming the query
    and a witness) or when two points with equal features need different scores.
    """
    if factorisation not in FACTORISATIONS:
        raise InputError(f"expected one of {FACTORISATIONS}, got {factorisation!r}", path="factorisation")
    notes = []
    if beta is None:
        beta = Q(1)
        if eps is not None:
            bound = softmax_beta(len(task.exact_keys), rational(eps, path="eps"))
            if bound > 0:
                beta = bound
                notes.append(f"beta = {rational_str(beta)}: the certified softmax bound for eps = {rational_str(rational(eps))}")
    beta = rational(beta, path="beta")
    if beta <= 0:
        raise InputError(f"expected a positive beta, got {rational_str(beta)}", path="beta")
    relation = _utility_relation(task, beta)
    if factorisation == "rank":
        factors = rank_factors(relation.exact_R)
    else:
        n = len(task.exact_keys)
        factors = Factors(rows(relation.exact_R), rows(identity(n)), n, "one-hot")
    features = factors_to_features(relation, factors)
    return RetrievalAttention(features.phi, features.psi, beta, factorisation, notes)


def softmax_beta(n: int, eps: Rational, eta: Rational = Q(1)) -> Rational:
    """The certified beta of docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b: ``beta >= ln((n-1)(1-eps)/eps)/eta``
    as an exact rational (0 when every beta works), from
    :func:`symrel.softmax.retrieval.retrieval_bound` (rational Taylor referee).

    >>> str(softmax_beta(20, Q(1, 100)))
    '188489/25000'
    """
    from ..softmax.retrieval import retrieval_bound

    return retrieval_bound(n, eta, eps).lam


# -- proof ----------------------------------------------------------------------------------
def _expected_weights(P, subset: list) -> list[Rational]:
    """Weight ``1/|M|`` on each maximal key of the subset (by the preorder), 0 elsewhere."""
    top = set(P.maximal_elements(subset))
    w = Q(1, len(top))
    return [w if y in top else Q(0) for y in subset]


def score_order_mismatch(P, keys: list[str], scores: list[Rational]):
    """The first pair ``(y, z)`` of keys where ``y <=_x z`` disagrees with
    ``s(y) <= s(z)``, or None: whether the scores represent the preorder, on all n^2
    pairs. Cost O(n^2)."""
    G = P.graph
    s = dict(zip(keys, scores))
    for y in keys:
        sy, succ = s[y], G.succ[y]
        for z in keys:
            if (z in succ) != (sy <= s[z]):
                return y, z
    return None


def _subsets(keys: list[str], max_size: int):
    for size in range(1, max_size + 1):
        yield from combinations(keys, size)


def _hardmax_counterexample(P, keys: list[str], scores: list[Rational], subsets):
    """The first subset where hardmax over the scores differs from the expected
    weights, as ``(subset, hardmax weights, expected weights)``, or None."""
    s = dict(zip(keys, scores))
    for subset in subsets:
        subset = list(subset)
        got = hardmax([s[y] for y in subset])
        want = _expected_weights(P, subset)
        if got != want:
            return subset, got, want
    return None


def _min_gap(scores: list[Rational]):
    """The least difference between two distinct scores (None when all are equal)."""
    levels = sorted(set(scores))
    return min((b - a for a, b in zip(levels, levels[1:])), default=None)


def prove_retrieval(
    task: RetrievalTask,
    attention: RetrievalAttention,
    *,
    max_subset: int = 3,
    eps=None,
    executor=None,
    progress: bool = False,
) -> Proof:
    """Prove that hardmax attention with scores ``<phi_q(x), phi_k(y)>`` returns, for
    every query x and every non-empty set S of at most ``max_subset`` keys, exactly
    the ``<=_x``-maximal keys of S with weight ``1/|M|`` each; and, with ``eps``, that
    softmax (scale 1) puts weight ``>= 1 - eps`` on them.

    Steps: the realised scores (exact evaluation); per query, the scores
    represent ``<=_x`` on every pair of keys (then the argmax set of *any* subset
    is its set of maximal keys); the enumeration of every subset up to the
    limit with exact hardmax weights; the softmax margin. A failure is refuted
    with the query and the keys that break, confirmed by exact hardmax
    evaluation. The queries are checked independently, on ``executor`` (any
    :class:`concurrent.futures.Executor`) when given, with a line per query on
    standard error when ``progress``. Cost O(m n^2 + m sum_{s <= L} C(n, s) s^2);
    more than :data:`MAX_SUBSETS` hardmax evaluations in all is refused.
    """
    if isinstance(max_subset, bool) or not isinstance(max_subset, int) or max_subset < 1:
        raise InputError(f"expected a subset size limit >= 1, got {max_subset!r}", path="max_subset")
    keys = task.key_names
    n = len(keys)
    limit = min(max_subset, n)
    subset_count = sum(comb(n, s) for s in range(1, limit + 1))
    if subset_count * len(task.exact_queries) > MAX_SUBSETS:
        raise LimitError(
            f"{len(task.exact_queries)} queries x {subset_count} sets of at most {limit} keys exceed the limit of {MAX_SUBSETS} "
            "hardmax evaluations; lower the subset size limit (the pairwise step covers every size anyway)",
            path="max_subset",
        )
    scores = attention.score_matrix(task)
    beta_u = None
    if attention.beta is not None:
        U = task.exact_utility_matrix()
        beta_u = all(s == attention.beta * u for Srow, Urow in zip(scores, U) for s, u in zip(Srow, Urow))
    claim_data = {"kind": "retrieval", "max_subset": limit}
    if eps is not None:
        eps = rational(eps, path="eps")
        claim_data["eps"] = format_rational(eps)
    proof = Proof(
        claim=(
            f"for every query x and every non-empty set S of at most {limit} of the {n} keys, hardmax attention with "
            "scores <phi_q(x), phi_k(y)> puts weight 1/|M| on each <=_x-maximal key of S (M) and 0 elsewhere"
            + (f"; softmax (scale 1) puts weight >= 1 - {rational_str(eps)} on M" if eps is not None else "")
        ),
        construction=(
            f"symrel construction realising Paper B's retrieval: Debreu utilities, {attention.factorisation} factorisation, "
            "exact ReLU interpolation"
            if attention.factorisation
            else "attention given as two ReLU feature maps"
        ),
        claim_data=claim_data,
        inputs={"task": task, "phi_q": attention.phi_q, "phi_k": attention.phi_k},
    )
    proof.extra["scores_equal_beta_u"] = beta_u
    proof.add(
        Step(
            f"the realised scores <phi_q(x), phi_k(y)> for {len(scores)} queries and {n} keys",
            "exact-evaluation",
            {"scores": {q: dict(zip(keys, map(format_rational, r))) for q, r in zip(task.query_names, scores)}},
            PROVED,
            note="they equal beta u(x, y) exactly" if beta_u else "",
        )
    )
    jobs = [(q, task.preorders[q], keys, row, limit) for q, row in zip(task.query_names, scores)]
    if executor is None:  # lazily: a refuted query stops the proof
        results = (check_query(*job) for job in jobs)
    else:
        from ..parallel import map_ordered

        results = map_ordered(_check_job, jobs, executor)
    for i, (q, represented, found) in enumerate(results, 1):
        if progress:
            print(f"retrieval: query {i}/{len(jobs)} ({q}) checked", file=sys.stderr)
        if represented:
            proof.add(
                Step(
                    f"query {q}: y <= z iff score(y) <= score(z), on all {n * n} pairs of keys; so the argmax set of "
                    "every set of keys is its set of maximal keys",
                    "score-order-pairwise",
                    {"query": q, "pairs": n * n},
                    PROVED,
                )
            )
        if found is not None:
            subset, got, want = found
            _refute(proof, q, subset, scores[i - 1], keys, got, want)
            return proof
        proof.add(
            Step(
                f"query {q}: hardmax on each of the {subset_count} sets of at most {limit} keys returns its maximal keys, averaged",
                "hardmax-subsets",
                {"query": q, "max_subset": limit, "subsets": subset_count},
                PROVED,
            )
        )
    if eps is not None:
        _add_softmax_step(proof, scores, n, eps)
    return proof


def _check_job(job):
    return check_query(*job)


def check_query(q: str, P, keys: list[str], row: list[Rational], limit: int):
    """One query's part of :func:`prove_retrieval` (a separate function so an
    executor can run it): ``(q, scores represent <=_q, counterexample or None)``.
    A pair where the score order disagrees with the preorder is tried first as a
    counterexample (for a complete preorder it always is one) when the limit
    allows pairs, then every set of at most ``limit`` keys is evaluated."""
    bad = score_order_mismatch(P, keys, row)
    found = None
    if bad is not None and limit >= 2:
        found = _hardmax_counterexample(P, keys, row, [list(bad)])
    if found is None:
        found = _hardmax_counterexample(P, keys, row, _subsets(keys, limit))
    return q, bad is None, found


def _refute(proof: Proof, q: str, subset: list, row: list, keys: list, got: list, want: list) -> None:
    s = dict(zip(keys, row))
    detail = {
        "query": q,
        "keys": subset,
        "scores": [format_rational(s[y]) for y in subset],
        "hardmax": [format_rational(w) for w in got],
        "expected": [format_rational(w) for w in want],
    }
    note = (
        f"query {q!r}, keys {subset}: scores {[rational_str(s[y]) for y in subset]}, hardmax weights "
        f"{[rational_str(w) for w in got]}, but the maximal keys need {[rational_str(w) for w in want]}"
    )
    proof.add(Step(f"query {q}: hardmax returns the maximal keys of {subset}", "hardmax-subsets", detail, REFUTED, note=note))
    proof.extra["counterexample"] = detail
    proof.refute([q, *subset], note)


def _add_softmax_step(proof: Proof, scores: list[list[Rational]], n: int, eps: Rational) -> None:
    """Softmax weight on the maximal keys of a set of s keys is at least
    ``1/(1 + (s-1) exp(-g))`` where g is the least gap between distinct scores, and
    ``s <= n``; this is ``>= 1 - eps`` once ``g >= beta(n, eps)`` (gap eta = 1)."""
    gaps = [g for g in (_min_gap(r) for r in scores) if g is not None]
    need = softmax_beta(n, eps)
    gap = min(gaps) if gaps else None
    ok = gap is None or gap >= need
    proof.add(
        Step(
            f"softmax (scale 1) puts weight >= 1 - {rational_str(eps)} on the maximal keys: it needs the least "
            f"score gap g >= ln((n-1)(1-eps)/eps), n = {n}; certified bound {rational_str(need)}, "
            f"g = {rational_str(gap) if gap is not None else 'none (all keys tied)'}",
            "softmax-retrieval-margin",
            {"eps": format_rational(eps), "keys": n, "least_gap": None if gap is None else format_rational(gap),
             "beta_bound": format_rational(need)},
            PROVED if ok else OPEN,
            note="" if ok else "the least score gap is below the certified bound, so the bound cannot show it: raise beta",
        )
    )


def utility_rows(task: RetrievalTask) -> dict[str, dict[str, Rational]]:
    """``{query: {key: utility}}`` (for reports)."""
    return {q: dict(rep.utility) for q, rep in task.utilities.items()}

