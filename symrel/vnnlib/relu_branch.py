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

scored as the engine scores its splits (:func:`symrel.vnnlib.engine._branch`): by the float
gaps of its two parts (the most parts closed, then the highest sum), each part's run taking
the node's layers below the split from the node's run.

Floats only choose; nothing here is trusted.

Cost: per candidate two float runs of the layers from the split up, with the splits' betas
(an LP in the inputs) where a part stays open.
"""

from __future__ import annotations

#: inputs from which a node is split on ReLUs alone (module docstring); ACAS Xu has 5
RELU_ONLY_INPUTS = 64
#: BaBSR candidates scored by their parts' float gaps
BABSR_CANDIDATES = 3
#: candidates of the lowest ReLU layer with unstable neurons
EARLY_CANDIDATES = 2


def splits_on_relus(ctx) -> bool:
    """Whether the nodes of ``ctx``'s problem are split on ReLUs alone."""
    return ctx.inet.n_inputs >= RELU_ONLY_INPUTS


def _early(ctx, run, fixed, count):
    """The ``count`` unstable unfixed neurons of the lowest ReLU layer that has any, by gap times
    outgoing weight: ``[(score, k, i)]``."""
    import numpy as np

    layers = ctx.fb.layers
    for k, (l, u) in enumerate(run.pre):
        unst = (l < 0) & (u > 0)
        for (fk, fi) in fixed:
            if fk == k:
                unst[fi] = False
        if not unst.any():
            continue
        li = ctx.fb.relu_at[k]
        W_up = layers[li + 1][0] if li + 1 < len(layers) else None
        weight = np.abs(W_up).sum(axis=0) if W_up is not None else np.ones_like(l)
        gap = np.where(unst, -l * u / np.where(unst, u - l, 1.0), 0.0) * weight
        order = [int(i) for i in np.argsort(-gap, kind="stable") if unst[i]][:count]
        return [(float(gap[i]), k, i) for i in order]
    return []


def choose(ctx, d, flo, fhi, fixed, run, gaps, ay, node_gap):
    """The ReLU split ``("relu", k, i)`` of the node (module docstring), or None when no neuron
    is unstable. ``ay``: the output coefficients of the least-settled disjunct's atom;
    ``node_gap(fixed, splits, start)``: the float gap of a part (the engine's ``_node_gap``)."""
    scored = ctx.fb.neuron_scores(run, ay, fixed) if any(ay) else []
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
        a = max(floor, node_gap(dict(fixed) | {(k, i): 0}, splits + ((k, i, 0),), k))
        b = max(floor, node_gap(dict(fixed) | {(k, i): 1}, splits + ((k, i, 1),), k))
        options.append(((a > 0) + (b > 0), a + b, -rank, ("relu", k, i)))
    return max(options, key=lambda o: o[:3])[3]


#: Adam steps of the slopes and multipliers at a node (:func:`plan`) and for a candidate's parts
NODE_ITERATIONS = 16
CHILD_ITERATIONS = 4


def _rows(ctx, d, gaps, candidates):
    """The atoms of the open disjuncts with outputs: ``[(u, ref, ay, ax, rhs, r)]``, ``r`` the
    atom's row in ``ctx.float_atoms[d]`` (its coefficients as floats)."""
    out = []
    for u, conj in enumerate(ctx.unsafe):
        g, j = gaps[u]
        if j is None or g > 0:
            continue
        ref, ay, ax, rhs = candidates(ctx, d, conj)[j]
        if any(ay):
            out.append((u, ref, ay, ax, rhs, ctx.float_groups[d][u][0] + j))
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


def _fl(v) -> float:
    return int(v.numerator) / int(v.denominator)


def plan(ctx, d, run, splits, gaps, candidates, dyadic, proposals=None):
    """Per unsafe disjunct the engine's plan ``(ref, ay, ax, rhs, betas, alphas)`` (None for an
    empty one): its best atom with, where the plain float bound leaves it open, the slopes and
    multipliers of :func:`symrel.vnnlib.slopes.optimise` (betas rounded by ``dyadic``, slopes
    down to ``1 / 2^SLOPE_BITS``, the float gap recomputed with them); ``gaps`` is updated.
    ``proposals``: a list that receives the box corners minimising the open rows' bounds (as
    beta-CROWN does, candidate counterexamples: the float net's margin decides)."""
    from .slopes import optimise
    from .symbolic import SLOPE_BITS

    P = 1 << SLOPE_BITS
    out = []
    for u, conj in enumerate(ctx.unsafe):
        g, j = gaps[u]
        out.append(None if j is None else candidates(ctx, d, conj)[j] + (None, None))
    rows = _rows(ctx, d, gaps, candidates)
    if not rows:
        return out
    AY, AX = _float_rows(ctx, d, rows)
    box = (tuple(run.lo), tuple(run.hi))
    parent = _parent_optimum(ctx, box, splits)
    opt = optimise(ctx.fb, run, splits, AY, AX, NODE_ITERATIONS, [parent.get(u) for u, *_ in rows])
    _OPTIMA.pop((id(ctx), box, splits), None)
    _OPTIMA[(id(ctx), box, splits)] = (ctx, {u: (opt.alphas[r], dict(zip([(k, i) for k, i, _ in splits], opt.betas[r])))
                                             for r, (u, *_) in enumerate(rows)})
    while len(_OPTIMA) > RUNS_KEPT:
        _OPTIMA.pop(next(iter(_OPTIMA)))
    if proposals is not None and opt.corners is not None:
        proposals.extend(opt.corners)
    for r, (u, ref, ay, ax, rhs, _) in enumerate(rows):
        bq = [dyadic(b) for b in opt.betas[r]]
        alphas = {key: min(P, max(0, int(a * P))) for key, a in opt.alphas[r].items()}
        fbetas = [(k, i, ph, _fl(b)) for (k, i, ph), b in zip(splits, bq)]
        g = ctx.fb.lower(run, AY[r], AX[r], fbetas, {key: a / P for key, a in alphas.items()})[0] - _fl(rhs)
        if g > gaps[u][0]:
            betas = tuple((k, i, ph, b) for (k, i, ph), b in zip(splits, bq))
            out[u] = (ref, ay, ax, rhs, betas or None, alphas or None)
            gaps[u] = (g, gaps[u][1])
    return out


def child_gap(ctx, d, flo, fhi, fixed, splits, base, start, float_gaps, candidates) -> float:
    """The float gap of the least-settled disjunct of a candidate split's part (a few steps of
    the slopes' optimisation where the plain bound leaves it open); ``base``, ``start``: the
    node's run and the split's ReLU layer, below which the part's run is the node's."""
    from .slopes import optimise

    run = ctx.fb.run(flo, fhi, fixed, base, start)
    _keep((id(ctx), (tuple(flo), tuple(fhi)), frozenset(fixed.items())), run, ctx)
    gaps = float_gaps(ctx, d, run)
    worst = min(g for g, _ in gaps)
    if worst > 0:
        return worst
    rows = _rows(ctx, d, gaps, candidates)
    if rows:
        AY, AX = _float_rows(ctx, d, rows)
        parent = _parent_optimum(ctx, (tuple(run.lo), tuple(run.hi)), splits)
        opt = optimise(ctx.fb, run, splits, AY, AX, CHILD_ITERATIONS, [parent.get(u) for u, *_ in rows])
        for r, (u, _, _, _, rhs, _) in enumerate(rows):
            gaps[u] = (max(gaps[u][0], opt.bounds[r] - _fl(rhs)), gaps[u][1])
    return min(g for g, _ in gaps)


#: float runs a worker keeps (the nodes' and their candidate parts'), most recent last
RUNS_KEPT = 12
_RUNS: dict = {}


def _keep(key, run, ctx):
    _RUNS.pop(key, None)
    _RUNS[key] = (ctx, run)
    while len(_RUNS) > RUNS_KEPT:
        _RUNS.pop(next(iter(_RUNS)))


def node_run(ctx, flo, fhi, splits):
    """The float run of a node (:meth:`FloatBounds.run`) on the box ``[flo, fhi]`` with the
    ReLU splits ``splits`` (path order): the one kept when this worker computed it already (as
    a candidate part of the parent's split), else the parent's run's layers below the last
    split taken when kept, else all of it. The same floats as a run from scratch."""
    box = (tuple(flo), tuple(fhi))
    fixed = {(k, i): ph for k, i, ph in splits}
    key = (id(ctx), box, frozenset(fixed.items()))
    got = _RUNS.get(key)
    if got is not None and got[0] is ctx:  # (an id is unique only among live objects)
        return got[1]
    base = start = None
    if splits:
        k, i, _ = splits[-1]
        parent = dict(fixed)
        parent.pop((k, i))
        got = _RUNS.get((id(ctx), box, frozenset(parent.items())))
        if got is not None and got[0] is ctx:
            base, start = got[1], k
    run = ctx.fb.run(flo, fhi, fixed, base, start) if base is not None else ctx.fb.run(flo, fhi, fixed)
    _keep(key, run, ctx)
    return run
