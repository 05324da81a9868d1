"""The split of a node where the inputs are many: ReLU splits alone, chosen by float bounds.

Definition. A net *splits on ReLUs* when it has at least :data:`RELU_ONLY_INPUTS` inputs (the
MNIST nets: 784). Halving one of 784 inputs barely moves a bound (the box's width in the
other 783 is what keeps the neurons unstable), so such a node is split on an unstable ReLU
only, as beta-CROWN and nnenum do; the box stays the root's. :func:`choose` returns the
neuron whose split scores highest, among

* the :data:`BABSR_CANDIDATES` neurons of highest BaBSR score (:meth:`FloatBounds.neuron_scores`:
  the loss of the neuron's relaxation weighted by its coefficient in the least-settled
  unsafe disjunct's bound), and
* the :data:`EARLY_CANDIDATES` unstable neurons of the lowest ReLU layer that has any, those of
  widest relaxation gap ``-l u / (u - l)`` times the weight they send up (``sum_j |W_ji|``):
  a neuron of a low layer loosens every bound above it, which the BaBSR score (the final
  bound's direct loss) does not see. The certificate's intermediate bounds are the checker's
  own (forward forms and backward bounds with the rule's slopes, docs/format.md), so the
  split of a low neuron is the one way to tighten them;

scored as the engine scores its splits (:func:`symrel.vnnlib.branching.branch`): by the float
gaps of its two parts (the most parts closed, then the highest sum), each part's run taking
the node's layers below the split from the node's run, and its layers above intersected with
the node's and tightened with the split's multipliers (:func:`child_gap`).

A node's slopes and multipliers (:func:`plan`) travel with its parts, which start theirs there;
its intermediate bounds above its lowest split are optimised again (:func:`retighten`) for
every neuron it leaves unstable, with the splits' multipliers started where the split changes
nothing, so that a part's bounds start at its parent's. On MNIST 256x2 prop_5_0.03 the search
had left every leaf open at 459 nodes: a first-layer neuron set active unsettled the second
layer (50 unstable neurons to 120), so first-layer splits scored low and their parts stayed
open; now it is unsat in 23 nodes.

Floats only choose; nothing here is trusted.

Cost: per candidate two float runs of the layers above the split, each layer computed once
(from the layers below as tightened) and for the neurons the node leaves unstable only
(:meth:`FloatBounds.run`'s ``within``: a part's bounds lie in its node's), with one backward
pass of two rows per unstable neuron of the layer above the split (:func:`retighten`'s start)
and ``CHILD_ITERATIONS`` Adam steps of the open disjuncts' rows; per node ``NODE_ITERATIONS``
steps of its open rows and ``NODE_TIGHT_ITERATIONS`` of its intermediate rows. The deeper the
net, the dearer a first-layer candidate: on MNIST 256x4 prop_5_0.03 an open node takes some
0.7 s of CPU, against 1.8 before these two savings (the same splits chosen in its first 17
nodes).
"""

from __future__ import annotations

from .close import Attempt, SplitBeta
from .gaps import Gap, dyadic, float_gaps
from .node import ReluSplit
from .problem import RELU_ONLY_INPUTS, candidates, splits_on_relus

__all__ = ["RELU_ONLY_INPUTS", "splits_on_relus", "choose", "plan", "child_gap", "node_run", "retighten", "pack", "unpack"]

#: BaBSR candidates scored by their parts' float gaps
BABSR_CANDIDATES = 3
#: candidates of the lowest ReLU layer with unstable neurons: a first-layer neuron set active can
#: settle most of the second layer (its part's bounds retightened), which BaBSR's score does not
#: see. MNIST 256x2 prop_5_0.03 (serial, load about 2): 2 candidates 273 nodes, 59 s of CPU; 4:
#: 161, 51 s; 6: 45, 16 s; 10: 23, 12 s
EARLY_CANDIDATES = 10


def _early(ctx, run, fixed, count):
    """The ``count`` unstable unfixed neurons of the lowest ReLU layer that has any, by gap times
    outgoing weight: ``[(score, k, i)]``."""
    import numpy as np

    layers = ctx.float_bounds.layers
    for k, (l, u) in enumerate(run.pre):
        unst = (l < 0) & (u > 0)
        for (fk, fi) in fixed:
            if fk == k:
                unst[fi] = False
        if not unst.any():
            continue
        li = ctx.float_bounds.relu_at[k]
        W_up = layers[li + 1][0] if li + 1 < len(layers) else None
        weight = np.abs(W_up).sum(axis=0) if W_up is not None else np.ones_like(l)
        gap = np.where(unst, -l * u / np.where(unst, u - l, 1.0), 0.0) * weight
        order = [int(i) for i in np.argsort(-gap, kind="stable") if unst[i]][:count]
        return [(float(gap[i]), k, i) for i in order]
    return []


def choose(ctx, d, flo, fhi, fixed, run, gaps, ay):
    """The :class:`~symrel.vnnlib.node.ReluSplit` of the node (module docstring), or None when no
    neuron is unstable. ``ay``: the output coefficients (floats) of the least-settled
    disjunct's atom."""
    scored = ctx.float_bounds.neuron_scores(run, ay, fixed) if any(ay) else []
    cands, seen = [], set()
    for _, k, i in scored[:BABSR_CANDIDATES] + [(s, k, i) for s, k, i in _early(ctx, run, fixed, EARLY_CANDIDATES)]:
        if (k, i) not in seen:
            seen.add((k, i))
            cands.append((k, i))
    if not cands:
        return None
    floor = min(g for g, _ in gaps)
    splits = tuple((k, i, ph) for (k, i), ph in fixed.items())
    options = []
    for rank, (k, i) in enumerate(cands):
        a = max(floor, child_gap(ctx, d, flo, fhi, dict(fixed) | {(k, i): 0}, splits + ((k, i, 0),), run, k))
        b = max(floor, child_gap(ctx, d, flo, fhi, dict(fixed) | {(k, i): 1}, splits + ((k, i, 1),), run, k))
        options.append(((a > 0) + (b > 0), a + b, -rank, ReluSplit(k, i)))
    return max(options, key=lambda o: o[:3])[3]


#: Adam steps of the slopes and multipliers at a node (:func:`plan`) and for a candidate's parts
NODE_ITERATIONS = 16
CHILD_ITERATIONS = 4


def _rows(ctx, d, gaps):
    """The candidate atoms of the open disjuncts with outputs: ``[(u, candidate, r)]``, ``r`` the
    atom's row in ``float_atoms[d]`` (its coefficients as floats)."""
    out = []
    for u, conj in enumerate(ctx.unsafe):
        g, j = gaps[u]
        if j is None or g > 0:
            continue
        c = candidates(ctx, d, conj)[j]
        if any(c.y):
            out.append((u, c, ctx.float_groups[d][u][0] + j))
    return out


def _float_rows(ctx, d, rows):
    AY, AX, _ = ctx.float_atoms[d]
    at = [r[-1] for r in rows]
    return AY[at], AX[at]


_OPTIMA: dict = {}  # (id(ctx), box, splits) -> (ctx, {disjunct: (slopes, multipliers)}) of a node's plan


def _parent_optimum(ctx, box, splits) -> dict:
    """The optimised slopes and multipliers of the parent of the node with ``splits`` (its
    splits but the last), per disjunct, where this worker planned it; else {}."""
    got = _OPTIMA.get((id(ctx), box, tuple(splits[:-1]))) if splits else None
    return got[1] if got is not None and got[0] is ctx else {}


def pack(optimum: dict) -> dict:
    """``{disjunct: (slopes, multipliers)}`` with the slopes ``{(k, i): a}`` as two arrays (the
    neurons, int32, and their slopes, float32): what a node's parts carry (:class:`~symrel.
    vnnlib.node.Open`'s ``warm``), some 12 bytes a neuron against a dict's hundred.

    >>> import pytest; np = pytest.importorskip("numpy")
    >>> unpack(pack({3: ({(0, 5): 0.25, (1, 2): 1.0}, {(0, 1): 2.0})}))
    {3: ({(0, 5): 0.25, (1, 2): 1.0}, {(0, 1): 2.0})}
    """
    import numpy as np

    out = {}
    for u, (alphas, betas) in optimum.items():
        keys = np.array(list(alphas), dtype=np.int32).reshape(len(alphas), 2)
        out[u] = (keys, np.array(list(alphas.values()), dtype=np.float32), dict(betas))
    return out


def unpack(packed: dict) -> dict:
    """:func:`pack`'s argument back (the slopes rounded to float32)."""
    return {u: (dict(zip(map(tuple, keys.tolist()), vals.tolist())), betas) for u, (keys, vals, betas) in packed.items()}


def _fl(v) -> float:
    return int(v.numerator) / int(v.denominator)


def plan(ctx, d, run, splits, gaps, proposals=None, warm=None, kept=None):
    """Per unsafe disjunct the :class:`~symrel.vnnlib.close.Attempt` the exact close tries first
    (None for an empty one): its best atom with, where the plain float bound leaves it open, the slopes and
    multipliers of :func:`symrel.vnnlib.slopes.optimise` (betas rounded by ``dyadic``, slopes
    down to ``1 / 2^SLOPE_BITS``, the float gap recomputed with them); ``gaps`` is updated.
    ``proposals``: a list that receives the box corners minimising the open rows' bounds (as
    beta-CROWN does, candidate counterexamples: the float net's margin decides). ``warm``: the
    parent's optimised slopes and multipliers (``{disjunct: (slopes, multipliers)}``, what
    ``kept`` receives), where Adam starts (else this worker's cache of recent nodes, else the
    rule's slopes); ``kept``: a dict that receives this node's, for its parts.

    Why the parent's: 16 steps from the rule's slopes fall short of the parent's optimum, so a
    part started afresh could have a lower bound than its parent although its relaxation is
    tighter (beta-CROWN keeps each domain's slopes and multipliers for its children too)."""
    from .slopes import optimise
    from .symbolic import SLOPE_BITS

    P = 1 << SLOPE_BITS
    out = []
    for u, conj in enumerate(ctx.unsafe):
        g, j = gaps[u]
        out.append(None if j is None else Attempt(candidates(ctx, d, conj)[j]))
    rows = _rows(ctx, d, gaps)
    if not rows:
        return out
    AY, AX = _float_rows(ctx, d, rows)
    box = (tuple(run.lo), tuple(run.hi))
    parent = unpack(warm) if warm is not None else _parent_optimum(ctx, box, splits)
    opt = optimise(ctx.float_bounds, run, splits, AY, AX, NODE_ITERATIONS, [parent.get(u) for u, *_ in rows])
    key = (id(ctx), box, tuple(splits))
    _OPTIMA.pop(key, None)
    mine = {u: (opt.alphas[r], dict(zip([(k, i) for k, i, _ in splits], opt.betas[r]))) for r, (u, *_) in enumerate(rows)}
    _OPTIMA[key] = (ctx, mine)
    if kept is not None:
        kept.update(pack(mine))
    while len(_OPTIMA) > RUNS_KEPT:
        _OPTIMA.pop(next(iter(_OPTIMA)))
    if proposals is not None and opt.corners is not None:
        proposals.extend(opt.corners)
    for r, (u, c, _) in enumerate(rows):
        bq = [dyadic(b) for b in opt.betas[r]]
        alphas = {key: min(P, max(0, int(a * P))) for key, a in opt.alphas[r].items()}
        fbetas = [(k, i, ph, _fl(b)) for (k, i, ph), b in zip(splits, bq)]
        g = ctx.float_bounds.lower(run, AY[r], AX[r], fbetas, {key: a / P for key, a in alphas.items()})[0] - _fl(c.rhs)
        if g > gaps[u].value:
            betas = tuple(SplitBeta(k, i, ph, b) for (k, i, ph), b in zip(splits, bq))
            out[u] = Attempt(c, betas or None, alphas or None)
            gaps[u] = Gap(g, gaps[u].atom)
    return out


def child_gap(ctx, d, flo, fhi, fixed, splits, base, start) -> float:
    """The float gap of the least-settled disjunct of a candidate split's part (a few steps of
    the slopes' optimisation where the plain bound leaves it open); ``base``, ``start``: the
    node's run and the split's ReLU layer, below which the part's run is the node's.

    Above the split the part's intermediate bounds are its own intersected with the node's
    (``within``, :data:`CHILD_WITHIN`): an estimate of what :func:`retighten` gives the part
    when it is evaluated (the split's multiplier recovers at least the node's bounds), where
    the part's own bounds with the node's slopes alone can be far looser (a low neuron set to
    ``z >= 0``: see :func:`retighten`); and they are tightened by :func:`retighten` with
    :data:`CHILD_TIGHT_ITERATIONS` steps (the multipliers' first values alone: the bounds
    at least the node's, and the split neuron's relaxation gone). Without these every split
    below the last ReLU layer scored below its real worth: on MNIST 256x2 prop_5_0.03 the root
    split a second-layer neuron (parts' gaps -0.61 and -0.20), where a first-layer neuron set
    active closes its part (+0.37 once the part's bounds are optimised)."""
    from .slopes import optimise

    above = ctx.tight and start < len(base.pre) - 1  # the layers above the split tightened: computed after
    run = ctx.float_bounds.run(flo, fhi, fixed, base, start, within=base.pre if CHILD_WITHIN else None,
                               upto=start + 1 if above else None)
    run.tight = _inherit(ctx, base, start)
    if above:  # the layers above the split with its multiplier, unoptimised
        run = retighten(ctx, flo, fhi, fixed, splits, run, start, CHILD_TIGHT_ITERATIONS, start + CHILD_TIGHT_LAYERS,
                        within=base.pre if CHILD_WITHIN else None)
    gaps = float_gaps(ctx, d, run)
    worst = min(g for g, _ in gaps)
    if worst > 0:
        return worst
    rows = _rows(ctx, d, gaps)
    if rows:
        AY, AX = _float_rows(ctx, d, rows)
        parent = _parent_optimum(ctx, (tuple(run.lo), tuple(run.hi)), splits)
        opt = optimise(ctx.float_bounds, run, splits, AY, AX, CHILD_ITERATIONS, [parent.get(u) for u, *_ in rows])
        for r, (u, c, _) in enumerate(rows):
            gaps[u] = Gap(max(gaps[u].value, opt.bounds[r] - _fl(c.rhs)), gaps[u].atom)
    return min(g for g, _ in gaps)


#: a candidate part's intermediate bounds above its split intersected with its node's (:func:`child_gap`)
CHILD_WITHIN = True

#: Adam steps of a candidate part's intermediate bounds (:func:`child_gap`; 0: their start)
CHILD_TIGHT_ITERATIONS = 0
#: the ReLU layers above a candidate's split whose bounds :func:`child_gap` tightens (the
#: others: the part's own intersected with the node's). All of them cost 256x6 some 23 s of CPU
#: a node (5 layers, 20 parts)
CHILD_TIGHT_LAYERS = 1

#: the optimised slopes and multipliers of the nodes a worker planned last (:data:`_OPTIMA`)
RUNS_KEPT = 12


def node_run(ctx, flo, fhi, splits):
    """The float run of a node (:meth:`FloatBounds.run`) on the box ``[flo, fhi]`` with the
    ReLU splits ``splits`` (path order): computed from the box and the splits alone, with the
    root's intermediate slopes and every ReLU layer above the lowest split optimised again
    (:func:`retighten`).

    Why from scratch: the engine's results must be the serial run's on any executor, so a
    node's floats may not depend on what its worker evaluated before. Taking the layers below
    the split from the parent's run, or the part's run its candidate scoring made, where this
    worker still held them, gave other floats than this (different slopes and multipliers in
    the certificate: a random 64-input net, 89 nodes, 2 of them) and so a certificate that
    changed with the executor's scheduling. Those shortcuts were taken for about one node in
    forty in a serial run; a node's cost is its retightening either way."""
    fixed = {(k, i): ph for k, i, ph in splits}
    after = min((k for k, _, _ in splits), default=None)
    run = ctx.float_bounds.run(flo, fhi, fixed, upto=_first_above(ctx, splits, after))
    run.tight = ctx.tight
    if splits and ctx.tight:
        run = retighten(ctx, flo, fhi, fixed, splits, run, after)
    return run


def _first_above(ctx, splits, after):
    """The last ReLU layer :func:`node_run` computes before :func:`retighten` (which computes
    the others from the layers it tightens): the one above ``after``; None (all) when the
    node is not retightened."""
    return after + 1 if splits and ctx.tight and after is not None else None


def _inherit(ctx, base, start):
    """The intermediate slopes of a run that takes its layers up to ``start`` from ``base``:
    ``base``'s up there, the root's above."""
    mine = getattr(base, "tight", None) or ctx.tight or {}
    out = {}
    for k in (ctx.tight or {}):
        got = (mine if k <= start else ctx.tight).get(k)
        if got is not None:
            out[k] = got
    return out or ctx.tight


#: Adam steps of a node's intermediate bounds above its lowest split (:func:`retighten`)
NODE_TIGHT_ITERATIONS = 10


def retighten(ctx, flo, fhi, fixed, splits, run, after, iterations=None, upto=None, within=None):
    """The node's run with the intermediate bounds above its lowest split optimised again, now
    with the splits' multipliers (beta-CROWN's intermediate bounds) and the slopes started at the
    root's, in the ReLU layers above ``after`` (below, the run's own, from its parent): a split on a low neuron set to ``z >= 0`` makes ``h = z`` over the whole box (the
    split's halfspace is not in the box), so the root's slopes alone can give a looser bound than
    the root's, which a multiplier of the split recovers (MNIST 256x2 prop_0_0.03, a first-layer
    neuron set active: 178 unstable neurons in the second layer with the root's slopes, 71 with
    both, and the disjunct's gap from -1.02 to +0.39). ``run.tight`` then holds the slopes
    and multipliers, per layer, for the exact leaf (:func:`symbolic.propagate`'s ``tighten``).
    ``iterations``: Adam's steps (default :data:`NODE_TIGHT_ITERATIONS`); ``upto``: the
    highest ReLU layer optimised (None: all); ``within``: the bounds the layers above are
    intersected with (a candidate part's estimate: :func:`child_gap`).

    The neurons optimised are those the node leaves unstable, the root's tightened ones and the
    others alike: a split neuron set to ``z >= 0`` can unsettle neurons the root's slopes had
    settled, and their bounds need the split's multiplier too (on 256x2 prop_5_0.03, with the
    root's neurons alone, a first-layer split left 120 second-layer neurons unstable, against
    50 at the root; with all, 10 to 33). Each multiplier starts where the split changes
    nothing (:func:`symrel.vnnlib.slopes._first_betas`), so the bounds start at the root's.

    ``run`` may stop below the layers tightened (:meth:`FloatBounds.run`'s ``upto``): each layer
    above ``after`` is computed once, from the layers below as tightened (:func:`_extend`), then
    tightened; the run returned has every layer.

    Cost: per layer tightened, ``iterations + 1`` backward passes and ``iterations`` forward
    passes of two rows per open neuron through the layers below, and one float run of the
    layer (two backward passes of its rows): linear in the depth, where computing every layer
    above again after each tightened one was quadratic (256x6, a first-layer split: 15 layers'
    passes to the input against 55)."""
    import numpy as np

    from .floatbounds import FloatRun
    from .slopes import optimise

    fb = ctx.float_bounds
    tight = dict(run.tight or ctx.tight)
    n = len(flo)
    for k in sorted(fb.tighten):
        if after is not None and k <= after or upto is not None and k > upto:
            continue
        if len(run.pre) <= k:  # layer k from the layers below as tightened (once: _extend)
            run = _extend(fb, flo, fhi, fixed, run, k, within)
        idx_root, root_rows = fb.tighten[k][:2]
        l, u = run.pre[k]
        open_ = [int(i) for i in np.nonzero((l < 0) & (u > 0))[0] if (k, int(i)) not in fixed]
        if not open_:
            continue
        # the root's neurons and those the node's splits left unstable though the root's slopes
        # settled them (a split neuron's h = z over the box: see the docstring)
        idx_all = np.array(sorted({int(i) for i in idx_root} | set(open_)), dtype=idx_root.dtype)
        idx, m, mr, mr0 = open_, len(open_), len(idx_all), len(idx_root)
        where = {int(i): j for j, i in enumerate(idx_all)}
        at_root = {int(i): j for j, i in enumerate(idx_root)}
        AY = np.zeros((2 * m, len(l)))
        AY[np.arange(m), idx] = 1.0
        AY[m + np.arange(m), idx] = -1.0
        # each row starts at the root's slopes of its neuron (NaN: the rule's, as for a neuron
        # the root did not tighten), as arrays: no dict per row
        src = np.array([at_root.get(i, -1) for i in idx], dtype=np.int64)
        have = np.nonzero(src >= 0)[0]
        start = []
        for kk in range(k):
            got_kk = np.full((2 * m, root_rows[kk].shape[1]), np.nan)
            got_kk[have] = root_rows[kk][src[have]]
            got_kk[m + have] = root_rows[kk][src[have] + mr0]
            start.append(got_kk)
        sp = tuple(s for s in splits if s[0] < k)
        below = FloatRun(run.pre[:k], run.relax[:k], run.forms[:k], run.lo, run.hi)
        got = optimise(fb.cut(k), below, sp, AY, np.zeros((2 * m, n)),
                       NODE_TIGHT_ITERATIONS if iterations is None else iterations, start_slopes=start)
        b = np.array(got.bounds)
        nl, nu = l.copy(), u.copy()
        nl[idx] = np.maximum(l[idx], b[:m])
        nu[idx] = np.minimum(u[idx], -b[m:])
        # every neuron of the root's entry, the ones optimised here with their new slopes and
        # multipliers (the exact leaf tightens each neuron the rule leaves open: those the root's
        # slopes settled in floats keep them)
        rows = [np.full((2 * mr, r.shape[1]), np.nan) for r in root_rows]
        for i, j in at_root.items():
            for kk in range(k):
                rows[kk][where[i]] = root_rows[kk][j]
                rows[kk][where[i] + mr] = root_rows[kk][j + mr0]
        mult = np.zeros((2 * mr, len(sp)))
        at = np.array([where[i] for i in idx], dtype=np.int64)
        at = np.concatenate([at, at + mr])  # row r of the optimisation is row at[r] of the entry
        for kk in range(k):
            rows[kk][at] = np.nan
            rows[kk][np.ix_(at, got.unstable[kk])] = got.slopes[kk]
        if len(sp):
            mult[at] = np.array(got.betas)
        tight[k] = (idx_all, rows, (sp, mult))
        pre = run.pre[:k] + [(nl, nu)]
        run = fb.run(flo, fhi, fixed, FloatRun(pre, run.relax[:k], run.forms[:k + 1], run.lo, run.hi), k, upto=k)
    run = _extend(fb, flo, fhi, fixed, run, None, within)
    run.tight = tight
    return run


def _extend(fb, flo, fhi, fixed, run, upto, within=None):
    """``run`` (its ReLU layers up to some ``k``) with the layers above computed up to ``upto``
    (None: all) from its own: :meth:`FloatBounds.run` from its last layer. :func:`retighten`
    computes each layer above a split once this way, from the tightened layers below, where
    computing all of them after each tightened layer cost the deeper nets a quadratic number
    of backward passes (the same floats)."""
    last = len(fb.relu_at) - 1
    have = len(run.pre) - 1
    if have >= (last if upto is None else min(upto, last)):
        return run
    tight = run.tight
    run = fb.run(flo, fhi, fixed, run, have, within=within, upto=upto)
    run.tight = tight
    return run
