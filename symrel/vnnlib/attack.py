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

import math
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


class _Disjuncts(list):
    """Unsafe disjuncts with each one's atoms' coefficients as arrays ``(atoms, AX, AY)``
    (:func:`_arrays`): a climb takes hundreds of margins of the same disjuncts."""


def _arrays(disjuncts) -> _Disjuncts:
    """``disjuncts`` with their arrays (:class:`_Disjuncts`), made once."""
    if isinstance(disjuncts, _Disjuncts):
        return disjuncts
    np = _np
    return _Disjuncts((atoms, np.array([a[0] for a in atoms], dtype=float), np.array([a[1] for a in atoms], dtype=float))
                      if atoms else (atoms, None, None) for atoms in disjuncts)


def _batch_margin(net: FloatNet, disjuncts, X, owner=None):
    """Margins of the rows of X and, for each row, the gradient of its active atom.
    ``owner``: per row, the disjunct whose margin alone that row follows (-1: the whole
    margin, the default for every row)."""
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
    for d, (atoms, AX, AY) in enumerate(_arrays(disjuncts)):
        counts = np.ones(N, dtype=bool) if owner is None else (owner == -1) | (owner == d)
        if not atoms:
            best[counts] = np.inf
            continue
        vals = []
        for (_, _, rhs), ax, ay in zip(atoms, AX, AY):
            vals.append(rhs - X @ ax - Y @ ay)
        V = np.stack(vals, axis=1)
        k = V.argmin(axis=1)
        m = V[np.arange(N), k]
        better = (m > best) & counts
        best = np.where(better, m, best)
        cx[better] = -AX[k[better]]
        cy[better] = -AY[k[better]]
    g = cy
    for (W, b, r), mask in zip(reversed(net.arrays), reversed(masks)):
        if mask is not None:
            g = g * mask
        g = g @ W
    return best, g + cx


def propose(net: FloatNet, disjuncts, lo, hi, *, seed: int, starts: int = 8, steps: int = 12, first: float = 0.25,
            decay: float = 0.7, hints=(), by_disjunct: bool = False, halving: bool = False):
    """The point of largest float margin found in the box ``[lo, hi]`` (floats), by random
    starts and projected sign-gradient ascent (numpy) or sampling (without numpy): the first
    step is ``first`` times the box's widths, and each step ``decay`` times the one before
    (``halving``: instead each start's step is kept while it raises that start's margin and
    halved when it does not, which converges finer on a narrow peak).

    ``hints``: points of the box started from besides the centre (a parent box's best point:
    the climb resumes where it stopped). ``by_disjunct``: with several unsafe disjuncts, the
    starts are dealt in turn to each disjunct's own margin (its atoms' minimum) and to the
    whole margin; the whole margin's gradient follows whichever disjunct is ahead at a point,
    which is often not one that can be met (on a property of three disjuncts, two beyond
    their extremes and one just inside, the climbs of the one alone found its counterexamples
    where the whole margin's did not)."""
    return propose_with_margin(net, disjuncts, lo, hi, seed=seed, starts=starts, steps=steps, first=first,
                               decay=decay, hints=hints, by_disjunct=by_disjunct, halving=halving)[0]


def propose_with_margin(net: FloatNet, disjuncts, lo, hi, *, seed: int, starts: int = 8, steps: int = 12,
                        first: float = 0.25, decay: float = 0.7, hints=(), by_disjunct: bool = False,
                        halving: bool = False):
    """``(x, m)``: the point of :func:`propose` and its float margin (the whole margin)."""
    rng = random.Random(seed)
    n = len(lo)
    centre = [(a + b) / 2 for a, b in zip(lo, hi)]
    hints = [[min(max(float(v), a), b) for v, a, b in zip(h, lo, hi)] for h in hints
             if all(math.isfinite(float(v)) for v in h)][:max(starts - 1, 0)]
    points = [centre] + hints + [[rng.uniform(a, b) for a, b in zip(lo, hi)]
                                 for _ in range(starts - 1 - len(hints))]
    if _np is None:
        best = max(points, key=lambda p: margin(net, disjuncts, p))
        return best, margin(net, disjuncts, best)
    np = _np
    L, H = np.array(lo, dtype=float), np.array(hi, dtype=float)
    X = np.array(points, dtype=float)
    owner = None  # the objective of each start: the whole margin (-1), or one disjunct's
    if by_disjunct and len(disjuncts) > 1:
        owner = np.arange(len(X)) % (len(disjuncts) + 1) - 1
    disjuncts = _arrays(disjuncts)
    best_x = _climb(net, disjuncts, L, H, X, steps, first, decay, halving, owner)
    bestm, _ = _batch_margin(net, disjuncts, best_x)
    bestm[np.isnan(bestm)] = -np.inf  # floats that overflowed rank last
    i = int(bestm.argmax())
    return [float(v) for v in best_x[i]][:n], float(bestm[i])


def _climb(net, disjuncts, L, H, X, steps, first, decay, halving, owner):
    """The best point of each row of ``X`` along its projected sign-gradient ascent of its
    margin (``owner``: as :func:`_batch_margin`'s) over ``disjuncts`` (:func:`propose`);
    stops early once a row's whole margin is ``>= 0``."""
    np = _np
    bestm, g = _batch_margin(net, disjuncts, X, owner)
    best_x = X.copy()
    step = np.tile((H - L) * first, (len(X), 1))
    for _ in range(steps):
        if bestm.max() >= 0:  # a row's own disjunct met: the whole margin is >= 0 there too
            break
        Y = np.clip(X + step * np.sign(g), L, H)
        m, gy = _batch_margin(net, disjuncts, Y, owner)
        better = m > bestm
        bestm = np.where(better, m, bestm)
        best_x[better] = Y[better]
        if halving:  # a start moves only where its margin rose, and halves its step where not
            X = np.where(better[:, None], Y, X)
            g = np.where(better[:, None], gy, g)
            step[~better] /= 2
        else:
            X, g = Y, gy
            step = step * decay
    return best_x
