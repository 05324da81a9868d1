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
  its own (checked by :func:`symrel.exact.is_farkas`, multipliers' absolute values adding
  up to 1) or as a subtree; an outcome marked *implied* (its rows not added) must be the
  only one that is not closed;
* on each leaf every node is affine in x; for every r, ``g_r`` is the zero form there, or
  the systems "cell and g_r > 0" and "cell and g_r < 0" each have a Farkas vector.

The leaves cover D (the outcomes partition every cell) and on each of them ``A = B``: the
claim holds. Cost: one Farkas check per closed outcome and two per differing output and leaf.
"""

from __future__ import annotations

import itertools

from ..exact import Q, is_farkas, rational
from . import CertificateError
from .kernel import as_rational_form, minus

ZERO = Q(0)


def _affine(f, lin, d, n):
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


def _outcomes(R, v, lin, d, n):
    if v in R.node_select:
        scores, values = R.node_select[v]
        s = [_affine(f, lin, d, n) for f in scores]
        vals = [_affine(f, lin, d, n) for f in values]
        T = len(s)
        for size in range(T, 0, -1):
            for S in itertools.combinations(range(T), size):
                i = S[0]
                rows = [(_minus(s[j], s[i]), "=") for j in S[1:]]
                rows += [(_minus(s[k], s[i]), "<") for k in range(T) if k not in S]
                yield list(S), rows, _mean([vals[j] for j in S])
        return
    terms = [_affine(f, lin, d, n) for f in R.node_terms[v]]
    for i, t in enumerate(terms):
        yield i, [(_minus(u, t), "<" if j < i else "<=") for j, u in enumerate(terms) if j != i], t


def _farkas(rows, obj, where):
    """Check that the sparse JSON Farkas vector ``obj`` closes the system ``rows``."""
    if not isinstance(obj, list) or not obj:
        raise CertificateError(f"{where}: expected a non-empty Farkas vector")
    mult: dict[int, object] = {}
    for pair in obj:
        i, m = int(pair[0]), rational(pair[1])
        if not 0 <= i < len(rows) or i in mult:
            raise CertificateError(f"{where}: Farkas row {i} out of range or repeated")
        mult[i] = m
    if sum((abs(m) for m in mult.values()), ZERO) != 1:
        raise CertificateError(f"{where}: the Farkas multipliers' absolute values do not add up to 1")
    A, b, strict, y, C, dd, z = [], [], [], [], [], [], []
    for k, ((g, c), rel) in enumerate(rows):
        if rel == "=":
            C.append(g)
            dd.append(-c)
            z.append(mult.get(k, ZERO))
        else:
            A.append(g)
            b.append(-c)
            strict.append(rel == "<")
            y.append(mult.get(k, ZERO))
    if not is_farkas(A, b, y, z, C, dd, strict=strict):
        raise CertificateError(f"{where}: the Farkas vector does not show the system empty")


class _Tree:
    def __init__(self, R, nodes, diffs, d, n):
        self.R, self.nodes, self.diffs, self.d, self.n, self.cells = R, nodes, diffs, d, n, 0

    def check(self, t, k, lin, rows, where):
        if not isinstance(t, dict):
            raise CertificateError(f"{where}: expected an object")
        if k == len(self.nodes):
            return self.leaf(t, lin, rows, where)
        v = self.nodes[k]
        if t.get("node") != v:
            raise CertificateError(f"{where}: expected the decision of node y{v}")
        branches = t.get("branches")
        outs = list(_outcomes(self.R, v, lin, self.d, self.n))
        if not isinstance(branches, list) or len(branches) != len(outs):
            raise CertificateError(f"{where}: expected {len(outs)} outcomes of node y{v}")
        open_ = [br for br in branches if isinstance(br, dict) and "sub" in br]
        for (label, new, value), br in zip(outs, branches):
            here = f"{where}/y{v}={label}"
            if not isinstance(br, dict) or br.get("choice") != label:
                raise CertificateError(f"{here}: outcome {label} missing or out of order")
            if "empty" in br:
                _farkas(rows + new, br["empty"], here)
            elif "sub" in br:
                implied = br.get("implied") is True
                if implied and len(open_) != 1:
                    raise CertificateError(f"{here}: an implied outcome must be the only one left open")
                self.check(br["sub"], k + 1, {**lin, v: value}, rows if implied else rows + new, here)
            else:
                raise CertificateError(f"{here}: expected 'empty' or 'sub'")

    def leaf(self, t, lin, rows, where):
        equal = t.get("leaf")
        if not isinstance(equal, list) or len(equal) != len(self.diffs):
            raise CertificateError(f"{where}: expected a leaf with one entry per output")
        self.cells += 1
        for r, (g, e) in enumerate(zip(self.diffs, equal)):
            ga = _affine(g, lin, self.d, self.n)
            if not any(ga[0]) and ga[1] == 0:
                continue
            if not isinstance(e, dict):
                raise CertificateError(f"{where}: output {r} differs as a form on this cell; Farkas pair expected")
            _farkas(rows + [(([-a for a in ga[0]], -ga[1]), "<")], e.get("pos"), f"{where}: output {r}, A > B")
            _farkas(rows + [(ga, "<")], e.get("neg"), f"{where}: output {r}, A < B")


def closure(R, forms) -> list[int]:
    d = R.dim
    todo = [v for f in forms for v in f[2] if v >= d]
    seen: set[int] = set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if v in R.node_select:
            parts = R.node_select[v][0] + R.node_select[v][1]
        elif v in R.node_terms:
            parts = R.node_terms[v]
        else:
            raise CertificateError(f"node-cells: y{v} is not a node")
        for f in parts:
            todo.extend(u for u in f[2] if u >= d and u not in seen)
    return sorted(seen)


def check_node_cells(cert: dict, R, outs, domain) -> None:
    """Check a ``node-cells`` step against the replayed outputs ``outs`` (A's, B's)."""
    R.compare(outs[0], cert["outputs_a"], "outputs of A")
    R.compare(outs[1], cert["outputs_b"], "outputs of B")
    diffs = [minus(fa, fb) for fa, fb in zip(outs[0], outs[1])]
    nodes = closure(R, diffs)
    if [int(v) for v in cert["nodes"]] != nodes:
        R.fail(f"the nodes the outputs depend on are {nodes}, not {cert['nodes']}")
    free = [int(v) for v in cert.get("free", [])]
    if free != nodes[:len(free)] or len(free) == len(nodes) and nodes:
        R.fail("the relaxed nodes must be the first nodes of the closure, and some node must be decided")
    d, n = R.dim, R.dim + len(free)
    A, b = domain.exact_halfspaces()
    rows = [((list(a) + [ZERO] * len(free), -bi), "<=") for a, bi in zip(A, b)]
    lin: dict = {}
    for i, v in enumerate(free):     # y_v in its range, and above every term of a max node
        unit = [ZERO] * n
        unit[d + i] = Q(1)
        lo, hi = R.ranges[v]
        rows += [((list(unit), -hi), "<="), (([-u for u in unit], lo), "<=")]
        if v in R.node_terms:
            rows += [(_minus(_affine(t, lin, d, n), (unit, ZERO)), "<=") for t in R.node_terms[v]]
        lin[v] = (unit, ZERO)
    tree = _Tree(R, nodes[len(free):], diffs, d, n)
    try:
        tree.check(cert["tree"], 0, lin, rows, "node-cells")
    except CertificateError as err:
        if err.path is None:
            raise CertificateError(err.message, path=f"{R.here}.certificate.tree") from None
        raise
    if tree.cells != cert.get("cells"):
        R.fail(f"the tree has {tree.cells} cells, not {cert.get('cells')}")
