"""Float-guided proposals from a mixed-integer programme: where is ``A_r - B_r`` largest?

After the layer-by-layer execution both models are affine forms over shared variables
(inputs and max or select nodes, :mod:`symrel.prover.nodes`); an output's difference
``g_r = out_A,r - out_B,r`` is an affine form in a few of them. The nodes ``g_r`` depends
on (its dependency closure) are encoded exactly as a MILP with big-M bounds taken from the
nodes' exact ranges:

* a max node ``y = max(t_1, .., t_k)``: ``y >= t_i`` for every i, and binaries ``z_i``
  with ``sum z_i = 1`` and ``y - t_i <= M_i (1 - z_i)``, ``M_i = hi(y) - lo(t_i)``;
* a select node (a hardmax head: ``values[s]`` for an argmax ``s`` of the scores):
  binaries ``z_s`` with ``sum z_s = 1``, ``score_s - score_j >= -(hi(score_j) - lo(score_s))
  (1 - z_s)`` and ``|y - value_s| <= M (1 - z_s)`` (ties averaged are not modelled: the
  MILP only proposes).

HiGHS (through :func:`scipy.optimize.milp`, an optional extra) maximises ``+- g_r`` over
it within a time limit. Where the difference lives on a sliver of the box that no
random point hits, the MILP still lands on it: its solution's inputs are *proposed*, as
exact rationals (the floats' own binary values), and count only after exact evaluation
confirms them (:func:`symrel.prover.counterexamples.find_counterexample`, which also
maximises the difference exactly on the linear region of the proposal,
:mod:`symrel.prover.region_of_point`). Nothing here decides anything; without scipy
there are no proposals.

Cost: one MILP per output that differs as a form and per sign, with one binary per
term of every node in the closure; HiGHS stops at ``time_limit`` or after
:data:`NODE_LIMIT` branch-and-bound nodes.

>>> import pytest; _ = pytest.importorskip("scipy.optimize")
>>> from symrel.exact import Q
>>> from symrel.exact.forms import AffineForm, linear_combination
>>> from symrel.prover.nodes import Registry
>>> reg = Registry([(Q(-1), Q(1))])
>>> x = AffineForm.var(0)
>>> y, _ = reg.max_of([AffineForm(), linear_combination([(Q(1), x)], Q(-999, 1000))])   # max(0, x - 0.999)
>>> p, active = milp_proposals(reg, [y], reg.ranges[:1], time_limit=5)[0]     # max +y first, then -y
>>> [round(float(v), 6) for v in p], reg.nodes[1].terms[active[1]].to_json()   # x = 1, where x - 0.999 is the max
([1.0], ['-999/1000', [[0, 1]]])
"""

from __future__ import annotations

import contextlib

from ..exact.numbers import to_float
from .float_ascent import exact_point

NODE_LIMIT = 20000     # branch-and-bound nodes: the same proposal on any machine, unless the time limit comes first


def _scipy():
    try:
        import numpy
        from scipy.optimize import Bounds, LinearConstraint, milp
        from scipy.sparse import coo_matrix
    except ImportError:       # the core install: no MILP proposals
        return None
    return numpy, milp, LinearConstraint, Bounds, coo_matrix


def has_milp() -> bool:
    """Whether MILP proposals can be made here (scipy installed)."""
    return _scipy() is not None


class _Programme:
    """The MILP's rows, built one at a time: ``lo <= sum a_j v_j <= hi`` (floats)."""

    def __init__(self):
        self.lower, self.upper, self.integer = [], [], []
        self.rows, self.cols, self.vals, self.lo, self.hi = [], [], [], [], []

    def var(self, lo, hi, integer=False) -> int:
        self.lower.append(lo)
        self.upper.append(hi)
        self.integer.append(1 if integer else 0)
        return len(self.lower) - 1

    def row(self, terms, lo, hi):
        r = len(self.lo)
        for j, a in terms:
            if a:
                self.rows.append(r)
                self.cols.append(j)
                self.vals.append(a)
        self.lo.append(lo)
        self.hi.append(hi)


def encode(registry, nodes):
    """The MILP of the inputs and of ``nodes`` (a dependency closure, sorted): the programme,
    the column of every variable (input or node) and the binaries' columns of every node."""
    inf = float("inf")
    P = _Programme()
    col, choices = {}, {}
    for i in range(registry.dim):
        lo, hi = registry.ranges[i]
        col[i] = P.var(to_float(lo), to_float(hi))

    def affine(form, scale=1.0):
        """``form`` as (column, coefficient) pairs and its constant, times ``scale``."""
        return [(col[v], scale * to_float(a)) for v, a in form.coeffs.items()], scale * to_float(form.const)

    ranges = registry.ranges
    for v in nodes:
        node = registry.nodes[v]
        lo_v, hi_v = (to_float(q) for q in node.range)
        y = col[v] = P.var(lo_v, hi_v)
        if node.scores:
            z = choices[v] = [P.var(0, 1, True) for _ in node.scores]
            P.row([(j, 1.0) for j in z], 1, 1)
            bounds = [s.range_on_box(ranges) for s in node.scores]
            for i, (s_i, v_i) in enumerate(zip(node.scores, node.terms)):
                for j, s_j in enumerate(node.scores):
                    if j != i:        # s_i - s_j + M (1 - z_i) >= 0
                        M = to_float(bounds[j][1] - bounds[i][0])
                        terms, c = affine(s_i - s_j)
                        P.row(terms + [(z[i], -M)], -M - c, inf)
                lo_t, hi_t = v_i.range_on_box(ranges)
                M = max(hi_v - to_float(lo_t), to_float(hi_t) - lo_v, 0.0)
                terms, c = affine(v_i, -1.0)          # y - v_i, within M (1 - z_i) of 0
                P.row([(y, 1.0)] + terms + [(z[i], M)], -inf, M - c)
                P.row([(y, 1.0)] + terms + [(z[i], -M)], -M - c, inf)
            continue
        z = choices[v] = [P.var(0, 1, True) for _ in node.terms]
        P.row([(j, 1.0) for j in z], 1, 1)
        for t, zi in zip(node.terms, z):
            M = hi_v - to_float(t.range_on_box(ranges)[0])
            terms, c = affine(t, -1.0)                  # 0 <= y - t <= M (1 - z_i)
            P.row([(y, 1.0)] + terms, -c, inf)
            P.row([(y, 1.0)] + terms + [(zi, M)], -inf, M - c)
    return P, col, choices


def milp_proposals(registry, diffs, box, time_limit: float = 10.0, budget=None) -> list[tuple[list, dict]]:
    """``(point, active)`` pairs: a rational point of ``box`` where HiGHS's MILP finds
    ``+- diffs[r]`` largest (for each r whose form is not zero and each sign, within
    ``time_limit`` seconds in all, shared out), and the term of each node its binaries
    chose (the linear region it means, :func:`symrel.prover.region_of_point.region`);
    empty without scipy, when the numbers are beyond float range, or when HiGHS finds no
    point in time."""
    from .normal_form_decision import dependency_closure

    sp = _scipy()
    targets = [(r, s) for r, g in enumerate(diffs) if not g.is_zero() for s in (1, -1)]
    if sp is None or not targets:
        return []
    np, milp, LinearConstraint, Bounds, coo_matrix = sp
    nodes = dependency_closure(registry, [g for g in diffs if not g.is_zero()])
    try:
        P, col, choices = encode(registry, nodes)
    except OverflowError:     # numbers beyond float range: no proposal
        return []
    n = len(P.lower)
    A = coo_matrix((P.vals, (P.rows, P.cols)), shape=(len(P.lo), n)).tocsr()
    constraints = [LinearConstraint(A, np.array(P.lo), np.array(P.hi))] if P.lo else []
    bounds = Bounds(np.array(P.lower), np.array(P.upper))
    out, seen = [], set()
    for k, (r, sign) in enumerate(targets):
        left = time_limit if budget is None or budget.remaining() is None else min(time_limit, budget.remaining())
        share = left / (len(targets) - k)     # the time left, shared out over the targets left
        if share <= 0.01:
            break
        c = np.zeros(n)
        g = diffs[r]
        scale = max(abs(to_float(a)) for a in g.coeffs.values()) if g.coeffs else 1.0
        for v, a in g.coeffs.items():
            c[col[v]] -= sign * to_float(a) / scale          # milp minimises: minimise -sign g / scale
        with _silenced():
            res = milp(c, constraints=constraints, bounds=bounds, integrality=np.array(P.integer),
                       options={"time_limit": share, "node_limit": NODE_LIMIT, "presolve": True})
        if res.x is None:       # (a tiny optimum is within HiGHS's tolerances: the exact region LP judges)
            continue
        point = exact_point([res.x[col[i]] for i in range(len(box))], box)
        active = {v: _chosen(res.x, z, registry.nodes[v]) for v, z in choices.items()}
        key = (tuple(point), tuple(sorted(active.items())))
        if key not in seen:
            seen.add(key)
            out.append((point, active))
        if budget is not None:
            budget.check()
    return out


@contextlib.contextmanager
def _silenced():
    """File descriptors 1 and 2 point at the null device meanwhile: HiGHS's C++ code writes
    some diagnostics there whatever ``disp`` says, and ``symrel prove --json`` owns stdout."""
    import os
    import sys

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, ValueError):
            pass
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:            # no such descriptors (an embedded interpreter): nothing to silence
        yield
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [null]:
            os.close(fd)


def _chosen(x, z, node):
    """The term (or, for a select node, the one-key argmax set) the MILP's binaries chose."""
    i = max(range(len(z)), key=lambda k: x[z[k]])
    return (i,) if node.scores else i

