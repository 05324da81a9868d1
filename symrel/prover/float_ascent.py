"""Float-guided proposals by projected ascent: climb towards where ``A_r - B_r`` is not zero.

A difference ``g_r = out_A,r - out_B,r`` (an affine form over inputs and max or select
nodes, :mod:`symrel.prover.nodes`) is often zero on nearly all of the box: a unit that
only the mutated weight reads is active on a small part of it, and random points miss
that part. Its gradient is zero there too, so the ascent climbs, besides ``+- g_r``, the
*switch margins* of the nodes ``g_r`` reads: ``t_j - t_i`` for two terms of such a node
(``ReLU(t) = max(0, t)`` switches on where ``t - 0 > 0``). From many starts (seeded points
of the box, the best ones for each objective first) it takes sign-of-gradient steps
(steepest ascent in the max norm), projected back on the box, with a shrinking step; the
value and gradient of every node come out of one forward pass in float64 (the gradient of
a max is its maximising term's). The points visited where the float ``max_r |g_r|`` is
largest are *proposed* as exact rationals (the floats' own binary values) and count only
after exact evaluation confirms them (:func:`symrel.prover.counterexamples.find_counterexample`).
Nothing here decides anything; without numpy there are no proposals.

Cost: ``steps`` forward passes over the dependency closure of the differences, each
O(starts x objectives x size of the closure x inputs) float operations; fewer starts
when their gradients would exceed :data:`FLOATS` floats, so memory stays bounded.

>>> import pytest; np = pytest.importorskip("numpy")
>>> from symrel.exact import Q
>>> from symrel.exact.forms import AffineForm, linear_combination
>>> from symrel.prover.nodes import Registry
>>> reg = Registry([(Q(-1), Q(1)), (Q(-1), Q(1))])
>>> x, y = AffineForm.var(0), AffineForm.var(1)
>>> t = linear_combination([(Q(1), x), (Q(1), y)], Q(-199, 100))     # x + y - 1.99 > 0 near (1, 1) only
>>> u, _ = reg.max_of([AffineForm(), t])
>>> pts = ascent_proposals(reg, [u], reg.ranges[:2], starts=8)
>>> [float(v) for v in pts[0]]
[1.0, 1.0]
"""

from __future__ import annotations

import itertools
import random

from ..exact import Q
from ..exact.numbers import to_float
from . import float_screen
from .float_screen import ForwardPass

MAX_OBJECTIVES = 16
FLOATS = 4_000_000      # at most this many floats (32 MB) in a forward pass's gradients


def objectives(registry, diffs) -> list:
    """``+- g_r`` for every difference that is not the zero form, then the switch margins
    ``t_j - t_i`` of the nodes they read directly (at most :data:`MAX_OBJECTIVES`)."""
    live = [g for g in diffs if not g.is_zero()]
    out = [s * g for g in live for s in (1, -1)]
    d = registry.dim
    for g in live:
        for v in sorted(g.coeffs):
            if v >= d:
                node = registry.nodes[v]
                out += [s - t for s, t in itertools.permutations(node.scores or node.terms, 2)]
    return out[:MAX_OBJECTIVES]


def ascent_proposals(registry, diffs, box, starts: int = 64, steps: int = 60, top: int = 8, seed: int = 0,
                     tol: float = 1e-12, budget=None) -> list[list]:
    """Up to ``top`` rational points of ``box`` where the float ``max_r |diffs[r]|`` is largest
    among the points the ascent visits (largest first, only where it exceeds ``tol``);
    empty without numpy or when the numbers are beyond float range."""
    from .normal_form_decision import dependency_closure

    np = float_screen._numpy()
    live = [g for g in diffs if not g.is_zero()]
    if np is None or not live:
        return []
    try:
        return _ascend(np, registry, live, box, dependency_closure(registry, live), starts, steps, top, seed, tol,
                       budget)
    except OverflowError:      # numbers beyond float range: no proposal
        return []


def _ascend(np, registry, live, box, nodes, starts, steps, top, seed, tol, budget):
    fp = ForwardPass(np, registry, nodes)
    objs = objectives(registry, live)
    dense_obj, dense_gap = float_screen._dense(np, objs, fp.col), float_screen._dense(np, live, fp.col)
    lo = np.array([to_float(a) for a, _ in box])
    hi = np.array([to_float(b) for _, b in box])
    width = hi - lo
    rng = random.Random(seed)
    # memory: the forward pass holds points x columns x inputs floats
    starts = max(1, min(starts, FLOATS // (4 * len(objs) * (len(nodes) + fp.d) * fp.d)))
    pool = lo + width * np.array([[rng.random() for _ in box] for _ in range(4 * starts)])
    V, J = fp.run(pool)
    values, _ = fp.forms(V, J, dense_obj)
    # every objective starts from its own best points of the pool
    X = np.vstack([pool[np.argsort(-values[:, k], kind="stable")[:starts]] for k in range(len(objs))])
    which = np.repeat(np.arange(len(objs)), starts)
    idx = np.arange(X.shape[0])
    best_gap, best_x = [], []
    step = 0.25
    for _ in range(steps):
        if budget is not None:
            budget.check()
        V, J = fp.run(X)
        gap = np.abs(V[:, dense_gap[0]] @ dense_gap[1].T + dense_gap[2]).max(axis=1)
        best_gap.append(gap)
        best_x.append(X.copy())
        _, grads = fp.forms(V, J, dense_obj)
        g = grads[idx, which, :]
        X = np.clip(X + step * width * np.sign(g), lo, hi)
        step *= 0.85
    gaps, xs = np.concatenate(best_gap), np.vstack(best_x)
    out, seen = [], set()
    for i in np.argsort(-gaps, kind="stable"):
        if not gaps[i] > tol or len(out) >= top:
            break
        point = exact_point(xs[i], box)
        key = tuple(point)
        if key not in seen:
            seen.add(key)
            out.append(point)
    return out


def exact_point(values, box) -> list:
    """Floats as the exact rationals they are (their binary values), each clamped to its
    interval of ``box``."""
    out = []
    for v, (lo, hi) in zip(values, box):
        q = Q(*float(v).as_integer_ratio())
        out.append(lo if q < lo else hi if q > hi else q)
    return out
