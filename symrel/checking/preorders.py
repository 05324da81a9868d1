"""Checkers of utility and retrieval certificates.

The embedded preorder is read as the plain relation it lists
(:class:`~symrel.checking.tables.PreorderTable`: ``x <= y`` iff ``x == y`` or
``[x, y]`` is listed); nothing of :mod:`symrel.preorders` takes part. Every claim kind
here first checks that the relation is a preorder (transitive; reflexive pairs are
implied), as ``symrel preorder`` does, and refuses it otherwise with a witness
``x <= y, y <= z, not x <= z``.

Cost: the relation is kept as one bitmask of n bits per element, so the pairwise checks
take O(m n / 64) word operations for m listed pairs (utilities: O(K n log n) comparisons
and K n masks for K utilities), never a loop over all n^2 pairs in Python; at most
:data:`MAX_ELEMENTS` elements. A retrieval certificate counts its sets with binomials and
refuses more than :data:`MAX_SUBSETS` hardmax evaluations before it builds any set
(docs/format.md, "Limits of the checker").

>>> from symrel.checking.tables import PreorderTable
>>> R = _Relation(PreorderTable(("a", "b", "c"), frozenset({("a", "b"), ("b", "c")})), "preorder")
>>> try:
...     R.transitivity()
... except CertificateError as err:
...     print(err)
preorder.leq: not a preorder: not transitive: 'a' <= 'b' and 'b' <= 'c' but not 'a' <= 'c'

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
from math import comb

from ..exact import Q
from ..exact.sizes import check_product_bits, fan_in_bits, number_bits
from . import CertificateError, at_step, beyond_limit, claim_checker, read
from .exp_bounds import exp_lower, exp_upper

#: the most elements a preorder (the keys of a retrieval task) may have: the checks keep one
#: bitmask of n bits per element, so n^2 / 8 bytes
MAX_ELEMENTS = 4096
#: the most hardmax evaluations of a retrieval certificate in all (queries x sets of at most
#: ``max_subset`` keys), counted before any set is built
MAX_SUBSETS = 2_000_000



def hardmax(scores) -> list:
    """Weights ``1/|M|`` on the argmax set M of ``scores``, 0 elsewhere: the definition of
    :func:`symrel.models.transformer.hardmax`, written here so that a retrieval check does
    not load the Transformer's module (docs/trust.md).

    >>> [str(w) for w in hardmax([Q(1), Q(3), Q(3)])]
    ['0', '1/2', '1/2']
    """
    top = max(scores)
    weight = Q(1, sum(1 for s in scores if s == top))
    return [weight if s == top else Q(0) for s in scores]


_number = read.rational


def _fields(step: dict, i: int, keys: set) -> dict:
    """The step's recorded data, which must hold exactly ``keys``."""
    at_step(i)
    return read.record(step["certificate"], f"steps[{i}].certificate", sorted(keys))


def _equal(data: dict, key: str, want, i: int) -> None:
    got = read.integer(data[key], f"steps[{i}].certificate.{key}")
    if got != want:
        raise CertificateError(f"recorded {got!r}, recomputed {want}", path=f"steps[{i}].certificate.{key}")


def _table(raw, names, where: str) -> list:
    """One rational per element (a record of exactly the elements), in the order of ``names``."""
    read.record(raw, where, names)
    return [_number(raw[x], f"{where}.{x}") for x in names]


def _lowest(mask: int) -> int:
    """The index of the lowest set bit of ``mask`` (nonzero)."""
    return (mask & -mask).bit_length() - 1


class _Relation:
    """A listed relation (``x <= y`` iff ``x == y`` or ``[x, y]`` is listed) on the elements
    ``0..n-1`` as bitmasks: ``up[i]`` has bit j when ``i <= j``, ``down[j]`` bit i. Building it
    and :meth:`transitivity` cost O(n + m n / 64) word operations for m listed pairs."""

    def __init__(self, P, where: str, names=None):
        names = P.elements if names is None else names  # (a retrieval task's preorders: in the keys' order)
        if len(names) > MAX_ELEMENTS:
            raise beyond_limit("preorder elements", len(names), MAX_ELEMENTS, f"{where}.elements")
        self.names, self.where = names, where
        index = {x: i for i, x in enumerate(names)}
        self.up = [1 << i for i in range(len(names))]
        self.down = list(self.up)
        #: the listed pairs i != j, sorted (so that a witness does not depend on hashing)
        self.pairs = sorted((index[x], index[y]) for x, y in P.pairs if x != y)
        for i, j in self.pairs:
            self.up[i] |= 1 << j
            self.down[j] |= 1 << i

    def leq(self, i: int, j: int) -> bool:
        return bool(self.up[i] >> j & 1)

    def transitivity(self) -> None:
        """Refuse a relation that is not transitive, as ``symrel preorder`` does: for every
        listed ``x <= y``, everything above y is above x (reflexivity is implied)."""
        for i, j in self.pairs:
            missing = self.up[j] & ~self.up[i]
            if missing:
                x, y, z = self.names[i], self.names[j], self.names[_lowest(missing)]
                raise CertificateError(f"not a preorder: not transitive: {x!r} <= {y!r} and {y!r} <= {z!r} but not "
                                       f"{x!r} <= {z!r}", path=f"{self.where}.leq")

    def classes(self) -> int:
        """The number of indifference classes (``x ~ y`` iff ``x <= y`` and ``y <= x``)."""
        return len({u & d for u, d in zip(self.up, self.down)})


def _at_least(values: list) -> list:
    """``out[i]`` has bit j exactly when ``values[i] <= values[j]`` (n log n comparisons, n masks)."""
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    out, acc, k = [0] * len(values), 0, 0
    while k < len(order):
        group = [order[k]]
        while k + len(group) < len(order) and values[order[k + len(group)]] == values[order[k]]:
            group.append(order[k + len(group)])
        for i in group:
            acc |= 1 << i
        for i in group:
            out[i] = acc
        k += len(group)
    return out


def _preorder(inputs) -> _Relation:
    P = inputs.get("preorder")
    if P is None or not hasattr(P, "pairs"):
        raise CertificateError("expected a preorder", path="inputs.preorder")
    R = _Relation(P, "inputs.preorder.object")
    R.transitivity()
    return R


def _order(*rules):
    return lambda claim, inputs: list(rules)


@claim_checker("utility", rules={"complete-preorder", "utility-pairwise", "utility-gap"},
               order=_order("complete-preorder", "utility-pairwise", "utility-gap"))
def check_utility(cert: dict, inputs: dict) -> None:
    """``x <= y iff u(x) <= u(y)`` on every ordered pair, compared as bitmasks of the ``y``
    above each ``x`` (module docstring)."""
    R = _preorder(inputs)
    names = R.names
    u = _table(cert["claim"]["utility"], names, "claim.utility")
    for i, mask in enumerate(_at_least(u)):
        if mask != R.up[i]:
            j = _lowest(mask ^ R.up[i])
            raise CertificateError(f"x <= y iff u(x) <= u(y) fails at x = {names[i]!r}, y = {names[j]!r}",
                                   path="claim.utility")
    levels = sorted(set(u))
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
    """On every listed pair (the reflexive ones hold trivially), then the chain level."""
    R = _preorder(inputs)
    names = R.names
    u = _table(cert["claim"]["utility"], names, "claim.utility")
    below = [Q(0)] * len(names)  # 0, or one more than the best strictly below
    for i, j in R.pairs:
        indifferent = R.leq(j, i)
        if (indifferent and u[i] != u[j]) or (not indifferent and not u[i] < u[j]):
            raise CertificateError(f"not a Richter-Peleg utility at {names[i]!r} <= {names[j]!r}", path="claim.utility")
        if not indifferent:
            below[j] = max(below[j], u[i] + 1)
    steps = cert["steps"]
    _equal(_fields(steps[0], 0, {"related_pairs"}), "related_pairs", len(names) + len(R.pairs), 0)
    _equal(_fields(steps[1], 1, {"elements"}), "elements", len(names), 1)
    for y, (level, want) in enumerate(zip(u, below)):
        if level != want:
            raise CertificateError(f"u({names[y]!r}) is not the chain level (0, or one more than the best strictly below)",
                                   path=f"claim.utility.{names[y]}")


@claim_checker("multi-utility", rules={"multi-utility-pairwise"}, order=_order("multi-utility-pairwise"))
def check_multi_utility(cert: dict, inputs: dict) -> None:
    """Each ``u_k`` takes the positions 0..c-1; ``x <= y`` iff ``u_k(x) <= u_k(y)`` for all k,
    as bitmasks: the ``y`` above ``x`` are the intersection over k of those with
    ``u_k(x) <= u_k(y)`` (O(K n log n) comparisons and K n masks)."""
    R = _preorder(inputs)
    names = R.names
    family = read.array(cert["claim"]["utilities"], "claim.utilities")
    if not family:
        raise CertificateError("expected a non-empty list of utilities", path="claim.utilities")
    family = [_table(u, names, f"claim.utilities[{k}]") for k, u in enumerate(family)]
    classes = R.classes()
    everything = (1 << len(names)) - 1
    above = [everything] * len(names)
    for k, u in enumerate(family):
        if sorted(set(u)) != [Q(i) for i in range(classes)]:
            raise CertificateError(f"expected the positions 0..{classes - 1} of the classes in a linear extension",
                                   path=f"claim.utilities[{k}]")
        above = [a & b for a, b in zip(above, _at_least(u))]
    for i, mask in enumerate(above):
        if mask != R.up[i]:
            j = _lowest(mask ^ R.up[i])
            raise CertificateError(f"x <= y iff u_k(x) <= u_k(y) for all k fails at {names[i]!r}, {names[j]!r}",
                                   path="claim.utilities")
    _equal(_fields(cert["steps"][0], 0, {"pairs"}), "pairs", len(names) ** 2, 0)


def _retrieval_order(claim, inputs):
    task = inputs.get("task")
    queries = [q for q, _ in task.queries] if hasattr(task, "queries") else []
    out = ["exact-evaluation"]
    for _ in queries:
        out += ["score-order-pairwise?", "hardmax-subsets"]
    return out + (["softmax-retrieval-margin"] if "eps" in claim else [])


def _vectors(named, model, side: str) -> list:
    """``model`` at every named vector of the task, in file order, after comparing every
    dimension: the vectors' with the net's input, the values' with its output."""
    where = f"inputs.phi_{side[0]}"
    out = []
    for name, x in named:
        if len(x) != model.input_dim:
            raise CertificateError(f"phi_{side[0]} takes {model.input_dim} inputs, but {side} {name!r} has {len(x)} "
                                   "coordinates", path=f"inputs.task.object.{side}s.{name}")
        y = list(model.evaluate_exact(list(x)))
        if len(y) != model.output_dim:  # the semantics' own promise, kept honest here
            raise CertificateError(f"phi_{side[0]}({name!r}) has {len(y)} coordinates, not {model.output_dim}",
                                   path=where)
        out.append(y)
    return out


def _subset_count(n: int, limit: int, queries: int) -> int:
    """The sets of 1..limit of the n keys, per query, refused beyond :data:`MAX_SUBSETS`
    hardmax evaluations in all (counted with binomials, before any set is built)."""
    count = sum(comb(n, size) for size in range(1, limit + 1))
    if count * queries > MAX_SUBSETS:
        raise beyond_limit("retrieval hardmax evaluations", f"{queries} queries x {count} sets of at most {limit} keys",
                           MAX_SUBSETS, "claim.max_subset")
    return count


@claim_checker("retrieval", rules={"exact-evaluation", "score-order-pairwise", "hardmax-subsets", "softmax-retrieval-margin"},
               order=_retrieval_order)
def check_retrieval(cert: dict, inputs: dict) -> None:
    """Module docstring, ``retrieval``: scores, then per query its pairwise step (exactly when the
    scores represent the preorder) and every set of at most ``max_subset`` keys, then the margin."""
    task, phi_q, phi_k = inputs.get("task"), inputs.get("phi_q"), inputs.get("phi_k")
    if not hasattr(task, "preorders") or not hasattr(phi_q, "output_dim") or not hasattr(phi_k, "output_dim"):
        raise CertificateError("expected a retrieval task and the feature maps phi_q, phi_k", path="inputs")
    if phi_q.output_dim != phi_k.output_dim:
        raise CertificateError(f"phi_q has {phi_q.output_dim} outputs and phi_k {phi_k.output_dim}: the score "
                               "<phi_q(x), phi_k(y)> needs one dimension", path="inputs.phi_k")
    keys = [k for k, _ in task.keys]
    n = len(keys)
    relations = {}
    for q, _ in task.queries:
        relations[q] = R = _Relation(task.preorders[q], f"inputs.task.object.preorders.{q}", keys)
        R.transitivity()
    # the features and their inner products, bounded before any is computed (symrel.exact.sizes)
    from .cell_replay import evaluation_bits

    bits = evaluation_bits(phi_k, number_bits([v for _, x in task.keys for v in x], where="inputs.task.object.keys")) \
        + evaluation_bits(phi_q, number_bits([v for _, x in task.queries for v in x],
                                             where="inputs.task.object.queries"))
    check_product_bits(bits + fan_in_bits(phi_q.output_dim), where="inputs.phi_q", what="a score <phi_q(x), phi_k(y)>")
    Fk = _vectors(task.keys, phi_k, "key")
    Fq = _vectors(task.queries, phi_q, "query")
    scores = {q: [sum((a * b for a, b in zip(fq, fk)), Q(0)) for fk in Fk] for (q, _), fq in zip(task.queries, Fq)}
    steps = cert["steps"]
    recorded = _fields(steps[0], 0, {"scores"})["scores"]
    read.record(recorded, "steps[0].certificate.scores", list(scores))  # one row per query
    for q, row in scores.items():
        read.record(recorded[q], f"steps[0].certificate.scores.{q}", keys)  # one score per key
        for k, want in zip(keys, row):
            if _number(recorded[q][k], f"steps[0].certificate.scores.{q}.{k}") != want:
                raise CertificateError(f"recorded {recorded[q][k]}, but <phi_q(x), phi_k(y)> = {want}",
                                       path=f"steps[0].certificate.scores.{q}.{k}")
    limit = read.integer(cert["claim"]["max_subset"], "claim.max_subset")
    if not 1 <= limit <= n:
        raise CertificateError(f"expected a subset size from 1 to the {n} keys", path="claim.max_subset")
    count = _subset_count(n, limit, len(task.queries))
    i = 1
    seen = set()
    for _ in task.queries:  # each query once, its steps together (in the prover's order of queries)
        q = read.string(steps[i]["certificate"].get("query"), f"steps[{i}].certificate.query")
        if q not in scores or q in seen:
            raise CertificateError(f"expected a query of the task not checked before, got {q!r}",
                                   path=f"steps[{i}].certificate.query")
        seen.add(q)
        R, s = relations[q], scores[q]
        represented = all(a == b for a, b in zip(_at_least(s), R.up))
        if represented != (steps[i]["rule"] == "score-order-pairwise"):
            raise CertificateError(f"query {q!r}: a score-order-pairwise step is there exactly when the scores represent "
                                   f"the preorder ({'they do' if represented else 'they do not'})", path=f"steps[{i}].rule")
        if represented:
            data = _fields(steps[i], i, {"query", "pairs"})
            if data["query"] != q:
                raise CertificateError(f"expected query {q!r} here", path=f"steps[{i}].certificate.query")
            _equal(data, "pairs", n * n, i)
            i += 1
        data = _fields(steps[i], i, {"query", "max_subset", "subsets"})
        if data["query"] != q:
            raise CertificateError(f"expected query {q!r} here (its steps together)", path=f"steps[{i}].certificate.query")
        _equal(data, "max_subset", limit, i)
        _equal(data, "subsets", count, i)
        for size in range(1, limit + 1):
            for subset in combinations(range(n), size):
                top = [y for y in subset if all(R.leq(z, y) for z in subset if R.leq(y, z))]
                want = [Q(1, len(top)) if y in top else Q(0) for y in subset]
                if hardmax([s[y] for y in subset]) != want:
                    raise CertificateError(f"query {q!r}, keys {[keys[y] for y in subset]}: hardmax is not on the "
                                           "maximal keys", path=f"steps[{i}]")
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
        levels = sorted(set(row))
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


# -- what a checked certificate proves (symrel.checking.claims) ----------------------------
from .claims import claim_statement, number_words  # noqa: E402  (the hooks below the checkers)
from .read import rational as _rational  # noqa: E402


@claim_statement("utility", keys=("utility",), inputs=("preorder",))
def utility_statement(claim, inputs) -> str:
    """claim.utility represents the preorder."""
    n = len(inputs["preorder"].elements)
    return (f"the utility u of claim.utility represents the preorder on its {n} elements: for all x, y, "
            f"x <= y iff u(x) <= u(y)")


@claim_statement("richter-peleg-utility", keys=("utility",), inputs=("preorder",))
def richter_peleg_statement(claim, inputs) -> str:
    """claim.utility is the Richter-Peleg utility of the preorder (longest strict chains)."""
    n = len(inputs["preorder"].elements)
    return (f"the utility u of claim.utility is a Richter-Peleg utility of the preorder on its {n} elements: "
            f"x < y implies u(x) < u(y) and x ~ y implies u(x) = u(y); u(y) is the length of the longest strict "
            f"chain below y")


@claim_statement("multi-utility", keys=("utilities",), inputs=("preorder",))
def multi_utility_statement(claim, inputs) -> str:
    """The family claim.utilities represents the preorder."""
    n, k = len(inputs["preorder"].elements), len(claim["utilities"])
    return (f"the {k} utilities u_k of claim.utilities represent the preorder on its {n} elements: for all x, y, "
            f"x <= y iff u_k(x) <= u_k(y) for every k")


@claim_statement("retrieval", keys=("max_subset",), optional=("eps",), inputs=("task", "phi_q", "phi_k"))
def retrieval_statement(claim, inputs) -> str:
    """Hardmax (and with eps, softmax) attention retrieves the maximal keys of every small set."""
    task = inputs["task"]
    out = (f"for each of the {len(task.queries)} queries x and every non-empty set S of at most "
           f"{claim['max_subset']} of the {len(task.keys)} keys, hardmax attention with scores "
           f"<phi_q(x), phi_k(y)> puts weight 1/|M| on each <=_x-maximal key of S (M) and 0 elsewhere")
    if "eps" in claim:
        out += f"; softmax (scale 1) puts weight >= 1 - {number_words(_rational(claim['eps'], 'claim.eps'))} on M"
    return out
