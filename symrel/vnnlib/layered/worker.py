"""The work on one node of the search: close it exactly, propose a point, or choose a split.

Definition. :func:`evaluate` takes a :class:`~symrel.vnnlib.layered.node.Node` and returns an
:class:`~symrel.vnnlib.layered.node.Outcome`:

1. the float bounds of the node (:mod:`~symrel.vnnlib.layered.floatbounds`; the entries of a nonlinear op whose
   input an affine op computes after an earlier nonlinear op are refined by backward
   substitution) give, per unsafe disjunct the node must close, the candidate with the
   highest float lower bound; where it is not above its ``rhs``, the LP over the relaxed net
   (:mod:`~symrel.vnnlib.layered.lp`) proposes multipliers (slopes, pieces, the splits' betas and lambdas), and
   where that LP leaves it open too, the LP with the ReLUs' concave envelopes over the box of
   their few inputs (a 2 x 2 convolution's four pixels) proposes lines for them;
2. the proposals are checked exactly (:mod:`~symrel.vnnlib.layered.bounds`, the computation the trusted checker
   repeats): an unsafe disjunct is closed only when its exact bound exceeds ``rhs``. Every
   disjunct closed: ``closed``, with the leaf's facts (docs/format.md). Some closed, at a
   node that must close them all: ``split`` by unsafe disjunct, the closed parts' facts
   attached. An empty part (a split's clip leaves an entry no value) closes with ``empty``;
3. on a fresh box whose float bounds leave an unsafe disjunct open, first (before any exact
   close or LP of step 1 and 2), a float attack (:mod:`~symrel.vnnlib.layered.attack`) on
   the unsafe disjuncts: a point of float margin ``>= 0`` is a ``candidate`` for the
   driver's exact check, without a split (refuted, the node is evaluated again as a box
   already attacked);
4. otherwise ``split``, chosen among the ReLU and max splits scored highest
   (:func:`~symrel.vnnlib.layered.floatbounds.scores`) and, on nets of few inputs, the halvings of the inputs that
   weigh most in the worst candidate's lower form: the split whose parts' float gaps are
   best (most parts closed in floats, then the least open gap).

Nothing float closes a node. Cost: a few float passes and at most two LPs per open unsafe
disjunct, one exact pass where the floats say closed, at most one attack per fresh box.
"""

from __future__ import annotations

import zlib

from ...exact import Q, format_rational
from .bounds import leaf_bounds, lower_bound
from .node import InputSplit, MaxSplit, Outcome, ReluSplit, UnsafeSplit
from .ops.relu import P

try:
    import numpy as np

    from .attack import propose
    from .floatbounds import float_bounds, float_form, float_lower, scores
    from .lp import multipliers
except ImportError:  # pragma: no cover - a core-only install
    np = None

#: inputs up to which input splits are candidates (beyond, a halving of one input of many
#: rarely closes anything)
INPUT_SPLIT_MAX = 16
#: ReLU or max splits whose parts are tried in floats
SPLIT_CANDIDATES = 3
#: the denominator of the betas and lambdas (rounded down: any value >= 0 is sound)
MULTIPLIER_GRID = 1 << 32


def _dyadic(v: float):
    return Q(int(max(v, 0.0) * MULTIPLIER_GRID), MULTIPLIER_GRID)


def _floats(values):
    return np.array([int(v.numerator) / int(v.denominator) for v in values], dtype=float)


# -- exact closes ----------------------------------------------------------------------------------
def _exact_multipliers(problem, node, lb, m):
    """The LP's float multipliers ``m`` as exact ones for :func:`~symrel.vnnlib.layered.bounds.lower_bound`, and
    the close's JSON keys."""
    enet = problem.enet
    kw = {"betas": {}, "lambdas": {}, "alphas": {}, "pieces": {}}
    keys = {}
    if node.sides:
        raw = []
        for k, i, side in node.sides:
            beta = next((b for j, s, b in m.betas.get(k, ()) if j == i), 0.0)
            q = _dyadic(beta)
            raw.append(q)
            if q:
                kw["betas"].setdefault(k, []).append((i, side, q))
        keys["beta"] = [format_rational(v) for v in raw]
    if node.winners:
        raw = []
        for k, g, p in node.winners:
            lam = next((ls for h, _, ls in m.lambdas.get(k, ()) if h == g), None)
            qs = [Q(0)] * len(enet.ops[k][1][g]) if lam is None else [_dyadic(x) if j != p else Q(0)
                                                                        for j, x in enumerate(lam)]
            raw.append(qs)
            if any(qs):
                kw["lambdas"].setdefault(k, []).append((g, p, qs))
        keys["lambda"] = [[format_rational(v) for v in qs] for qs in raw]
    alphas, pieces = [], []
    for k, st in enumerate(lb.states):
        if st is None:
            continue
        if enet.ops[k][0] == "relu" and k in m.alphas:
            fa = m.alphas[k]
            for i, (a, s, t) in enumerate(st):
                if (a, s, t) in ((P, P, 0), (0, 0, 0)):
                    continue
                want = min(P, max(0, int(float(fa[i]) * P)))
                if want != a:
                    kw["alphas"].setdefault(k, {})[i] = want
                    alphas.append([k, i, format_rational(Q(want, P))])
        elif enet.ops[k][0] == "max" and k in m.pieces:
            groups = enet.ops[k][1]
            for g, (low, top, s, t) in enumerate(st):
                if low == top and s == P and t == 0:
                    continue
                j = int(m.pieces[k][g])
                if j != groups[g][low] and j in groups[g]:
                    p = groups[g].index(j)
                    kw["pieces"].setdefault(k, {})[g] = p
                    pieces.append([k, g, p])
    if alphas:
        keys["alpha"] = alphas
    if pieces:
        keys["piece"] = pieces
    if m.hulls:
        kw["hulls"], lines = _exact_lines(enet, lb, m.hulls)
        if lines:
            keys["hull"] = lines
    return kw, keys


def _exact_lines(enet, lb, hulls):
    """The LP's lines ``h <= a . v + c`` as exact ones: ``a`` rounded to ``2^-32``, ``c`` the
    least valid for it over the exact box of ``v`` (its vertices), rounded up to ``2^-32``;
    ``({k: {entry: (a, c)}}, the close's "hull" list)``. Kept only for unstable entries, and
    checked once more as the trusted checker checks them (:func:`~symrel.vnnlib.layered.bounds.hull_lines_valid`)."""
    from .bounds import hull_lines_valid

    out = {}
    for k, lines in hulls.items():
        op = enet.ops[k - 1][1]
        lo, hi, den = lb.pre[k - 1]
        for i, (S, a, _) in lines.items():
            row = op.rows[i]
            aq = [Q(round(float(x) * MULTIPLIER_GRID), MULTIPLIER_GRID) for x in a]
            best = None
            for corner in range(1 << len(row)):
                v = [Q(hi[j] if corner >> t & 1 else lo[j], den) for t, (j, _) in enumerate(row)]
                z = sum((Q(w, op.D) * x for (_, w), x in zip(row, v)), Q(op.b[i], op.D))
                gap = max(z, Q(0)) - sum((q * x for q, x in zip(aq, v)), Q(0))
                best = gap if best is None or gap > best else best
            c = Q(-((-int(best.numerator) * MULTIPLIER_GRID) // int(best.denominator)), MULTIPLIER_GRID)
            out.setdefault(k, {})[i] = (aq, c)
    out = hull_lines_valid(enet, lb, out)
    listed = [[k, i, [format_rational(x) for x in a], format_rational(c)] for k in sorted(out)
              for i, (a, c) in sorted(out[k].items())]
    return out, listed


def _close(problem, node, lb, cand, m=None):
    """The close entry of ``cand`` when its exact bound exceeds ``rhs`` (with the LP's
    multipliers ``m`` when given), else None."""
    kw, keys = ({}, {}) if m is None else _exact_multipliers(problem, node, lb, m)
    used: dict = {}
    bound = lower_bound(problem.enet, lb, cand.ay, cand.ax, used=used, **kw)
    if not bound > cand.rhs:
        return None
    for key in ("alpha", "piece", "hull"):  # a slope, piece or line no coefficient took is left out
        if key in keys:
            keys[key] = [e for e in keys[key] if e[1] in used.get(e[0] if key != "hull" else (e[0], "hull"), ())]
            if not keys[key]:
                del keys[key]
    return {"atom": list(cand.ref), "bound": format_rational(bound), **keys}


def _refine_json(refine):
    return [[k, [int(i) for i in v]] for k, v in sorted(refine.items()) if len(v)]


def _leaf_cost(problem, closes, refine) -> int:
    """The leaf's operations as the trusted checker counts them (docs/format.md); ``closes``:
    the close entries (or their number)."""
    lines = 0
    for close in closes if not isinstance(closes, int) else ():
        for _, _, a, _ in close.get("hull", ()):
            lines += (1 << len(a)) * (len(a) + 1)
    n = closes if isinstance(closes, int) else len(closes)
    return problem.enet.size * (1 + n + 2 * sum(len(v) for v in refine.values())) + lines


# -- the node --------------------------------------------------------------------------------------
def evaluate(problem, node) -> Outcome:
    """The outcome of one node (module docstring)."""
    if np is None or problem.fnet is None:
        return _evaluate_exact(problem, node)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _evaluate(problem, node)


def _refine_of(fb):
    return {k: v for k, v in fb.refined.items() if len(v)}


def _evaluate(problem, node) -> Outcome:
    enet, fnet = problem.enet, problem.fnet
    d = node.disjunct
    sides, winners = node.side_map(), node.winner_map()
    flo, fhi = _floats(node.lo), _floats(node.hi)
    fb = float_bounds(fnet, flo, fhi, sides, winners, refine="open")
    refine = _refine_of(fb)
    lb = None
    if fb.empty is not None:
        lb = leaf_bounds(enet, node.lo, node.hi, sides, winners, refine)
        if lb.empty is not None:
            return _empty_leaf(problem, lb, refine)
        fb.empty = None   # the floats were wrong: the exact bounds go on
    todo = list(node.unsafe) if node.unsafe is not None else list(range(problem.n_unsafe))
    closes, worst = {}, None
    lowers, bests = {}, {}   # per unsafe disjunct, each candidate's float lower bound minus its rhs
    for u in todo:
        AY, AX, R = problem.float_rows[d][u]
        lowers[u] = float_lower(fnet, fb, AY, AX) - R
        bests[u] = int(np.argsort(-lowers[u], kind="stable")[0])   # the highest (a NaN sorts last)
    if node.fresh and any(not lowers[u][bests[u]] > 0 for u in todo):
        # a fresh box the floats leave open: the attack (a few dozen float passes) before any
        # exact close or LP, which cost far more and cannot close a box holding a counterexample
        point = _attack(problem, node, flo, fhi, todo)
        if point is not None:   # no split yet: refuted, the node is evaluated again, attacked
            return Outcome("candidate", point=point)
    for u in todo:
        AY, AX, R = problem.float_rows[d][u]
        cands = problem.candidates[d][u]
        fl, best = lowers[u], bests[u]
        entry = None
        if fl[best] > 0:
            lb = lb or leaf_bounds(enet, node.lo, node.hi, sides, winners, refine)
            if lb.empty is not None:
                return _empty_leaf(problem, lb, refine)
            entry = _close(problem, node, lb, cands[best])
        gap = float(fl[best])
        if entry is None:
            m = multipliers(fnet, fb, sides, winners, AY[best], AX[best], float(R[best]), problem.reach)
            if m is not None and m.value > R[best]:
                lb = lb or leaf_bounds(enet, node.lo, node.hi, sides, winners, refine)
                if lb.empty is not None:
                    return _empty_leaf(problem, lb, refine)
                entry = _close(problem, node, lb, cands[best], m)
            if entry is None and problem.hull and (m is None or m.value <= R[best]):
                # the concave envelope of the ReLUs over their few inputs (lp.multipliers, hull=True)
                mh = multipliers(fnet, fb, sides, winners, AY[best], AX[best], float(R[best]), problem.reach, hull=True)
                if mh is not None and mh.value > R[best]:
                    lb = lb or leaf_bounds(enet, node.lo, node.hi, sides, winners, refine)
                    if lb.empty is not None:
                        return _empty_leaf(problem, lb, refine)
                    entry = _close(problem, node, lb, cands[best], mh)
                if mh is not None:
                    m = mh if m is None or mh.value > m.value else m
            if m is not None:
                gap = max(gap, m.value - float(R[best]))
        if entry is not None:
            closes[u] = entry
        elif worst is None or gap < worst[0]:
            worst = (gap, u, best)
    if len(closes) == len(todo):
        facts = {"closes": [closes[u] for u in todo]}
        if refine:
            facts["refine"] = _refine_json(refine)
        return Outcome("closed", facts=facts, cost=_leaf_cost(problem, facts["closes"], refine))
    if closes and node.unsafe is None and problem.n_unsafe > 1:
        parts = {}
        for u, entry in closes.items():
            facts = {"closes": [entry]}
            if refine:
                facts["refine"] = _refine_json(refine)
            parts[u] = (facts, _leaf_cost(problem, facts["closes"], refine))
        return Outcome("split", split=UnsafeSplit(problem.n_unsafe), closed_parts=parts)
    _, u, best = worst
    return Outcome("split", split=_choose_split(problem, node, fb, sides, winners, u, best))


def _empty_leaf(problem, lb, refine):
    k, what, i = lb.empty
    facts = {"empty": {"op": k, what: i}}
    if refine:
        facts["refine"] = _refine_json(refine)
    return Outcome("closed", facts=facts, cost=_leaf_cost(problem, 0, refine))


def _attack(problem, node, flo, fhi, todo):
    """A float point of margin ``>= 0`` for the unsafe disjuncts ``todo``, or None."""
    d = node.disjunct
    extra = [(_floats(a.x), _floats(a.y), float(a.rhs)) for a in problem.extra[d]]
    disjuncts = [[(_floats(a.x), _floats(a.y), float(a.rhs)) for a in problem.unsafe[u]] + extra for u in todo]
    seed = zlib.crc32(repr((node.disjunct, node.path)).encode())
    x, m = propose(problem.fnet, disjuncts, flo, fhi, seed=seed)
    return tuple(float(v) for v in x) if m >= 0 else None


def _gaps(fnet, flo, fhi, sides, winners, AY, AX, R):
    """The float gap (best lower bound minus ``rhs``) of one unsafe disjunct on a part."""
    fb = float_bounds(fnet, flo, fhi, sides, winners, refine="open")
    if fb.empty is not None:
        return float("inf")
    return float((float_lower(fnet, fb, AY, AX) - R).max())


def _choose_split(problem, node, fb, sides, winners, u, best):
    """The split of an open node (module docstring, step 4)."""
    fnet = problem.fnet
    flo, fhi = fb.lo, fb.hi
    d = node.disjunct
    AY, AX, R = problem.float_rows[d][u]
    options = []
    for _, k, i in scores(fnet, fb, AY[best], sides, winners)[:SPLIT_CANDIDATES]:
        if fnet.kinds[k] == "relu":
            parts = []
            for side in (0, 1):
                s2 = {kk: dict(v) for kk, v in sides.items()}
                s2.setdefault(k, {})[i] = side
                parts.append(_gaps(fnet, flo, fhi, s2, winners, AY, AX, R))
            options.append((parts, ReluSplit(k, i)))
        else:
            n = len(fnet.ops[k].groups[i])
            parts = []
            for p in range(n):
                w2 = {kk: dict(v) for kk, v in winners.items()}
                w2.setdefault(k, {})[i] = p
                parts.append(_gaps(fnet, flo, fhi, sides, w2, AY, AX, R))
            options.append((parts, MaxSplit(k, i, n)))
    n_in = len(node.lo)
    widths = [b - a for a, b in zip(node.lo, node.hi)]
    if n_in <= INPUT_SPLIT_MAX or not options:
        A, _ = float_form(fnet, fb, AY[best:best + 1], AX[best:best + 1])
        fw = np.array([float(w) for w in widths])
        cand = {int(np.argmax(np.abs(A[0]) * fw)), max(range(n_in), key=lambda k: (widths[k], -k))}
        for i in sorted(cand):
            if not widths[i] > 0:
                continue
            mid = (node.lo[i] + node.hi[i]) / 2
            parts = []
            for lo, hi in ((node.lo, tuple(mid if k == i else v for k, v in enumerate(node.hi))),
                           (tuple(mid if k == i else v for k, v in enumerate(node.lo)), node.hi)):
                parts.append(_gaps(fnet, _floats(lo), _floats(hi), sides, winners, AY, AX, R))
            options.append((parts, InputSplit(i, mid)))
    if not options:
        return None

    def rank(option):
        parts, _ = option
        closed = sum(1 for g in parts if g > 0) / len(parts)
        open_ = [g for g in parts if g <= 0]
        return (closed, min(open_) if open_ else float("inf"), -len(parts))

    return max(options, key=rank)[1]


# -- without numpy: exact bounds at every node, input splits only ----------------------------------
def _evaluate_exact(problem, node) -> Outcome:
    sides, winners = node.side_map(), node.winner_map()
    lb = leaf_bounds(problem.enet, node.lo, node.hi, sides, winners)
    if lb.empty is not None:
        return _empty_leaf(problem, lb, {})
    todo = list(node.unsafe) if node.unsafe is not None else list(range(problem.n_unsafe))
    closes = {}
    for u in todo:
        for cand in problem.candidates[node.disjunct][u]:
            entry = _close(problem, node, lb, cand)
            if entry is not None:
                closes[u] = entry
                break
    if len(closes) == len(todo):
        return Outcome("closed", facts={"closes": [closes[u] for u in todo]}, cost=_leaf_cost(problem, len(todo), {}))
    widths = [b - a for a, b in zip(node.lo, node.hi)]
    i = max(range(len(widths)), key=lambda k: (widths[k], -k))
    if not widths[i] > 0:
        return Outcome("candidate", point=tuple(node.lo), split=None)
    split = InputSplit(i, (node.lo[i] + node.hi[i]) / 2)
    if node.fresh:
        return Outcome("candidate", point=tuple((a + b) / 2 for a, b in zip(node.lo, node.hi)), split=split)
    return Outcome("split", split=split)
