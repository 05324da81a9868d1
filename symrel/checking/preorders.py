"""Independent checkers for preorder utilities and attention retrieval certificates.

Written apart from :mod:`symrel.preorders`: they read the embedded preorder only
as its raw relation (``graph.has_edge`` / successor sets), recompute every
asserted number with exact rationals and compare exactly.

* ``utility``: ``x <= y iff u(x) <= u(y)`` on every ordered pair, utilities 0, 1, 2, ..
  on consecutive levels;
* ``richter-peleg-utility``: ``x < y => u(x) < u(y)``, ``x ~ y => u(x) = u(y)``, and
  u is the longest-chain level (so every value is determined);
* ``multi-utility``: ``x <= y iff u_k(x) <= u_k(y) for all k``, each u_k the positions
  0..k-1 of the classes;
* ``retrieval``: the scores re-evaluated from the embedded ReLU nets, the
  score order against each query's preorder on every pair, hardmax on every
  listed subset, and the softmax margin against the rational Taylor referee.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import combinations

from ..exact import Q, rational
from ..models import hardmax
from . import CertificateError, claim_checker


def _table(raw: dict, names: list, where: str) -> dict:
    if not isinstance(raw, dict) or set(raw) != set(names):
        raise CertificateError(f"{where}: expected one utility per element of the preorder")
    return {x: rational(v, path=where) for x, v in raw.items()}


def _steps(cert: dict, rule: str) -> list[dict]:
    return [s for s in cert["steps"] if s.get("rule") == rule]


def _check_pairs_count(cert: dict, rule: str, expected: int) -> None:
    for s in _steps(cert, rule):
        if s["certificate"].get("pairs") != expected:
            raise CertificateError(f"step {rule}: records {s['certificate'].get('pairs')} pairs, the preorder has {expected}")


@claim_checker("utility")
def check_utility(cert: dict, inputs: dict) -> None:
    G = inputs["preorder"].graph
    names = list(G)
    u = _table(cert["claim"]["utility"], names, "claim.utility")
    # x <= y iff u(x) <= u(y): x has exactly as many successors as elements at or
    # above u(x), and each of them is at or above u(x)
    ordered = sorted(u.values())
    n = len(names)
    for x in names:
        above = n - bisect_left(ordered, u[x])
        succ = G.succ[x]
        if len(succ) != above or any(u[y] < u[x] for y in succ):
            y = next((y for y in succ if u[y] < u[x]), None) or next(y for y in names if u[y] >= u[x] and y not in succ)
            raise CertificateError(f"claim.utility: x <= y iff u(x) <= u(y) fails at x = {x!r}, y = {y!r}")
    _check_pairs_count(cert, "utility-pairwise", n * n)
    levels = sorted(set(u.values()))
    if levels and levels[0] != 0:
        raise CertificateError("claim.utility: the lowest class must have utility 0 (rank in the chain)")
    for s in _steps(cert, "complete-preorder"):
        if (s["certificate"].get("elements"), s["certificate"].get("classes")) != (n, len(levels)):
            raise CertificateError("step complete-preorder: the recorded numbers of elements and classes are wrong")
    for s in _steps(cert, "utility-gap"):
        if (s["certificate"].get("gap"), s["certificate"].get("levels")) != (1, len(levels)):
            raise CertificateError("step utility-gap: the recorded gap (1) or number of utility levels is wrong")
    for a, b in zip(levels, levels[1:]):
        if b - a != 1:
            raise CertificateError(f"step utility-gap: consecutive utility levels {a} and {b} are not 1 apart")


@claim_checker("richter-peleg-utility")
def check_richter_peleg(cert: dict, inputs: dict) -> None:
    G = inputs["preorder"].graph
    u = _table(cert["claim"]["utility"], list(G), "claim.utility")
    for s in _steps(cert, "richter-peleg-pairwise"):
        if s["certificate"].get("related_pairs") != G.number_of_edges():
            raise CertificateError("step richter-peleg-pairwise: the recorded number of related pairs is wrong")
    for s in _steps(cert, "chain-level"):
        if s["certificate"].get("elements") != len(G):
            raise CertificateError("step chain-level: the recorded number of elements is wrong")
    for x, y in G.edges:
        indifferent = G.has_edge(y, x)
        if (indifferent and u[x] != u[y]) or (not indifferent and not u[x] < u[y]):
            raise CertificateError(f"claim.utility: not a Richter-Peleg utility at {x!r} <= {y!r}")
    # the value is the longest strict chain below: 0 at the bottom, else one more than the best below
    for y in G:
        best = Q(0)
        for x in G.pred[y]:
            if not G.has_edge(y, x) and u[x] + 1 > best:
                best = u[x] + 1
        if u[y] != best:
            raise CertificateError(f"claim.utility: u({y!r}) is not the length of the longest strict chain below it")


@claim_checker("multi-utility")
def check_multi_utility(cert: dict, inputs: dict) -> None:
    G = inputs["preorder"].graph
    names = list(G)
    family = cert["claim"]["utilities"]
    if not isinstance(family, list) or not family:
        raise CertificateError("claim.utilities: expected a non-empty list of utilities")
    family = [_table(u, names, f"claim.utilities[{k}]") for k, u in enumerate(family)]
    classes = len({frozenset(y for y in G.succ[x] if G.has_edge(y, x)) for x in names})
    for k, u in enumerate(family):
        if sorted(set(u.values())) != [Q(i) for i in range(classes)]:
            raise CertificateError(f"claim.utilities[{k}]: expected the positions 0..{classes - 1} of the classes in a linear extension")
    for x in names:
        for y in names:
            if G.has_edge(x, y) != all(u[x] <= u[y] for u in family):
                raise CertificateError(f"claim.utilities: x <= y iff u_k(x) <= u_k(y) for all k fails at {x!r}, {y!r}")
    _check_pairs_count(cert, "multi-utility-pairwise", len(names) ** 2)


@claim_checker("retrieval")
def check_retrieval(cert: dict, inputs: dict) -> None:
    task, phi_q, phi_k = inputs["task"], inputs["phi_q"], inputs["phi_k"]
    keys = list(task.keys)
    Fq = [phi_q(x) for x in task.queries.values()]
    Fk = [phi_k(y) for y in task.keys.values()]
    scores = [[sum((a * b for a, b in zip(fq, fk)), Q(0)) for fk in Fk] for fq in Fq]
    (evaluation,) = _steps(cert, "exact-evaluation")
    recorded = evaluation["certificate"]["scores"]
    if set(recorded) != set(task.queries) or any(
        set(recorded[q]) != set(keys) or [rational(recorded[q][k]) for k in keys] != row for q, row in zip(task.queries, scores)
    ):
        raise CertificateError("step exact-evaluation: the recorded scores differ from <phi_q(x), phi_k(y)>")
    limit = cert["claim"]["max_subset"]
    for q, row in zip(task.queries, scores):
        G = task.preorders[q].graph
        s = dict(zip(keys, row))
        ordered = [st for st in _steps(cert, "score-order-pairwise") if st["certificate"].get("query") == q]
        if any(st["certificate"].get("pairs") != len(keys) ** 2 for st in ordered):
            raise CertificateError(f"step score-order-pairwise: query {q!r} records a wrong number of pairs")
        if ordered:
            for y in keys:
                for z in keys:
                    if G.has_edge(y, z) != (s[y] <= s[z]):
                        raise CertificateError(f"step score-order-pairwise: query {q!r} fails at keys {y!r}, {z!r}")
        counted = 0
        for size in range(1, limit + 1):
            for subset in combinations(keys, size):
                counted += 1
                top = [y for y in subset if all(G.has_edge(z, y) for z in subset if G.has_edge(y, z))]
                want = [Q(1, len(top)) if y in top else Q(0) for y in subset]
                if hardmax([s[y] for y in subset]) != want:
                    raise CertificateError(f"step hardmax-subsets: query {q!r}, keys {list(subset)}: hardmax is not on the maximal keys")
        recorded = [(st["certificate"].get("subsets"), st["certificate"].get("max_subset"))
                    for st in _steps(cert, "hardmax-subsets") if st["certificate"].get("query") == q]
        if recorded != [(counted, limit)]:
            raise CertificateError(f"step hardmax-subsets: query {q!r} records {recorded} sets of keys, there are {counted}")
    for st in _steps(cert, "softmax-retrieval-margin"):
        _check_softmax_margin(st["certificate"], scores, len(keys), cert["claim"].get("eps"))


def _check_softmax_margin(c: dict, scores: list, n: int, claimed_eps) -> None:
    """least gap g >= beta with (n-1) exp(-beta) / (1 + (n-1) exp(-beta)) <= eps, by the
    rational Taylor referee (an upper bound of exp(-beta)); beta is the certified bound
    of :func:`symrel.softmax.retrieval.retrieval_bound`, recomputed."""
    from ..softmax.retrieval import retrieval_bound
    from ..softmax.taylor import exp_bounds

    eps, beta = rational(c["eps"]), rational(c["beta_bound"])
    if claimed_eps is None or rational(claimed_eps) != eps or c.get("keys") != n:
        raise CertificateError("step softmax-retrieval-margin: eps or the number of keys differs from the claim")
    if retrieval_bound(n, Q(1), eps).lam != beta:
        raise CertificateError("step softmax-retrieval-margin: the recorded beta bound is not the certified one")
    gaps = []
    for row in scores:
        levels = sorted(set(row))
        gaps += [b - a for a, b in zip(levels, levels[1:])]
    if not gaps:
        return
    if min(gaps) < beta or (c.get("least_gap") is not None and rational(c["least_gap"]) != min(gaps)):
        raise CertificateError("step softmax-retrieval-margin: the least score gap is not as recorded or below beta")
    loss = (n - 1) * exp_bounds(-beta)[1]
    if loss / (1 + loss) > eps:
        raise CertificateError("step softmax-retrieval-margin: the weight loss at beta exceeds eps")
