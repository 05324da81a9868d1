"""Float proposals of counterexamples: sampling and projected sign-gradient ascent.

Definition. The *margin* of an input ``x`` is ``max_d min_k (rhs_k - lhs_k(x, f(x)))``
over the unsafe disjuncts ``d`` and their atoms ``k`` (and the atoms of the input region
beyond its box): ``x`` is a counterexample exactly when the margin is ``>= 0``. This module
computes margins in float64 and climbs them inside a box; its points are only proposals:
:mod:`symrel.vnnlib.engine` keeps one only after exact evaluation confirms it.

numpy is optional: without it only the box's centre and a few random points are tried,
evaluated in plain Python floats. Deterministic: the random points come from a generator
seeded by the box.

Cost: ``starts * (steps + 1)`` forward and backward passes of the float net.

>>> net = FloatNet([([[1.0]], [0.0], True)])                 # y = max(0, x)
>>> atoms = [([0.0], [-1.0], -0.5)]                          # unsafe: -y <= -1/2
>>> round(margin(net, [atoms], [0.75]), 3), round(margin(net, [atoms], [0.25]), 3)
(0.25, -0.25)
>>> best = propose(net, [atoms], [0.0], [1.0], seed=1)
>>> margin(net, [atoms], best) >= 0
True
"""

from __future__ import annotations

import random

try:  # optional: the search is faster with it
    import numpy as _np
except ImportError:  # pragma: no cover - exercised where numpy is absent
    _np = None


class FloatNet:
    """Layers ``(W, b, relu)`` as float lists (numpy arrays when numpy is present)."""

    def __init__(self, layers):
        self.layers = [(W, b, bool(r)) for W, b, r in layers]
        if _np is not None:
            self.arrays = [(_np.array(W, dtype=float), _np.array(b, dtype=float), r) for W, b, r in self.layers]

    def forward(self, x):
        """The float outputs at one point (plain Python)."""
        h = list(x)
        for W, b, r in self.layers:
            h = [sum(w * v for w, v in zip(row, h)) + c for row, c in zip(W, b)]
            if r:
                h = [v if v > 0 else 0.0 for v in h]
        return h


def margin(net: FloatNet, disjuncts, x) -> float:
    """The margin of ``x`` (module docstring); ``disjuncts``: lists of atoms ``(ax, ay, rhs)``
    as floats. An empty disjunct (true) has margin +inf."""
    if _np is not None and disjuncts:
        return float(_batch_margin(net, disjuncts, _np.array([list(x)], dtype=float))[0][0])
    y = net.forward(x)
    best = float("-inf")
    for atoms in disjuncts:
        m = min((rhs - sum(a * v for a, v in zip(ax, x)) - sum(a * v for a, v in zip(ay, y))
                 for ax, ay, rhs in atoms), default=float("inf"))
        best = max(best, m)
    return best


def _batch_margin(net: FloatNet, disjuncts, X):
    """Margins of the rows of X and, for each row, the gradient of its active atom."""
    np = _np
    hs, masks = X, []
    for W, b, r in net.arrays:
        hs = hs @ W.T + b
        if r:
            mask = hs > 0
            masks.append(mask)
            hs = hs * mask
        else:
            masks.append(None)
    Y = hs
    N = X.shape[0]
    best = np.full(N, -np.inf)
    cx = np.zeros_like(X)
    cy = np.zeros((N, Y.shape[1]))
    for atoms in disjuncts:
        if not atoms:
            best[:] = np.inf
            continue
        vals = []
        for ax, ay, rhs in atoms:
            vals.append(rhs - X @ np.asarray(ax, dtype=float) - Y @ np.asarray(ay, dtype=float))
        V = np.stack(vals, axis=1)
        k = V.argmin(axis=1)
        m = V[np.arange(N), k]
        better = m > best
        best = np.where(better, m, best)
        AX = np.array([a[0] for a in atoms], dtype=float)
        AY = np.array([a[1] for a in atoms], dtype=float)
        cx[better] = -AX[k[better]]
        cy[better] = -AY[k[better]]
    g = cy
    for (W, b, r), mask in zip(reversed(net.arrays), reversed(masks)):
        if mask is not None:
            g = g * mask
        g = g @ W
    return best, g + cx


def propose(net: FloatNet, disjuncts, lo, hi, *, seed: int, starts: int = 8, steps: int = 12, first: float = 0.25,
            decay: float = 0.7):
    """The point of largest float margin found in the box ``[lo, hi]`` (floats), by random
    starts and projected sign-gradient ascent (numpy) or sampling (without numpy): the first
    step is ``first`` times the box's widths, and each step ``decay`` times the one before."""
    rng = random.Random(seed)
    n = len(lo)
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    points = [centre] + [[rng.uniform(a, b) for a, b in zip(lo, hi)] for _ in range(starts - 1)]
    if _np is None:
        return max(points, key=lambda p: margin(net, disjuncts, p))
    np = _np
    L, H = np.array(lo, dtype=float), np.array(hi, dtype=float)
    X = np.array(points, dtype=float)
    step = (H - L) * first
    bestm, g = _batch_margin(net, disjuncts, X)
    best_x = X.copy()
    for it in range(steps):
        X = np.clip(X + step * np.sign(g), L, H)
        m, g = _batch_margin(net, disjuncts, X)
        better = m > bestm
        bestm = np.where(better, m, bestm)
        best_x[better] = X[better]
        step = step * decay
        if bestm.max() >= 0:
            break
    i = int(bestm.argmax())
    return [float(v) for v in best_x[i]][:n]
