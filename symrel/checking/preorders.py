"""Checkers of utility and retrieval certificates.

The embedded preorder is read as the plain relation it lists
(:class:`~symrel.fileformat.trusted.PreorderTable`: ``x <= y`` iff ``x == y`` or
``[x, y]`` is listed); nothing of :mod:`symrel.preorders` takes part.

* ``utility`` (steps ``complete-preorder``, ``utility-pairwise``, ``utility-gap``):
  ``x <= y iff u(x) <= u(y)`` on every ordered pair (so the preorder is complete),
  with ``elements`` = n, ``classes`` = the number of utility levels, ``pairs`` = n^2,
  and the levels ``0, 1, .., levels - 1`` (``gap`` = 1);
* ``richter-peleg-utility`` (``richter-peleg-pairwise``, ``chain-level``):
  ``x < y => u(x) < u(y)`` and ``x ~ y => u(x) = u(y)`` on the ``related_pairs``
  related pairs (reflexive ones included), and u is the chain level the proof relied
  on: ``u(y) = 0`` without a strict predecessor, else ``1 + max u(x)`` over them;
* ``multi-utility`` (``multi-utility-pairwise``): ``x <= y iff u_k(x) <= u_k(y) for all k``
  on the ``pairs`` = n^2 pairs, each ``u_k`` the positions ``0..c-1`` of the c classes;
* ``retrieval`` (``exact-evaluation``, for each query once, in any order, its
  ``score-order-pairwise`` (exactly when the
  scores represent the query's preorder on every pair) and
  ``hardmax-subsets``, then ``softmax-retrieval-margin`` when the claim has ``eps``):
  the scores ``<phi_q(x), phi_k(y)>`` of the embedded ReLU nets; per query, the
  score order against the preorder on every pair; hardmax on every set of at most
  ``max_subset`` keys returns its maximal keys, averaged; the softmax margin: the
  least gap g between distinct scores of a query is at least the recorded
  ``beta_bound`` beta, ``(n-1) e^-beta <= eps / (1 - eps)`` (so the weight on the
  maximal keys of any set is ``>= 1/(1 + (n-1) e^-beta) >= 1 - eps``) and beta is
  within 0.1% of the least such beta (``(n-1) e^(-0.999 beta) > eps / (1 - eps)``),
  with the checker's own bounds of ``exp`` (:mod:`symrel.checking.exp_bounds`);
  beta = 0 when ``(n-1)(1-eps) <= eps`` (every beta works).
"""

from __future__ import annotations

from itertools import combinations

from ..exact import Q, rational
from ..models import hardmax
from . import CertificateError, at_step, claim_checker
from .exp_bounds import exp_lower, exp_upper


def _number(value, path):
    try:
        return rational(value, path=path)
    except Exception as err:  # an InputError: not an exact rational
        raise CertificateError(str(err), path=path) from None


def _fields(step: dict, i: int, keys: set) -> dict:
    """The step's recorded data, which must hold exactly ``keys``."""
    at_step(i)
    data = step["certificate"]
    if set(data) != keys:
        raise CertificateError(f"expected the fields {sorted(keys)}, got {sorted(data)}", path=f"steps[{i}].certificate")
    return data


def _equal(data: dict, key: str, want, i: int) -> None:
    got = data[key]
    if isinstance(got, bool) or not isinstance(got, int) or got != want:
        raise CertificateError(f"recorded {got!r}, recomputed {want}", path=f"steps[{i}].certificate.{key}")


def _table(raw, names, where: str) -> dict:
    if not isinstance(raw, dict) or set(raw) != set(names):
        raise CertificateError("expected one utility per element of the preorder", path=where)
    return {x: _number(v, f"{where}.{x}") for x, v in raw.items()}


def _preorder(inputs):
    P = inputs.get("preorder")
    if P is None or not hasattr(P, "pairs"):
        raise CertificateError("expected a preorder", path="inputs.preorder")
    return P


def _order(*rules):
    return lambda claim, inputs: list(rules)


@claim_checker("utility", rules={"complete-preorder", "utility-pairwise", "utility-gap"},
               order=_order("complete-preorder", "utility-pairwise", "utility-gap"))
def check_utility(cert: dict, inputs: dict) -> None:
    P = _preorder(inputs)
    names = P.elements
    u = _table(cert["claim"]["utility"], names, "claim.utility")
    for x in names:
        for y in names:
            if P.leq(x, y) != (u[x] <= u[y]):
                raise CertificateError(f"x <= y iff u(x) <= u(y) fails at x = {x!r}, y = {y!r}", path="claim.utility")
    levels = sorted(set(u.values()))
    n, steps = len(names), cert["steps"]
    data = _fields(steps[0], 0, {"elements", "classes"})
    _equal(data, "elements", n, 0)
    _equal(data, "classes", len(levels), 0)
    _equal(_fields(steps[1], 1, {"pairs"}), "pairs", n * n, 1)
    data = _fields(steps[2], 2, {"gap", "levels"})
    _equal(data, "gap", 1, 2)
    _equal(data, "levels", len(levels), 2)
    if levels != [Q(k) for k in range(len(levels))]:
        raise CertificateError("the utility levels are not 0, 1, 2, .. (the rank in the chain)", path="claim.utility")


@claim_checker("richter-peleg-utility", rules={"richter-peleg-pairwise", "chain-level"},
               order=_order("richter-peleg-pairwise", "chain-level"))
def check_richter_peleg(cert: dict, inputs: dict) -> None:
    P = _preorder(inputs)
    names = P.elements
    u = _table(cert["claim"]["utility"], names, "claim.utility")
    related = [(x, y) for x in names for y in names if P.leq(x, y)]
    for x, y in related:
        indifferent = P.leq(y, x)
        if (indifferent and u[x] != u[y]) or (not indifferent and not u[x] < u[y]):
            raise CertificateError(f"not a Richter-Peleg utility at {x!r} <= {y!r}", path="claim.utility")
    steps = cert["steps"]
    _equal(_fields(steps[0], 0, {"related_pairs"}), "related_pairs", len(related), 0)
    _equal(_fields(steps[1], 1, {"elements"}), "elements", len(names), 1)
    for y in names:
        below = [u[x] + 1 for x in names if P.leq(x, y) and not P.leq(y, x)]
        if u[y] != max(below, default=Q(0)):
            raise CertificateError(f"u({y!r}) is not the chain level (0, or one more than the best strictly below)",
                                   path=f"claim.utility.{y}")


@claim_checker("multi-utility", rules={"multi-utility-pairwise"}, order=_order("multi-utility-pairwise"))
def check_multi_utility(cert: dict, inputs: dict) -> None:
    P = _preorder(inputs)
    names = P.elements
    family = cert["claim"]["utilities"]
    if not isinstance(family, list) or not family:
        raise CertificateError("expected a non-empty list of utilities", path="claim.utilities")
    family = [_table(u, names, f"claim.utilities[{k}]") for k, u in enumerate(family)]
    classes = len({frozenset(y for y in names if P.leq(x, y) and P.leq(y, x)) for x in names})
    for k, u in enumerate(family):
        if sorted(set(u.values())) != [Q(i) for i in range(classes)]:
            raise CertificateError(f"expected the positions 0..{classes - 1} of the classes in a linear extension",
                                   path=f"claim.utilities[{k}]")
    for x in names:
        for y in names:
            if P.leq(x, y) != all(u[x] <= u[y] for u in family):
                raise CertificateError(f"x <= y iff u_k(x) <= u_k(y) for all k fails at {x!r}, {y!r}", path="claim.utilities")
    _equal(_fields(cert["steps"][0], 0, {"pairs"}), "pairs", len(names) ** 2, 0)


def _retrieval_order(claim, inputs):
    task = inputs.get("task")
    queries = [q for q, _ in task.queries] if hasattr(task, "queries") else []
    out = ["exact-evaluation"]
    for _ in queries:
        out += ["score-order-pairwise?", "hardmax-subsets"]
    return out + (["softmax-retrieval-margin"] if "eps" in claim else [])


@claim_checker("retrieval", rules={"exact-evaluation", "score-order-pairwise", "hardmax-subsets", "softmax-retrieval-margin"},
               order=_retrieval_order)
def check_retrieval(cert: dict, inputs: dict) -> None:
    task, phi_q, phi_k = inputs.get("task"), inputs.get("phi_q"), inputs.get("phi_k")
    if not hasattr(task, "preorders") or phi_q is None or phi_k is None:
        raise CertificateError("expected a retrieval task and the feature maps phi_q, phi_k", path="inputs")
    keys = [k for k, _ in task.keys]
    n = len(keys)
    Fk = [phi_k.evaluate_exact(list(y)) for _, y in task.keys]
    scores = {q: dict(zip(keys, (sum((a * b for a, b in zip(phi_q.evaluate_exact(list(x)), fk)), Q(0)) for fk in Fk)))
              for q, x in task.queries}
    steps = cert["steps"]
    recorded = _fields(steps[0], 0, {"scores"})["scores"]
    if not isinstance(recorded, dict) or set(recorded) != set(scores):
        raise CertificateError("expected one row of scores per query", path="steps[0].certificate.scores")
    for q, row in scores.items():
        if not isinstance(recorded[q], dict) or set(recorded[q]) != set(keys):
            raise CertificateError("expected one score per key", path=f"steps[0].certificate.scores.{q}")
        for k in keys:
            if _number(recorded[q][k], f"steps[0].certificate.scores.{q}.{k}") != row[k]:
                raise CertificateError(f"recorded {recorded[q][k]}, but <phi_q(x), phi_k(y)> = {row[k]}",
                                       path=f"steps[0].certificate.scores.{q}.{k}")
    limit = cert["claim"]["max_subset"]
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= n:
        raise CertificateError(f"expected a subset size from 1 to the {n} keys", path="claim.max_subset")
    subsets = [s for size in range(1, limit + 1) for s in combinations(keys, size)]
    i = 1
    seen = set()
    for _ in task.queries:  # each query once, its steps together (in the prover's order of queries)
        q = steps[i]["certificate"].get("query")
        if q not in scores or q in seen:
            raise CertificateError(f"expected a query of the task not checked before, got {q!r}",
                                   path=f"steps[{i}].certificate.query")
        seen.add(q)
        P, s = task.preorders[q], scores[q]
        represented = all(P.leq(y, z) == (s[y] <= s[z]) for y in keys for z in keys)
        if represented != (steps[i]["rule"] == "score-order-pairwise"):
            raise CertificateError(f"query {q!r}: a score-order-pairwise step is there exactly when the scores represent "
                                   f"the preorder ({'they do' if represented else 'they do not'})", path=f"steps[{i}].rule")
        if represented:
            data = _fields(steps[i], i, {"query", "pairs"})
            if data["query"] != q:
                raise CertificateError(f"expected query {q!r} here", path=f"steps[{i}].certificate.query")
            _equal(data, "pairs", n * n, i)
            for y in keys:
                for z in keys:
                    if P.leq(y, z) != (s[y] <= s[z]):
                        raise CertificateError(f"query {q!r}: y <= z iff score(y) <= score(z) fails at {y!r}, {z!r}",
                                               path=f"steps[{i}]")
            i += 1
        data = _fields(steps[i], i, {"query", "max_subset", "subsets"})
        if data["query"] != q:
            raise CertificateError(f"expected query {q!r} here (its steps together)", path=f"steps[{i}].certificate.query")
        _equal(data, "max_subset", limit, i)
        _equal(data, "subsets", len(subsets), i)
        for subset in subsets:
            top = [y for y in subset if all(P.leq(z, y) for z in subset if P.leq(y, z))]
            want = [Q(1, len(top)) if y in top else Q(0) for y in subset]
            if hardmax([s[y] for y in subset]) != want:
                raise CertificateError(f"query {q!r}, keys {list(subset)}: hardmax is not on the maximal keys",
                                       path=f"steps[{i}]")
        i += 1
    if "eps" in cert["claim"]:
        _check_softmax_margin(steps[i], i, scores, n, _number(cert["claim"]["eps"], "claim.eps"))


def _check_softmax_margin(step: dict, i: int, scores: dict, n: int, eps) -> None:
    """Module docstring, ``softmax-retrieval-margin``."""
    data = _fields(step, i, {"eps", "keys", "least_gap", "beta_bound"})
    where = f"steps[{i}].certificate"
    if _number(data["eps"], f"{where}.eps") != eps or not 0 < eps < 1:
        raise CertificateError(f"expected the claim's eps {eps} (0 < eps < 1)", path=f"{where}.eps")
    _equal(data, "keys", n, i)
    gaps = []
    for row in scores.values():
        levels = sorted(set(row.values()))
        gaps += [b - a for a, b in zip(levels, levels[1:])]
    least = min(gaps) if gaps else None
    recorded = None if data["least_gap"] is None else _number(data["least_gap"], f"{where}.least_gap")
    if recorded != least:
        raise CertificateError(f"recorded {data['least_gap']}, recomputed {least}", path=f"{where}.least_gap")
    beta = _number(data["beta_bound"], f"{where}.beta_bound")
    target = eps / (1 - eps)  # weight off the maximal keys L/(1+L) <= eps  iff  L <= eps/(1-eps)
    if (n - 1) * (1 - eps) <= eps:  # weight >= 1/n >= 1 - eps at every beta
        if beta != 0:
            raise CertificateError(f"every beta works here, so the bound is 0, not {beta}", path=f"{where}.beta_bound")
        return
    if beta <= 0 or (least is not None and least < beta):
        raise CertificateError(f"the least score gap {least} is below beta {beta} (or beta <= 0)", path=f"{where}.beta_bound")
    if (n - 1) * exp_upper(-beta) > target:
        raise CertificateError(f"at beta {beta} the softmax weight off the maximal keys may exceed eps", path=f"{where}.beta_bound")
    if not (n - 1) * exp_lower(-beta * Q(999, 1000)) > target:
        raise CertificateError(f"beta {beta} is more than 0.1% above the least beta that suffices", path=f"{where}.beta_bound")
