"""Intermediate bounds tightened by slopes optimised at the root (alpha-CROWN): proposals only.

Definition. :func:`tighten_root` takes the root box (no splits) and, ReLU layer by ReLU layer
from the second, optimises for each neuron the rule's slopes leave unstable the lower slopes of
the unstable neurons below it, once to raise its lower bound and once to lower its upper bound
(:func:`symrel.vnnlib.slopes.optimise` on the net cut at that layer, rows ``+z_i`` and
``-z_i``). The slopes are kept, not the bounds: every float run of the search
(:attr:`FloatBounds.tighten <symrel.vnnlib.floatbounds.FloatBounds.tighten>`) and every exact
leaf (:func:`symrel.vnnlib.symbolic.propagate`'s ``tighten``, recorded in the leaf:
docs/format.md, "tighten") recomputes those neurons' bounds with them under its own relaxations
of the layers below. Any slope in ``[0, 1]`` gives a valid bound, so the exact value at a leaf
is a bound whatever the floats were; and the floats see what the exact bounds will see (a node
whose split made a neuron active can have a looser bound than the root's: the floats do not
promise the root's there).

Why: the backward bounds with the rule's slopes (0 or 1) leave most neurons of the deeper layers
unstable; on MNIST 256x2 prop_10_0.05 the optimised slopes take the second layer from 67
unstable neurons to 16, and every unsafe disjunct closes at the root (open without them).

Cost: per layer ``iterations`` backward and forward passes of ``2 u`` rows (``u`` unstable
neurons), over the layers below it; then, at every run, one backward pass of those rows.
"""

from __future__ import annotations

try:  # the "numeric" extra
    import numpy as np
except ImportError:  # pragma: no cover
    np = None

from .floatbounds import FloatRun
from .slopes import optimise

#: Adam steps per layer
ITERATIONS = 30


def tighten_root(fb, lo, hi, iterations: int = ITERATIONS) -> dict:
    """The slopes of the tightened intermediate bounds (module docstring), as
    :attr:`FloatBounds.tighten <symrel.vnnlib.floatbounds.FloatBounds.tighten>` holds them:
    ``{k: (idx, slopes)}``; set on ``fb`` layer by layer as they are found, so that the bounds of
    the layers above are those the tightened ones give."""
    fb.tighten = {}
    n = len(lo)
    run = fb.run(lo, hi, {})
    for k in range(1, len(fb.relu_at)):
        l, u = run.pre[k]
        idx = np.nonzero((l < 0) & (u > 0))[0]
        if not len(idx):
            continue
        m = len(idx)
        AY = np.zeros((2 * m, len(l)))
        AY[np.arange(m), idx] = 1.0
        AY[m + np.arange(m), idx] = -1.0
        below = FloatRun(run.pre[:k], run.relax[:k], run.forms[:k], run.lo, run.hi)
        got = optimise(fb.cut(k), below, (), AY, np.zeros((2 * m, n)), iterations)
        slopes = [np.full((2 * m, len(run.pre[kk][0])), np.nan) for kk in range(k)]
        for (kk, c) in got.alphas[0]:
            slopes[kk][:, c] = [got.alphas[r][(kk, c)] for r in range(2 * m)]
        fb.tighten[k] = (idx, slopes)
        # layer k again (its bounds tightened) and the layers above it
        run = fb.run(lo, hi, {}, FloatRun(run.pre[:k], run.relax[:k], run.forms[:k], run.lo, run.hi), k - 1)
    return fb.tighten
