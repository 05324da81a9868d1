"""Float proposals of counterexamples on a layered net: projected gradient ascent with restarts.

Definition. The *margin* of an input ``x`` is ``max_d min_k (rhs_k - lhs_k(x, f(x)))`` over
the unsafe disjuncts ``d`` and their atoms ``k`` (with the input region's atoms beyond its
box): ``x`` is a counterexample exactly when it is ``>= 0``. :func:`propose` climbs the
margin from the box's centre and random points (PGD: steps along the sign of the margin's
gradient, projected onto the box, shrinking; the gradient follows the atom that is least
satisfied, through the ReLUs' active entries and each group's largest piece), in rounds
with fresh random starts while time remains in its step budget. Its point is a proposal:
the search keeps it only after exact evaluation.

Deterministic: the random starts come from a generator seeded by the caller.

Cost: ``starts * steps`` float forward and backward passes (one sparse product per affine op
each), batched over the starts.

>>> import pytest; _ = pytest.importorskip("scipy")
>>> import numpy as np
>>> from symrel.models.layered import LayeredNet, MaxGroups, SparseAffine
>>> from symrel.vnnlib.layered.network import FloatNet
>>> fnet = FloatNet(LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]]), MaxGroups([[0, 1]])]))  # |x|
>>> atoms = [[(np.zeros(1), np.array([-1.0]), -0.75)]]          # unsafe: |x| >= 3/4
>>> x, m = propose(fnet, atoms, np.array([-1.0]), np.array([1.0]), seed=3)
>>> bool(m >= 0 and abs(x[0]) >= 0.75)
True
"""

from __future__ import annotations

import numpy as np


def forward(fnet, X):
    """The outputs of the points (columns of ``X``) and the per-op records of the gradient:
    the ReLU masks and each group's largest piece (global index)."""
    records = []
    H = X
    for fop, kind in zip(fnet.ops, fnet.kinds):
        if kind == "affine":
            H = fop.W @ H + fop.b[:, None]
            records.append(None)
        elif kind == "relu":
            mask = H > 0
            H = H * mask
            records.append(mask)
        else:
            from .ops.max_groups import float_forward

            H, arg = float_forward(fop, H)
            records.append(arg)
    return H, records


def _gradient(fnet, records, G, width_in):
    """``d(g . y) / dx`` for the columns ``G`` of output coefficients."""
    for fop, kind, rec in zip(reversed(fnet.ops), reversed(fnet.kinds), reversed(records)):
        if kind == "affine":
            G = fop.WT @ G
        elif kind == "relu":
            G = G * rec
        else:
            out = np.zeros((fop.input_dim, G.shape[1]))
            cols = np.broadcast_to(np.arange(G.shape[1]), rec.shape)
            np.add.at(out, (rec, cols), G)
            G = out
    return G


def margins(fnet, disjuncts, X):
    """The margins of the columns of ``X`` and, per column, the gradient of its active atom
    (``disjuncts``: lists of atoms ``(ax, ay, rhs)``, float arrays)."""
    Y, records = forward(fnet, X)
    N = X.shape[1]
    best = np.full(N, -np.inf)
    cx = np.zeros_like(X)
    cy = np.zeros((Y.shape[0], N))
    for atoms in disjuncts:
        if not atoms:
            best[:] = np.inf
            continue
        AX = np.array([a[0] for a in atoms], dtype=float)
        AY = np.array([a[1] for a in atoms], dtype=float)
        R = np.array([a[2] for a in atoms], dtype=float)
        V = R[:, None] - AX @ X - AY @ Y                 # atoms x points
        k = V.argmin(axis=0)
        m = V[k, np.arange(N)]
        better = m > best
        best = np.where(better, m, best)
        cx[:, better] = -AX[k[better]].T
        cy[:, better] = -AY[k[better]].T
    return best, _gradient(fnet, records, cy, X.shape[0]) + cx


def propose(fnet, disjuncts, lo, hi, *, seed: int, starts: int = 8, steps: int = 20, rounds: int = 2):
    """``(x, margin)``: the point of largest float margin found in the box (module docstring)."""
    rng = np.random.default_rng(seed)
    n = len(lo)
    W = hi - lo
    best_x, best_m = (lo + hi) / 2, -np.inf
    for r in range(rounds):
        X = lo[:, None] + W[:, None] * rng.random((n, starts))
        if r == 0:
            X[:, 0] = (lo + hi) / 2
        step = W / 4
        m, g = margins(fnet, disjuncts, X)
        for _ in range(steps):
            i = int(m.argmax())
            if m[i] > best_m:
                best_m, best_x = float(m[i]), X[:, i].copy()
            if best_m >= 0:
                return best_x, best_m
            X = np.clip(X + step[:, None] * np.sign(g), lo[:, None], hi[:, None])
            m, g = margins(fnet, disjuncts, X)
            step = step * 0.8
        i = int(m.argmax())
        if m[i] > best_m:
            best_m, best_x = float(m[i]), X[:, i].copy()
        if best_m >= 0:
            break
    return best_x, best_m
