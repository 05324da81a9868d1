"""Lower slopes and split multipliers optimised by projected gradient ascent (alpha-beta-CROWN):
proposals only.

Definition. For fixed intermediate bounds (a :class:`~symrel.vnnlib.floatbounds.FloatRun`),
the backward bound of a row ``ay . y + ax . x`` is a function ``B(alpha, beta)`` of the lower
slopes ``alpha`` of the unstable neurons (each in ``[0, 1]``: ``h >= alpha z`` holds for every
``z``) and of the splits' multipliers ``beta >= 0`` (beta-CROWN: ``-beta z`` where a split set
``z >= 0``, ``+beta z`` where it set ``z <= 0``). Every value of ``B`` is a lower bound of the
row on the node's part, and its maximum over ``alpha`` and ``beta`` is the LP bound of the
relaxed net (:func:`symrel.vnnlib.betas.network_multipliers` solves that LP; this climbs to it).
:func:`optimise` runs Adam on ``(alpha, beta)``, projected onto ``[0, 1]`` and ``[0, inf)``,
for several rows at once, each with its own slopes, and returns per row the best bound seen
and the slopes and multipliers that gave it.

The gradient. The backward pass maps the coefficients ``nu`` over a ReLU's output to ``alpha nu``
(``nu > 0``) or ``aU nu`` (``nu < 0``, the constant gaining ``nu tU``), then through the layer
below. Its reverse, from the minimising corner ``x*`` of the final form, is a forward pass of
``x*`` through the relaxed net with the lines the backward pass chose: ``dB / d alpha_i = nu_i
g_i`` for ``nu_i > 0``, with ``g_i`` the value that forward pass gives neuron ``i``'s
pre-activation; ``dB / d beta = -+ g_i`` of the split neuron.

Why: the LP of :mod:`symrel.vnnlib.betas` has a column per input; at 784 inputs it takes about
half a second per row on the MNIST nets, where this takes some 30 backward passes of a few
rows (milliseconds each). The exact bounds (:mod:`symrel.vnnlib.symbolic`) recompute every
bound with the slopes and multipliers rounded to rationals: nothing here is trusted.

Cost: ``iterations`` backward passes and as many forward passes of ``rows`` vectors.

>>> import pytest; _ = pytest.importorskip("numpy")
>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib.floatbounds import FloatBounds
>>> from symrel.vnnlib.symbolic import integer_net
>>> fb = FloatBounds(integer_net(ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]),
...                                          DenseLayer([[1, 1]], [0], "none")])))  # |x|
>>> run = fb.run([-1.0], [2.0], {})
>>> round(fb.lower(run, [1.0], [0.0])[0], 3)                  # the rule's slopes: |x| >= -1
-1.0
>>> best = optimise(fb, run, (), np.array([[1.0]]), np.array([[0.0]]))
>>> a = sorted(best.alphas[0].values())               # equal slopes a: |x| >= a x - a x = 0
>>> best.bounds[0] > -0.01 and abs(a[0] - a[1]) < 0.01
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

try:  # the "numeric" extra; the engine imports this module only where numpy is installed
    import numpy as np
except ImportError:  # pragma: no cover - a core-only install (the doctests skip there)
    np = None

#: Adam's steps
ITERATIONS = 24
#: Adam's step size (slopes live in [0, 1]; multipliers are scaled by each split's range)
STEP = 0.2


@dataclass
class Optimised:
    """Per row: ``bounds[r]`` the best float bound, ``alphas[r]`` its slopes ``{(k, i): a}`` of
    every unstable neuron, ``betas[r]`` its multipliers, one per split, in the splits' order.
    ``slopes[k]``: the same slopes as an array (rows x ``unstable[k]``, the neurons of ReLU
    layer ``k`` with a free slope), from which ``alphas`` is made when first asked for (a
    caller that wants arrays spares the dicts: some 80,000 of them a minute on MNIST 256x4)."""

    bounds: list
    slopes: list
    unstable: list
    betas: list
    corners: object = None  # rows x inputs: the box corner minimising each row's best bound (a candidate counterexample)

    @cached_property
    def alphas(self) -> list:
        return [{(k, int(i)): float(v) for k, u in enumerate(self.unstable) for i, v in zip(u, self.slopes[k][r])}
                for r in range(len(self.bounds))]


def _unstable(run):
    """Per ReLU layer the indices of the neurons with a free lower slope: relaxed (not settled,
    not fixed by a split), as :meth:`FloatBounds.run` leaves them (``aU`` strictly inside
    ``(0, 1)`` or a chord above a range across 0)."""
    out = []
    for aL, aU, tU in run.relax:
        out.append(np.nonzero(tU > 0)[0])
    return out


def _bound(fb, run, AY, AX, alpha, splits, beta, keep=False, before=None):
    """The backward bounds of the rows (``AY``, ``AX``) with per-row slopes ``alpha[k]`` (rows x
    unstable of layer k) and multipliers ``beta`` (rows x splits); with ``keep``, the
    coefficients over each ReLU's output (for the gradient) and the minimising corner. With
    ``before`` (rows x splits: the split neurons' slopes before their splits), each NaN of
    ``beta`` is first set, in place, as :func:`_first_betas` states."""
    layers = fb.layers
    top = len(layers) - 1
    rows = AY.shape[0]
    C = AY.copy()
    const = np.zeros(rows)
    k = len(fb.relu_at)
    nus = [None] * k
    unst = _unstable(run)
    for li in range(top, -1, -1):
        W, b, relu = layers[li]
        if relu:
            k -= 1
            aL, aU, tU = run.relax[k]
            slope = np.broadcast_to(aL, C.shape).copy()
            if len(unst[k]):
                slope[:, unst[k]] = alpha[k]
            if keep:
                nus[k] = C
            if before is not None:
                for j, (sk, si, ph) in enumerate(splits):
                    if sk == k:
                        c = np.maximum(C[:, si], 0.0)
                        first = c * (1.0 - before[:, j]) if ph == 1 else c * before[:, j]
                        beta[:, j] = np.where(np.isnan(beta[:, j]), first, beta[:, j])
            pos = C > 0
            const = const + np.where(pos, 0.0, C) @ tU
            C = np.where(pos, C * slope, C * aU)
            for j, (sk, si, ph) in enumerate(splits):
                if sk == k:
                    C[:, si] += -beta[:, j] if ph == 1 else beta[:, j]
        const = const + C @ b
        C = C @ W
    A = C + AX
    corner = np.where(A > 0, run.lo, run.hi)
    bound = np.einsum("ij,ij->i", A, corner) + const
    return bound, nus, corner


def _first_betas(fb, run, AY, alpha, splits, beta, before):
    """``beta`` with each NaN (a split's multiplier not given) set so that the split neuron's
    term is what it was before the split: where its output's coefficient ``c`` in the backward
    pass is positive, the lower line ``h >= a z`` of slope ``a = before`` gave ``c a z``; with
    the split ``h = z`` (phase 1) the multiplier ``c (1 - a)`` gives it again (``c z - beta z``),
    with ``h = 0`` (phase 0) the multiplier ``c a`` does (``0 + beta z``). Where ``c <= 0`` the
    multiplier is 0: the split's line is then at least the upper line of the relaxation on the
    neuron's range. So a part starts from its parent's bound, not below it (for a split of the
    first ReLU layer, whose ``z`` is affine in the input, exactly: on MNIST 256x2 a first-layer
    neuron set active took the second layer from 50 unstable neurons to 120 with multipliers
    started at 0, since the root's slopes of that neuron's coefficients no longer apply).

    Cost: one backward pass of the rows."""
    beta = beta.copy()
    _bound(fb, run, np.asarray(AY, dtype=float), np.zeros((len(beta), len(run.lo))), alpha, splits, beta,
           before=before)
    return beta


def _gradient(fb, run, alpha, splits, nus, corner):
    """``(dB / d alpha[k], dB / d beta)`` per row: the minimising corner sent forward through the
    relaxed net with the lines of the backward pass (module docstring)."""
    unst = _unstable(run)
    rows = corner.shape[0]
    G = corner  # the values over the input of each row's forward pass
    k = -1
    g_alpha = [None] * len(fb.relu_at)
    g_beta = np.zeros((rows, len(splits)))
    last = len(fb.layers) - 1
    for li, (W, b, relu) in enumerate(fb.layers):
        if li == last:
            break
        Z = G @ W.T + b  # the pre-activations' values
        if not relu:
            G = Z
            continue
        k += 1
        aL, aU, tU = run.relax[k]
        nu = nus[k]
        pos = nu > 0
        if len(unst[k]):
            g_alpha[k] = np.where(pos[:, unst[k]], nu[:, unst[k]] * Z[:, unst[k]], 0.0)
        for j, (sk, si, ph) in enumerate(splits):
            if sk == k:
                g_beta[:, j] = -Z[:, si] if ph == 1 else Z[:, si]
        slope = np.broadcast_to(aL, nu.shape).copy()
        if len(unst[k]):
            slope[:, unst[k]] = alpha[k]
        G = np.where(pos, slope * Z, aU * Z + tU)
    return g_alpha, g_beta


def optimise(fb, run, splits, AY, AX, iterations: int = ITERATIONS, start=None, start_slopes=None) -> Optimised:
    """Best bounds of the rows ``AY[r] . y + AX[r] . x`` over slopes and multipliers (module
    docstring); ``splits``: ``(k, i, phase)`` per split of the node, in order; ``start``: per
    row None or ``(alphas, betas)`` to start from (a parent node's :class:`Optimised` entries:
    slopes ``{(k, i): a}`` of the neurons still unstable here, the rule's for the others;
    multipliers ``{(k, i): beta}`` of its splits, 0 for the others), else the rule's slopes and 0;
    ``start_slopes``: instead of ``start``, per ReLU layer ``k`` an array (rows x its width) of
    the slopes to start from, NaN where the rule's (the multipliers then start as not given)."""
    AY = np.asarray(AY, dtype=float)
    AX = np.asarray(AX, dtype=float)
    rows = AY.shape[0]
    unst = _unstable(run)
    alpha = [np.tile(run.relax[k][0][u], (rows, 1)) for k, u in enumerate(unst)]
    beta = np.full((rows, len(splits)), np.nan)  # NaN: a multiplier not given, set by _first_betas
    before = np.array([[1.0 if run.pre[k][1][i] >= -run.pre[k][0][i] else 0.0 for k, i, _ in splits]] * rows)
    before = before.reshape(rows, len(splits))
    if start_slopes is not None:
        for k, u in enumerate(unst):
            given = start_slopes[k][:, u]
            alpha[k] = np.where(np.isnan(given), alpha[k], given)
        for j, (k, i, _) in enumerate(splits):
            given = start_slopes[k][:, i]
            before[:, j] = np.where(np.isnan(given), before[:, j], given)
    for r, got in enumerate(start or ()):
        if got is None:
            continue
        a0, b0 = got
        for k, u in enumerate(unst):
            for j, i in enumerate(u):
                v = a0.get((k, int(i)))
                if v is not None:
                    alpha[k][r, j] = v
        for j, (k, i, _) in enumerate(splits):
            v = b0.get((k, i))
            if v is not None:
                beta[r, j] = v
            if (k, i) in a0:
                before[r, j] = a0[(k, i)]
    # the multipliers not given are set by the first step's backward pass on its way down
    # (_first_betas' values: a split's multiplier is used only below its layer), one pass saved
    first = before if np.isnan(beta).any() else None
    # a multiplier's scale: the range of its neuron (a slope's is 1)
    scale = np.array([max(float(run.pre[k][1][i] - run.pre[k][0][i]), 1e-9) for k, i, _ in splits])
    best_bound = np.full(rows, -np.inf)
    best_corner = None
    best_alpha = [a.copy() for a in alpha]
    best_beta = beta.copy()
    m_a = [np.zeros_like(a) for a in alpha]
    v_a = [np.zeros_like(a) for a in alpha]
    m_b, v_b = np.zeros_like(beta), np.zeros_like(beta)
    b1, b2, eps = 0.9, 0.999, 1e-8
    for it in range(iterations + 1):
        bound, nus, corner = _bound(fb, run, AY, AX, alpha, splits, beta, keep=True, before=first if it == 0 else None)
        if it == 0:
            best_beta = beta.copy()
        better = bound > best_bound
        if better.any():
            best_bound = np.where(better, bound, best_bound)
            best_corner = corner if it == 0 else np.where(better[:, None], corner, best_corner)
            for k in range(len(alpha)):
                best_alpha[k][better] = alpha[k][better]
            best_beta[better] = beta[better]
        if it == iterations:
            break
        ga, gb = _gradient(fb, run, alpha, splits, nus, corner)
        t = it + 1
        lr = STEP * (1.0 - 0.5 * it / iterations)
        for k in range(len(alpha)):
            if ga[k] is None or not ga[k].size:
                continue
            m_a[k] = b1 * m_a[k] + (1 - b1) * ga[k]
            v_a[k] = b2 * v_a[k] + (1 - b2) * ga[k] ** 2
            step = lr * (m_a[k] / (1 - b1 ** t)) / (np.sqrt(v_a[k] / (1 - b2 ** t)) + eps)
            alpha[k] = np.clip(alpha[k] + step, 0.0, 1.0)
        if len(splits):
            m_b = b1 * m_b + (1 - b1) * gb
            v_b = b2 * v_b + (1 - b2) * gb ** 2
            step = lr * (m_b / (1 - b1 ** t)) / (np.sqrt(v_b / (1 - b2 ** t)) + eps)
            beta = np.maximum(beta + step * scale, 0.0)
    return Optimised([float(v) for v in best_bound], best_alpha, unst,
                     [list(map(float, best_beta[r])) for r in range(rows)], best_corner)
