"""Decide ``A = B`` on D from the normal forms, on the cells of the nodes still depended on.

After the layer-by-layer execution both models' outputs are affine forms over shared
variables: the inputs and max or select nodes (:mod:`symrel.prover.nodes`). When output r
differs as a form, ``g_r = out_A,r - out_B,r`` is still an affine form in a few nodes.
Those nodes and the nodes they are built from (the *dependency closure*, usually a
handful) are the only decisions left. This module enumerates them depth first:

* a max node ``max(t_0, .., t_k)`` splits a cell into the parts where ``t_i`` is the
  first maximiser (``t_j < t_i`` for j < i, ``t_j <= t_i`` for j > i): a partition;
* a select node (a hardmax head: values averaged over the argmax set of the scores)
  splits it by the argmax set S (``s_j = s_i`` inside S, ``s_k < s_i`` outside): a
  partition, ties included, so behaviour exactly at ties is decided too.

Each outcome is kept when the exact LP (:func:`symrel.exact.feasibility`) finds a point
(or the parent's witness already satisfies it), and closed with a Farkas vector when it
is empty; an outcome that is the only non-empty one holds on the whole cell, so its rows
are not added. On a leaf every node is affine in x, so every ``g_r`` is; it vanishes on
the cell iff it is the zero form or both ``g_r > 0`` and ``g_r < 0`` are empty there (two
Farkas vectors). When ``g_r != 0`` somewhere on the cell, an exact LP maximises
``|g_r|`` over the closed cell (:func:`symrel.exact.lp_optimum.maximise`): its optimal vertex,
where the difference is largest, is confirmed by exact evaluation of both models (else the
strict LP's point) and returned as a counterexample at once (the first differing cell ends
the search). The tree, with its Farkas vectors, is the certificate that
:mod:`symrel.checking.node_cells` re-derives.

Cost: one exact LP per outcome the witness does not settle; the tree has at most
``prod (outcomes per node)`` leaves over the dependency closure (not over every ReLU and
head of the raw program).

>>> from symrel.exact import Q
>>> from symrel.models import Box
>>> from symrel.prover.nodes import Registry
>>> from symrel.exact.forms import AffineForm, linear_combination as combine
>>> reg = Registry([(Q(-1), Q(1))])
>>> x = AffineForm.var(0)
>>> y, _ = reg.max_of([x, -x])                       # |x|
>>> z, _ = reg.max_of([x, -x, combine([(Q(1, 2), x)])])   # max(x, -x, x/2): no term dominated by one other
>>> res = decide_on_nodes(reg, [y], [z], Box([[-1, 1]]))
>>> res.status, res.cells
('proved', 2)
"""

from __future__ import annotations

import itertools

from ..budget import Budget
from ..exact import Q, format_rational
from ..exact.lp import feasibility
from ..exact.lp_optimum import maximise
from ..exact.forms import AffineForm, Row, linear_combination
from .nodes import NormalForms

ZERO = Q(0)


class NodeDecision:
    """``status``: ``"proved"`` (``tree`` certifies it), ``"refuted"`` (``point`` with the
    note) or ``"open"`` (``note``); ``nodes``: the dependency closure; ``cells``, ``lps``.
    (A plain class: a dataclass compiles its methods when defined, in every small claim's
    process.)"""

    def __init__(self, status: str, nodes: list, tree: dict | None = None, point: list | None = None,
                 note: str = "", cells: int = 0, lps: int = 0, stats: dict | None = None, free: list | None = None):
        self.status, self.nodes, self.tree, self.point, self.note = status, nodes, tree, point, note
        self.cells, self.lps = cells, lps
        self.stats = {} if stats is None else stats
        self.free = [] if free is None else free

    def __repr__(self):
        return f"NodeDecision({self.status!r}, nodes={self.nodes!r}, note={self.note!r})"


def _domain_rows(domain) -> list:
    """The domain's halfspaces ``a.x <= b`` as rows ``a.x - b <= 0`` (as
    :func:`symrel.regions.cell_lp.domain_rows` in the closed mode; importing that module
    would load the whole regions package, which a small claim decided here does not need)."""
    A, b = domain.exact_halfspaces()
    return [Row(AffineForm.from_dense(a, -bi), "<=") for a, bi in zip(A, b)]


def dependency_closure(registry, forms) -> list[int]:
    """The node ids the forms depend on, directly or through other nodes (sorted)."""
    d = registry.dim
    todo = [v for f in forms for v in f.coeffs if v >= d]
    seen: set[int] = set()
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        node = registry.nodes[v]
        for t in node.terms + node.scores:
            todo.extend(u for u in t.coeffs if u >= d and u not in seen)
    return sorted(seen)


# -- a node's forms on a cell: AffineForms over x and the relaxed nodes ----------------------------
def inputs_on_cell(d: int) -> dict:
    """The substitution that starts every cell: each input ``x_i`` is itself."""
    return {i: AffineForm.var(i) for i in range(d)}


def on_cell(form: AffineForm, lin: dict) -> AffineForm:
    """``form`` as an affine function on the current cell: every node it reads replaced by
    its affine function there (``lin``: variable -> form over the inputs and the relaxed
    nodes' coordinates; it maps each input to itself). Also what a form is on a point's
    linear region (:mod:`symrel.prover.region_of_point`)."""
    return form.substitute(lin)


def outcomes(node, lin: dict):
    """The outcomes of a node on a cell: ``(label, rows, value)`` with :class:`Row` s; they
    partition the cell."""
    if node.scores:
        s = [on_cell(f, lin) for f in node.scores]
        vals = [on_cell(f, lin) for f in node.terms]
        T = len(s)
        for size in range(T, 0, -1):
            for S in itertools.combinations(range(T), size):
                i = S[0]
                rows = [Row(s[j] - s[i], "=") for j in S[1:]]
                rows += [Row(s[k] - s[i], "<") for k in range(T) if k not in S]
                yield list(S), rows, linear_combination([(Q(1, len(S)), vals[j]) for j in S])
        return
    terms = [on_cell(f, lin) for f in node.terms]
    for i, t in enumerate(terms):
        rows = [Row(u - t, "<" if j < i else "<=") for j, u in enumerate(terms) if j != i]
        yield i, rows, t


def solve(rows, n: int, stats, budget=None):
    """Exact LP on ``rows`` (:class:`Row` s in ``n`` variables): ``(point, None)`` or
    ``(None, [(row index, multiplier)])``. ``budget``: checked inside the LP, before every
    pivot (one LP can take seconds)."""
    A, b, strict, C, dd, ineq, eq = [], [], [], [], [], [], []
    for k, (f, rel) in enumerate(rows):
        if rel == "=":
            C.append(f.to_dense(n))
            dd.append(-f.const)
            eq.append(k)
        else:
            A.append(f.to_dense(n))
            b.append(-f.const)
            strict.append(rel == "<")
            ineq.append(k)
    stats["lps"] = stats.get("lps", 0) + 1
    res = feasibility(A, b, C, dd, strict=strict, budget=budget)
    if res.feasible:
        return list(res.point), None
    y, z = res.farkas
    return None, [(ineq[k], v) for k, v in enumerate(y) if v] + [(eq[k], v) for k, v in enumerate(z) if v]


def farkas_json(cert) -> list:
    """A Farkas vector as JSON, scaled so its multipliers' absolute values add up to 1."""
    total = sum((abs(v) for _, v in cert), ZERO)
    return [[i, format_rational(v / total)] for i, v in cert]


def relaxation_rows(registry, free, d):
    """The relaxation of the nodes ``free`` (treated as variables after the inputs): each
    ``y_v`` in its exact range, and ``y_v >= t`` for every term t of a max node. Every point
    of D with its true node values satisfies them, so what holds on the relaxed set holds
    on D. Returns ``(lin, rows)``: each free node as a coordinate, and the rows."""
    lin, rows = inputs_on_cell(d), []
    for i, v in enumerate(free):
        y = AffineForm.var(d + i)
        node = registry.nodes[v]
        lo, hi = node.range
        rows.append(Row(y - AffineForm.constant(hi), "<="))
        rows.append(Row(AffineForm.constant(lo) - y, "<="))
        if not node.scores:
            for t in node.terms:
                rows.append(Row(on_cell(t, lin) - y, "<="))
        lin[v] = y
    return lin, rows


class _CapReached(Exception):
    """A trial's cell cap (not the claim's budget) was reached."""


class _Search:
    def __init__(self, registry, diffs, domain, a, b, budget: Budget, nodes, free=(), cap=None):
        self.reg, self.diffs, self.a, self.b, self.budget = registry, diffs, a, b, budget
        self.cap = cap
        self.d = registry.dim
        self.free = list(free)
        self.nodes = [v for v in nodes if v not in set(self.free)]
        self.n = self.d + len(self.free)
        self.stats = {"lps": 0}
        self.cells = 0
        self.pending = 1
        self.found = None
        self.inconclusive = False

    def run(self, domain):
        lin, relax = relaxation_rows(self.reg, self.free, self.d)
        rows = _domain_rows(domain) + relax
        point, cert = solve(rows, self.n, self.stats, self.budget)
        if point is None:
            return {"empty_domain": farkas_json(cert)}
        return self.expand(0, lin, rows, point)

    def expand(self, k, lin, rows, witness):
        """The certificate subtree of the cell ``rows`` after deciding ``nodes[:k]``."""
        self.budget.at(lemma="the outputs' differences vanish on the cells of the nodes they depend on",
                       nodes=self.nodes, cells_done=self.cells, cells_known=self.cells + self.pending)
        self.budget.check(self.cells)
        if self.cap is not None and self.cells > self.cap:
            raise _CapReached
        self.pending -= 1
        if k == len(self.nodes):
            return self.leaf(lin, rows, witness)
        v = self.nodes[k]
        kept, branches = [], []
        for label, new, value in outcomes(self.reg.nodes[v], lin):
            dead = None
            needed = []
            for j, row in enumerate(new):
                if not row.is_constant():
                    needed.append(row)
                    continue
                ok, mult = row.constant_status()
                if not ok:
                    dead = [[len(rows) + j, format_rational(mult)]]
                    break
            if dead is not None:
                branches.append({"choice": label, "empty": dead, "constant": True})
                continue
            if all(r.holds_at(witness) for r in needed):
                kept.append((label, rows + new, value, witness, len(branches)))
                branches.append(None)
                continue
            point, cert = solve(rows + new, self.n, self.stats, self.budget)
            if point is None:
                branches.append({"choice": label, "empty": farkas_json(cert)})
                continue
            kept.append((label, rows + new, value, point, len(branches)))
            branches.append(None)
        implied = len(kept) == 1
        self.pending += len(kept)
        for label, new_rows, value, point, slot in kept:
            sub = self.expand(k + 1, {**lin, v: value}, rows if implied else new_rows, point)
            branches[slot] = {"choice": label, "implied": implied, "sub": sub}
            if self.found is not None or self.inconclusive:
                return None
        return {"node": v, "branches": branches}

    def optimum(self, rows, ga, sign):
        """The inputs of a point of the closed cell maximising ``sign * g`` (exact LP,
        :func:`symrel.exact.lp_optimum.maximise`), or None. At that vertex the difference of
        continuous models is as large as anywhere on the cell; exact evaluation decides."""
        objective = ga * Q(sign)
        box = list(self.reg.ranges[:self.d]) + [self.reg.ranges[v] for v in self.free]
        upper = objective.range_on_box(box)[1]
        w, w0 = objective.to_dense(self.n), objective.const
        if upper <= 0:
            return None
        A, b, C, dd = [], [], [], []
        for f, rel in rows:
            (C if rel == "=" else A).append(f.to_dense(self.n))
            (dd if rel == "=" else b).append(-f.const)
        self.stats["lps"] = self.stats.get("lps", 0) + 1
        best = maximise(A, b, w, w0, upper, C, dd, budget=self.budget)
        return None if best is None else best[1][:self.d]

    def leaf(self, lin, rows, witness):
        self.cells += 1
        equal = []
        for r, g in enumerate(self.diffs):
            ga = on_cell(g, lin)
            if ga.is_zero():
                equal.append(None)
                continue
            pair = []
            for sign, extra in ((1, Row(-ga, "<")), (-1, Row(ga, "<"))):   # g > 0, then g < 0
                point, cert = solve(rows + [extra], self.n, self.stats, self.budget)
                if point is not None:      # the difference lives here: where on the cell is it largest?
                    best = None if self.free else self.optimum(rows, ga, sign)   # (a relaxed point is rarely real)
                    for x in (best, point[:self.d]):
                        if x is None:
                            continue
                        ya, yb = self.a.evaluate_exact(x), self.b.evaluate_exact(x)
                        if ya != yb:
                            self.found = (x, r, ya, yb)
                            return None
                    if not self.free:
                        raise AssertionError("internal error: a point of a differing cell has equal outputs")
                    self.inconclusive = True    # a point of the relaxation only: decide more nodes
                    self.found = None
                    return None
                pair.append(farkas_json(cert))
            equal.append({"pos": pair[0], "neg": pair[1]})
        return {"leaf": equal}


def decide_on_nodes(registry, outs_a, outs_b, domain, a=None, b=None, budget: Budget | None = None,
                    cap: int | None = None) -> NodeDecision:
    """Decide ``outs_a[r] = outs_b[r]`` for every x in ``domain`` and every r (forms over
    ``registry``'s variables; ``a``, ``b``: the models, to confirm a counterexample by exact
    evaluation). Raises :class:`~symrel.budget.BudgetExceeded` at the budget's limit, and
    :class:`_CapReached` past ``cap`` cells in one enumeration (a trial's own cap)."""
    budget = budget or Budget()
    diffs = [fa - fb for fa, fb in zip(outs_a, outs_b)]
    closure = dependency_closure(registry, diffs)
    a, b = a or NormalForms(registry, outs_a), b or NormalForms(registry, outs_b)
    k, cells, lps = 1, 0, 0
    while True:      # decide the top k nodes, relax the others; double k until decided
        top = closure[-k:] if k < len(closure) else closure
        free = [v for v in closure if v < top[0]] if top else []
        search = _Search(registry, diffs, domain, a, b, budget, closure, free, cap)
        tree = search.run(domain)
        cells, lps = cells + search.cells, lps + search.stats["lps"]
        if not search.inconclusive:
            break
        k *= 2
    res = NodeDecision("proved", closure, tree, cells=search.cells, lps=lps, stats=search.stats)
    res.free = free
    if search.found is not None:
        point, r, ya, yb = search.found
        res.status, res.tree, res.point = "refuted", None, point
        fmt = lambda v: "(" + ", ".join(str(format_rational(q)) for q in v) + ")"  # noqa: E731
        res.note = (f"output {r + 1} differs on a cell of the nodes {', '.join(f'y{v}' for v in search.nodes)}; "
                    f"exact evaluation: A(x) = {fmt(ya)}, B(x) = {fmt(yb)}")
    return res


def forms_json(forms) -> list:
    return [f.to_json() for f in forms]


def decision_step(proof, registry, outs_a, outs_b, domain, a, b, budget, reason, max_cells=None):
    """Run :func:`decide_on_nodes` and record it in ``proof``: a proved step (rule
    ``node-cells``, the tree as certificate) or a refutation with the confirmed point.
    Returns True when the claim is decided. ``max_cells``: a trial on at most that many
    cells per enumeration; past it, nothing is recorded and False is returned (the
    ``budget``'s own limits still raise)."""
    from ..certificates import PROVED, REFUTED, Step

    try:
        res = decide_on_nodes(registry, outs_a, outs_b, domain, a, b, budget, cap=max_cells)
    except _CapReached:
        return False
    nodes = ", ".join(f"y{v}" for v in res.nodes) or "none"
    if res.status == "proved":
        proof.add(Step(f"For all x in D, A(x) = B(x): the outputs differ as forms ({reason}), but their differences "
                       f"vanish on each of the {res.cells} cells of the nodes they depend on ({nodes})",
                       "node-cells",
                       {"outputs_a": forms_json(outs_a), "outputs_b": forms_json(outs_b), "nodes": res.nodes,
                        "free": res.free, "cells": res.cells, "tree": res.tree},
                       PROVED, f"{res.cells} cells, {res.lps} exact LPs; every empty outcome and every cell where an "
                               "output's maps differ as forms closed by Farkas vectors"))
        return True
    if res.status == "refuted":
        x = res.point
        proof.add(Step("For all x in D, A(x) = B(x)", "node-cells",
                       {"counterexample": [format_rational(v) for v in x]}, REFUTED,
                       f"{reason}. Counterexample x = ({', '.join(str(format_rational(v)) for v in x)}): {res.note}"))
        proof.refute(x, res.note)
        return True
    return False
