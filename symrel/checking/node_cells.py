"""Checker of the ``node-cells`` step: the outputs' differences vanish on every cell of the
nodes they depend on.

Written apart from the prover (:mod:`symrel.prover.normal_form_decision`); it reads the
replayed variables of :mod:`symrel.checking.equivalence` (max nodes and select nodes, each
re-derived from the models) and the step's tree, and re-derives:

* the recorded outputs of A and B are the replayed ones; ``g_r = A_r - B_r``;
* the dependency closure of the ``g_r`` (nodes, and the nodes their terms and scores use),
  in increasing order, is the recorded node list;
* the first ones of them may be *relaxed*: each becomes a variable ``y_v`` with its exact
  range and, for a max node, ``y_v >= t`` for every term t (every point of D with its true
  node values satisfies these rows, so what holds on the relaxed set holds on D);
* the tree decides the other nodes in that order. At each node the checker itself lists the
  outcomes, which partition the cell: for ``max(t_0, .., t_k)`` "t_i is the first
  maximiser" (``t_j - t_i < 0`` for j < i, ``<= 0`` for j > i); for a select node "S is the
  argmax set" (``s_j - s_i = 0`` on S, ``s_k - s_i < 0`` off S), sizes descending. Every
  outcome appears in that order, either closed by a Farkas vector of the cell's rows plus
  its own (multipliers >= 0 on the inequalities, their absolute values adding
  up to 1) or as a subtree; an outcome marked *implied* (its rows not added) must be the
  only one that is not closed;
* on each leaf every node is affine in x; for every r, ``g_r`` is the zero form there, or
  the systems "cell and g_r > 0" and "cell and g_r < 0" each have a Farkas vector.

The leaves cover D (the outcomes partition every cell) and on each of them ``A = B``: the
claim holds. Cost: one Farkas check per closed outcome and two per differing output and leaf.
"""

from __future__ import annotations

import itertools

from ..exact import Q
from ..exact.sizes import common_denominator_bits
from . import CertificateError, MalformedCertificate
from .kernel import key, minus, read_form, single_var
from .read import array, natural, rational, record

ZERO = Q(0)


def as_rational_form(f):
    """``f`` as ``(const, {v: coeff})`` over Q (the decided nodes are substituted in Q)."""
    d, c, co = f
    inv = Q(1, d)
    return Q(c) * inv, {v: Q(x) * inv for v, x in co.items()}


# -- select nodes (rule hardmax-select): declared by the replay, decided by this step ---------
def declare_select(replay, nd, nid, terms, recorded, at) -> None:
    """Declare node ``nid``, the select node of the record ``nd`` (at the JSON path ``at``): the
    values ``terms`` averaged over the argmax set of its scores. Rule: one value per score, not
    declared before (the same scores and values), and its range, the recorded one, is
    ``[min lo_i, max hi_i]`` over its values' exact ranges on the box."""
    scores = [read_form(t, ("{}.scores[{}]", at, j)) for j, t in enumerate(array(nd["scores"], f"{at}.scores"))]
    if len(scores) != len(terms) or not terms:
        replay.fail(f"node y{nid}: a select node needs one value per score")
    sel = ("select", tuple(key(t) for t in scores), tuple(key(t) for t in terms))
    if sel in replay.node_of:
        replay.fail(f"node y{nid}: an existing node declared again")
    for t in scores:
        replay.bounds(t)
    rs = [replay.bounds(t) for t in terms]
    rng = (min(lo for lo, _ in rs), max(hi for _, hi in rs))
    if recorded != rng:
        replay.fail(f"node y{nid}: range {nd['range']} differs from the recomputed [{rng[0]}, {rng[1]}]")
    replay.ranges.append(rng)
    replay.node_select[nid] = (scores, terms)
    replay.node_of[sel] = nid


def select_head(scores, values, rec, replay):
    """A hardmax head's output as select nodes (rule ``hardmax-select``), one per value
    coordinate, each declared with exactly these scores and this coordinate's values on every
    token."""
    if not isinstance(rec.get("result"), list):
        replay.fail("expected the result as a list of forms")
    out = [read_form(f, ("{}{}.result[{}]", replay.here, replay.field(), i)) for i, f in enumerate(rec["result"])]
    if len(out) != len(values[0]):
        replay.fail("one select node per value coordinate expected")
    for r, f in enumerate(out):
        sel = replay.node_select.get(single_var(f))
        if sel is None or sel[0] != scores or sel[1] != [v[r] for v in values]:
            replay.fail(f"value coordinate {r}: not the select node of these scores and values")
    return out


def _in_x(f, lin, d, n):
    """The form f (of the checker's kernel) in x alone, with the decided nodes substituted:
    ``(coefficients, constant)`` over Q."""
    const, coeffs = as_rational_form(f)
    g, c = [ZERO] * n, const
    for v, a in coeffs.items():
        if v < d:
            g[v] += a
        else:
            if v not in lin:
                raise CertificateError(f"node-cells: variable y{v} is used before it is decided")
            gv, cv = lin[v]
            c += a * cv
            for i in range(n):
                if gv[i]:
                    g[i] += a * gv[i]
    return g, c


def _minus(u, v):
    return [a - b for a, b in zip(u[0], v[0])], u[1] - v[1]


def _mean(parts):
    n, d = len(parts), len(parts[0][0])
    return [sum((p[0][i] for p in parts), ZERO) / n for i in range(d)], sum((p[1] for p in parts), ZERO) / n


def _outcome_count(replay, v) -> int:
    """How many outcomes node y_v has: one per term of a max node, one per non-empty subset
    of the scores (a possible argmax set) of a select node."""
    if v in replay.node_select:
        return 2 ** len(replay.node_select[v][0]) - 1
    return len(replay.node_terms[v])


def _outcomes(replay, v, lin, d, n):
    """The outcomes of node y_v on the current cell, in the order the tree lists them:
    ``(label, rows, value)`` (module docstring). A generator: the caller compares the
    count (:func:`_outcome_count`) with the recorded branches first, and enumerates no
    more outcomes than the certificate lists."""
    if v in replay.node_select:
        scores, values = replay.node_select[v]
        s = [_in_x(f, lin, d, n) for f in scores]
        vals = [_in_x(f, lin, d, n) for f in values]
        T = len(s)
        for size in range(T, 0, -1):
            for S in itertools.combinations(range(T), size):
                i = S[0]
                rows = [(_minus(s[j], s[i]), "=") for j in S[1:]]
                rows += [(_minus(s[k], s[i]), "<") for k in range(T) if k not in S]
                yield list(S), rows, _mean([vals[j] for j in S])
        return
    terms = [_in_x(f, lin, d, n) for f in replay.node_terms[v]]
    for i, t in enumerate(terms):
        yield i, [(_minus(u, t), "<" if j < i else "<=") for j, u in enumerate(terms) if j != i], t


def _same_label(choice, label) -> bool:
    """Whether the recorded ``choice`` is the outcome's label, with its types: an integer
    (not a boolean) for a max node, a list of integers for a select node."""
    if isinstance(label, int):
        return type(choice) is int and choice == label
    return isinstance(choice, list) and all(type(c) is int for c in choice) and choice == label


def _farkas(rows, obj, where, path):
    """Check that the sparse JSON Farkas vector ``obj`` (``[[row, multiplier], ..]``, rows
    distinct and in range) closes the system ``rows`` (each ``((g, c), rel)``: ``g x + c rel 0``
    with ``rel`` one of ``<=``, ``<``, ``=``).

    Rule (Motzkin's transposition theorem): the multipliers are >= 0 on the inequalities (any
    sign on the equalities) and their absolute values add up to 1 (a normalisation); the
    combination ``sum m_i (g_i x + c_i)`` has no x, and its constant is > 0, or = 0 with a
    strict row of positive weight. Every point of the system would make that combination
    ``<= 0`` (``< 0`` with a strict row), so the system is empty. Cost: the listed rows times
    the dimension, never the rows the vector leaves out."""
    if not isinstance(obj, list) or not obj:
        raise CertificateError(f"{where}: expected a non-empty Farkas vector")
    mult: dict[int, object] = {}
    for entry in obj:
        if not isinstance(entry, list) or len(entry) != 2:
            raise MalformedCertificate(f"{where}: expected a Farkas entry [row, multiplier], got {entry!r:.80}")
        i, m = natural(entry[0], path), rational(entry[1], path)
        if not 0 <= i < len(rows) or i in mult:
            raise CertificateError(f"{where}: Farkas row {i} out of range or repeated")
        if m < 0 and rows[i][1] != "=":
            raise CertificateError(f"{where}: Farkas multiplier {m} of inequality row {i} is negative")
        mult[i] = m
    # the multipliers' common denominator, bounded before they are added up (symrel.exact.sizes)
    common_denominator_bits(mult.values(), where=where, what="the multipliers' common denominator")
    if sum((abs(m) for m in mult.values()), ZERO) != 1:
        raise CertificateError(f"{where}: the Farkas multipliers' absolute values do not add up to 1")
    n = len(rows[0][0][0])
    total, const, strict = [ZERO] * n, ZERO, False
    for i, m in mult.items():
        (g, c), rel = rows[i]
        if not m:
            continue
        for j, a in enumerate(g):
            if a:
                total[j] += m * a
        const += m * c
        strict = strict or (rel == "<" and m > 0)
    if any(total) or not (const > 0 or (const == 0 and strict)):
        raise CertificateError(f"{where}: the Farkas vector does not show the system empty")


class _Tree:
    """The decision tree of a node-cells step, checked node by node (module docstring)."""

    def __init__(self, replay, nodes, diffs, d, n):
        self.replay, self.nodes, self.diffs, self.d, self.n, self.cells = replay, nodes, diffs, d, n, 0

    def path(self, where: str) -> str:
        """The JSON path of the tree, with the branch ``where`` (``node-cells/y3=1``) after it."""
        return f"{self.replay.here}.certificate.tree ({where})"

    def check(self, t, k, lin, rows, where):
        """The subtree ``t`` decides nodes ``k, k+1, ..`` on the cell ``rows``.

        Rule: its branches are exactly the outcomes of node k, in order (the count compared
        first, so that a select node of many scores is never enumerated beyond what the file
        lists), each closed by a Farkas vector or decided further; an *implied* branch (its
        rows not added) is the only one left open, so the others being empty it is the whole
        cell. The outcomes partition the cell, so the leaves cover it."""
        if not isinstance(t, dict):
            raise CertificateError(f"{where}: expected an object")
        if k == len(self.nodes):
            record(t, self.path(where), keys=("leaf",))
            return self.leaf(t, lin, rows, where)
        record(t, self.path(where), keys=("node", "branches"))
        v = self.nodes[k]
        if type(t.get("node")) is not int or t.get("node") != v:
            raise CertificateError(f"{where}: expected the decision of node y{v}")
        branches = t.get("branches")
        count = _outcome_count(self.replay, v)
        if not isinstance(branches, list) or len(branches) != count:
            raise CertificateError(f"{where}: expected {count} outcomes of node y{v}")
        open_ = [br for br in branches if isinstance(br, dict) and "sub" in br]
        for (label, new, value), br in zip(_outcomes(self.replay, v, lin, self.d, self.n), branches):
            here = f"{where}/y{v}={label}"
            if not isinstance(br, dict) or not _same_label(br.get("choice"), label):
                raise CertificateError(f"{here}: outcome {label} missing or out of order")
            record(br, self.path(here), optional=("choice", "empty", "constant", "implied", "sub"))
            if ("empty" in br) == ("sub" in br):
                raise CertificateError(f"{here}: expected 'empty' or 'sub'")
            if "empty" in br:
                _farkas(rows + new, br["empty"], here, self.path(here))
            else:
                implied = br.get("implied") is True
                if implied and len(open_) != 1:
                    raise CertificateError(f"{here}: an implied outcome must be the only one left open")
                self.check(br["sub"], k + 1, {**lin, v: value}, rows if implied else rows + new, here)

    def leaf(self, t, lin, rows, where):
        """On a leaf every node is decided, so each output difference is affine in x: it is
        the zero form, or the cell with ``A > B`` and the cell with ``A < B`` are both empty."""
        equal = t.get("leaf")
        if not isinstance(equal, list) or len(equal) != len(self.diffs):
            raise CertificateError(f"{where}: expected a leaf with one entry per output")
        self.cells += 1
        for r, (g, e) in enumerate(zip(self.diffs, equal)):
            ga = _in_x(g, lin, self.d, self.n)
            if not any(ga[0]) and ga[1] == 0:
                continue
            if not isinstance(e, dict):
                raise CertificateError(f"{where}: output {r} differs as a form on this cell; Farkas pair expected")
            record(e, self.path(f"{where}: output {r}"), keys=("pos", "neg"))
            _farkas(rows + [(([-a for a in ga[0]], -ga[1]), "<")], e.get("pos"), f"{where}: output {r}, A > B",
                    self.path(f"{where}: output {r}, pos"))
            _farkas(rows + [(ga, "<")], e.get("neg"), f"{where}: output {r}, A < B", self.path(f"{where}: output {r}, neg"))


def closure(replay, forms) -> list[int]:
    """The nodes the forms depend on, directly or through the terms (scores, values) of
    other nodes, in increasing order."""
    d = replay.dim
    todo = [v for f in forms for v in f[2] if v >= d]
    seen: set[int] = set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in replay.node_select:
            parts = replay.node_select[v][0] + replay.node_select[v][1]
        elif v in replay.node_terms:
            parts = replay.node_terms[v]
        else:
            raise CertificateError(f"node-cells: y{v} is not a node")
        for f in parts:
            todo.extend(u for u in f[2] if u >= d and u not in seen)
    return sorted(seen)


def _indices(replay, value, what):
    """A recorded list of node ids (integers, not booleans or strings)."""
    if not isinstance(value, list):
        replay.fail(f"expected {what} as a list of node ids")
    return [replay.index(v, None, f"[{i}]") for i, v in enumerate(value)]


def check_node_cells(cert: dict, replay, outs, domain) -> None:
    """Check a ``node-cells`` step against the replayed outputs ``outs`` (A's, B's).

    Rule (module docstring): the recorded outputs are the replayed ones; the node list is the
    dependency closure of the differences; the relaxed nodes are its first ones (each kept in
    its range and, for a max node, above its terms: true of every point of D); the tree decides
    the others and its leaves show every difference zero; the recorded cell count is the
    tree's. The domain's own inequalities start every cell, so the cover is of D."""
    replay.compare(outs[0], cert["outputs_a"], "outputs of A")
    replay.compare(outs[1], cert["outputs_b"], "outputs of B")
    diffs = [minus(fa, fb) for fa, fb in zip(outs[0], outs[1])]
    nodes = closure(replay, diffs)
    replay.where = ".certificate.nodes"
    if _indices(replay, cert.get("nodes"), "nodes") != nodes:
        replay.fail(f"the nodes the outputs depend on are {nodes}, not {cert['nodes']}")
    replay.where = ".certificate.free"
    free = _indices(replay, cert.get("free", []), "the relaxed nodes")
    if free != nodes[:len(free)] or len(free) == len(nodes) and nodes:
        replay.fail("the relaxed nodes must be the first nodes of the closure, and some node must be decided")
    d, n = replay.dim, replay.dim + len(free)
    A, b = domain.exact_halfspaces()
    rows = [((list(a) + [ZERO] * len(free), -bi), "<=") for a, bi in zip(A, b)]
    lin: dict = {}
    for i, v in enumerate(free):     # y_v in its range, and above every term of a max node
        unit = [ZERO] * n
        unit[d + i] = Q(1)
        lo, hi = replay.ranges[v]
        rows += [((list(unit), -hi), "<="), (([-u for u in unit], lo), "<=")]
        if v in replay.node_terms:
            rows += [(_minus(_in_x(t, lin, d, n), (unit, ZERO)), "<=") for t in replay.node_terms[v]]
        lin[v] = (unit, ZERO)
    tree = _Tree(replay, nodes[len(free):], diffs, d, n)
    try:
        tree.check(cert.get("tree"), 0, lin, rows, "node-cells")
    except CertificateError as err:
        if err.path is None:
            raise type(err)(err.message, path=f"{replay.here}.certificate.tree") from None
        raise
    cells = cert.get("cells")
    if type(cells) is not int or tree.cells != cells:
        replay.fail(f"the tree has {tree.cells} cells, not {cells!r}", ".certificate.cells")
