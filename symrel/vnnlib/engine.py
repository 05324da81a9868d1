"""The exact engine: decide a VNN-LIB property of a ReLU net by branch and bound.

Definition. ``decide(net, prop)`` answers whether some input ``x`` of the property's input
region has outputs ``y = net(x)`` meeting the unsafe condition:

* ``"sat"``: an exact input ``witness_x`` in the region whose exact outputs ``witness_y``
  (computed by the net's own exact semantics) meet the unsafe condition;
* ``"unsat"``: no such input; ``certificate`` is a ``vnnlib-unsat`` certificate
  (docs/format.md) that :mod:`symrel.checking.vnnlib` re-checks with rational arithmetic;
* ``"unknown"``: a limit came first (``limit``: ``"time"``, or ``"tree entries"`` or ``"leaf
  operations"``, the trusted checker's limits, beyond which a certificate would be refused);
  ``open_leaves`` are the boxes still open and ``covered`` the exact fraction of the region's
  volume already closed.

The search. Each input disjunct's box (its single-variable bounds; further atoms of the
disjunct are kept as constraints) is the root of a tree. A node is a box and the ReLU splits
on its path (a neuron set to ``z <= 0`` or ``z >= 0``). With numpy, float CROWN bounds
(:mod:`symrel.vnnlib.floatbounds`, beta multipliers of the splits from a float LP over the splits'
forms in the inputs and, where that leaves the node open, betas and lower slopes from the LP
over the whole relaxed net, :func:`_lp_multipliers`) decide
whether the node looks closed; only then are the exact bounds computed
(:mod:`symrel.vnnlib.symbolic`, integer arithmetic): the node closes when, for every unsafe
disjunct, one atom (or one constraint of the input disjunct) has a certified lower bound above
its right-hand side. Otherwise a float attack (:mod:`symrel.vnnlib.attack`, on every new box:
a root or an input split's part, with or without ReLU splits above it, but not the parts of a
ReLU split, whose box was attacked as their parent's) proposes a point, kept only when exact
evaluation confirms it; a refuted point's linear region gets one exact LP
(:mod:`symrel.vnnlib.pattern`: the counterexamples may form a set no double reaches, such as a
single point off the dyadic grid), and failing that the node is split where the most of its
two parts close in floats, then where their float gaps sum highest (:func:`_branch`), among the
halvings of the inputs scored highest by ``|A_i| * width_i`` (``A``: the float lower form
of the least-settled atom) and of the widest input (inputs far thinner than the widest, relative
to the root box, left out), the cuts of an input through the zeros of the few neurons whose
relaxations lose the most (:func:`_crossing`), and, where at most
``RELU_SPLIT_UNSTABLE`` ReLUs are unstable, the splits of a few ReLUs. ReLU splits make the
search complete: with every unstable neuron split, the bound with the LP's betas is the exact
minimum over the part. Without numpy every node is bounded exactly and only inputs are split.

Cost: per node a few float propagations (two per candidate split), one exact propagation
(:mod:`symrel.vnnlib.symbolic`) where the floats say closed, and, when it stays open, one
float attack; the number of nodes is what the property needs (exponential in the worst case).

>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib import LinearAtom, VnnProperty
>>> from symrel.exact import rational as q
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
>>> box = ((LinearAtom((q(-1),), (q(0),), q(1)), LinearAtom((q(1),), (q(0),), q(1))),)  # -1 <= x <= 1
>>> neg = VnnProperty(1, 1, box, ((LinearAtom((q(0),), (q(1),), q("-1/100")),),), "0" * 64, "inline")
>>> decide(net, neg).status                                  # |x| <= -1/100 never holds
'unsat'
>>> big = VnnProperty(1, 1, box, ((LinearAtom((q(0),), (q(-1),), q("-3/4")),),), "0" * 64, "inline")
>>> v = decide(net, big); v.status, abs(v.witness_x[0]) >= q("3/4")   # |x| >= 3/4 somewhere
('sat', True)
"""

from __future__ import annotations

import math
import time
import zlib
from dataclasses import dataclass, field, replace

from ..budget import Budget, BudgetExceeded
from ..checking.vnnlib import (MAX_LEAF_OPERATIONS, MAX_RELAXATION_BITS, MAX_TREE_ENTRIES, box_bits, leaf_bits,
                               leaf_operations)
from ..errors import InputError, InternalError, LimitError
from ..exact.sizes import arithmetic_limits, check_product_bits, current_arithmetic_limits, number_bits
from ..exact import Q, ZERO, format_rational, rational
from ..parallel import chunked, map_ordered
from .attack import FloatNet, margin, propose
from .pattern import linear_region, region_witness
from .symbolic import SLOPE_BITS, IntNet, box_scale, integer_net, propagate

try:  # optional (the "numeric" extra): float bounds propose, so that only leaves are computed exactly
    import numpy as _np

    from .betas import network_multipliers, split_betas
    from .floatbounds import FloatBounds
except ImportError:  # pragma: no cover - exercised where numpy is absent
    _np = None

#: the claim kind of the certificates written here
CLAIM_KIND = "vnnlib-unsat"
#: the rule of each input disjunct's step
RULE = "vnnlib-branch-and-bound"


@dataclass
class Verdict:
    """The answer of :func:`decide` (module docstring)."""

    status: str
    witness_x: tuple | None = None
    witness_y: tuple | None = None
    certificate: dict | None = None
    open_leaves: tuple = ()
    covered: object = ZERO
    stats: dict = field(default_factory=dict)
    limit: str | None = None  # for "unknown": the limit that stopped the search

    def __repr__(self):
        return f"Verdict({self.status!r}, covered={format_rational(self.covered)}, stats={self.stats})"


class _BeyondChecker(Exception):
    """A closed leaf whose facts the trusted checker would refuse (its argument: the name of
    the checker's limit); the search stops as unknown at that limit."""


# -- the problem, prepared -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Atom:
    x: tuple
    y: tuple
    rhs: object


@dataclass(frozen=True)
class _Context:
    inet: IntNet
    fnet: FloatNet
    unsafe: tuple  # tuple of tuples of _Atom
    extra: tuple  # per input disjunct: ((index in the conjunction, _Atom), ...) beyond the box
    float_unsafe: tuple
    fb: object = None  # FloatBounds (None without numpy)
    float_atoms: tuple = ()  # per input disjunct: (AY, AX, rhs) arrays of every candidate atom
    float_groups: tuple = ()  # per input disjunct: (first row, count) per unsafe disjunct
    root_widths: tuple = ()  # per input disjunct: the float widths of its root box
    sizes: tuple = ()  # per layer of the net, the bits (d, w, fan-in) the checker bounds a leaf's numbers by
    limits: tuple = ()  # the arithmetic limits in force (symrel.exact.sizes), for the worker processes


def region_box(conj, n: int, where: str):
    """The box of an input disjunct (its single-variable atoms, the tightest bound of each
    input) and the indices of its other atoms. An atom without variables and a false
    right-hand side makes the disjunct empty (returned as ``lo[0] = 1 > hi[0] = 0``)."""
    lo, hi, extra = [None] * n, [None] * n, []
    for k, atom in enumerate(conj):
        if any(atom.y):
            raise InputError(f"expected atoms over X alone in the input region, got {atom}", path=where)
        nz = [i for i, c in enumerate(atom.x) if c]
        if len(nz) != 1:
            extra.append(k)
            continue
        i = nz[0]
        bound = atom.rhs / atom.x[i]
        if atom.x[i] > 0:
            hi[i] = bound if hi[i] is None else min(hi[i], bound)
        else:
            lo[i] = bound if lo[i] is None else max(lo[i], bound)
    for i in range(n):
        if lo[i] is None or hi[i] is None:
            raise InputError(f"expected a bounded input region: X_{i} has no {'lower' if lo[i] is None else 'upper'} "
                             "bound", path=where)
    return tuple(lo), tuple(hi), tuple(extra)


def _float_layers(net):
    out = []
    for layer in net.layers:
        W = [[int(v.numerator) / int(v.denominator) for v in r] for r in layer.affine.exact_W.to_list()]
        b = [int(r[0].numerator) / int(r[0].denominator) for r in layer.affine.exact_b.to_list()]
        out.append((W, b, layer.activation == "relu"))
    return out


def _atom(a) -> _Atom:
    return _Atom(tuple(rational(v) for v in a.x), tuple(rational(v) for v in a.y), rational(a.rhs))


def _fl(v) -> float:
    return int(v.numerator) / int(v.denominator)


def _fl_atom(a: _Atom):
    return [_fl(v) for v in a.x], [_fl(v) for v in a.y], _fl(a.rhs)


def _context(net, prop, boxes) -> _Context:
    ctx = _float_context(net, prop, boxes)
    sizes = tuple((L.D.bit_length(), max((abs(v).bit_length() for r in L.Wp + L.Wn + (L.b,) for v in r), default=0),
                   layer.affine.input_dim) for L, layer in zip(ctx.inet.layers, net.layers))
    return replace(ctx, sizes=sizes, limits=tuple(current_arithmetic_limits()))


def _float_context(net, prop, boxes) -> _Context:
    inet = integer_net(net)
    if prop.n_inputs != inet.n_inputs or prop.n_outputs != inet.n_outputs:
        raise InputError(f"the property has {prop.n_inputs} inputs and {prop.n_outputs} outputs, the network "
                         f"{inet.n_inputs} and {inet.n_outputs}", path="property")
    unsafe = tuple(tuple(_atom(a) for a in conj) for conj in prop.unsafe)
    extra = tuple(tuple((k, _atom(prop.input_region[d][k])) for k in ex) for d, (_, _, ex) in enumerate(boxes))
    # the float proposals (attacks, bounds) need the problem in doubles; a node's box lies in
    # its root's, so the roots' corners and the constants are all that can overflow
    try:
        fu = tuple(tuple(_fl_atom(a) for a in conj) for conj in unsafe)
        widths = tuple(tuple(_fl(b) - _fl(a) for a, b in zip(lo, hi)) for lo, hi, _ in boxes)
        for conj in extra:
            for _, a in conj:
                _fl_atom(a)
        if not all(math.isfinite(w) for ws in widths for w in ws):
            raise OverflowError
    except OverflowError:
        raise InputError("a bound, width or coefficient beyond the range of a double (about 1.8e308): the "
                         "float proposals (attacks, bounds) cannot represent the property", path="property") from None
    try:
        ctx = _Context(inet, FloatNet(_float_layers(net)), unsafe, extra, fu)
    except OverflowError:
        raise InputError("a weight or bias beyond the range of a double (about 1.8e308): the float "
                         "proposals (attacks, bounds) cannot represent the network", path="network") from None
    if _np is None:
        return ctx
    atoms, groups = [], []
    for d in range(len(boxes)):
        rows, gr = [], []
        for conj in unsafe:
            cands = _candidates(ctx, d, conj)
            gr.append((len(rows), len(cands)))
            rows += [([_fl(v) for v in ay], [_fl(v) for v in ax], _fl(rhs)) for _, ay, ax, rhs in cands]
        atoms.append((_np.array([r[0] for r in rows], dtype=float).reshape(len(rows), inet.n_outputs),
                      _np.array([r[1] for r in rows], dtype=float).reshape(len(rows), inet.n_inputs),
                      _np.array([r[2] for r in rows], dtype=float)))
        groups.append(tuple(gr))
    return _Context(inet, ctx.fnet, unsafe, extra, fu, FloatBounds(inet), tuple(atoms), tuple(groups), widths)


# -- one node --------------------------------------------------------------------------------------
def _candidates(ctx: _Context, d: int, conj):
    """The atoms that may close an unsafe disjunct at a node of input disjunct ``d``: its own
    and the input disjunct's constraints beyond the box, as ``(ref, ay, ax, rhs)``."""
    out = [(("unsafe", k), a.y, a.x, a.rhs) for k, a in enumerate(conj)]
    return out + [(("region", k), a.y, a.x, a.rhs) for k, a in ctx.extra[d]]  # a.y: zeros


def _dyadic(v: float):
    """A float rounded down to 2^-32 (a beta: small numbers keep the exact check cheap)."""
    return Q(int(v * 4294967296.0), 4294967296)


#: a node without ReLU splits gets the network LP only when at most this many ReLUs are unstable
#: (the LP seldom closes the large boxes of property 1: 4_7 prop_1 took 26.4 s of CPU with the
#: LP on every open node, 15.7 s with this limit; 3_3 and 4_2 prop_2 are unchanged, 214.6 and
#: 167.7 s against 214.2 and 168.2, side by side in one session)
LP_UNSTABLE = 80


def _unstable(run) -> int:
    """The number of ReLUs whose float range straddles 0 (split ones included)."""
    return sum(int(((l < 0) & (h > 0)).sum()) for l, h in run.pre)


#: the denominator of the lower slopes a close may choose (the exact bounds' slope grid)
SLOPE_DENOMINATOR = 1 << SLOPE_BITS


def _lp_multipliers(ctx, run, splits, ay, ax, rhs):
    """The network LP's betas (rounded by :func:`_dyadic`) and lower slopes (rounded down to
    ``1 / SLOPE_DENOMINATOR``, as ``{(k, i): numerator}``) for the atom ``ay . y + ax . x >
    rhs``, with the float lower bound they give; None when the LP fails.

    Why the slopes: the rule's slope (1 or 0 by the neuron's range) is the best one for the
    neuron alone, not for the atom; on ACAS Xu 3_3 and 4_2 prop_2 the LP's slopes took the
    searches from 370.6 and 523.6 s of CPU to 170.7 and 143.9 s (docs/benchmarks.md)."""
    fay, fax = [_fl(v) for v in ay], [_fl(v) for v in ax]
    got = network_multipliers(ctx.fb, run, splits, fay, fax, _fl(rhs))
    if got is None:
        return None
    bt, lam = got
    bq = [_dyadic(v) for v in bt]
    fbetas = [(k, i, ph, _fl(b)) for (k, i, ph), b in zip(splits, bq)]
    chosen = {}
    ctx.fb.lower(run, fay, fax, fbetas, alphas=chosen, lam=lam)
    alphas = {key: min(SLOPE_DENOMINATOR, max(0, int(a * SLOPE_DENOMINATOR))) for key, a in chosen.items()}
    bound = ctx.fb.lower(run, fay, fax, fbetas, {key: a / SLOPE_DENOMINATOR for key, a in alphas.items()})[0]
    return bound, tuple((k, i, ph, b) for (k, i, ph), b in zip(splits, bq)), alphas


def _exact_close(ctx: _Context, d, lo, hi, fixed, plan, hints=None):
    """The leaf's facts when the exact bounds close every unsafe disjunct (``plan``: per
    disjunct the float's choice ``(ref, ay, ax, rhs, betas, alphas)`` tried first; ``hints``:
    the float bounds of the node, which save work, not change the result), else None."""
    bounds = propagate(ctx.inet, box_scale(lo, hi), fixed=fixed, hints=hints)
    closes, used_betas = [], []
    for u, conj in enumerate(ctx.unsafe):
        tries = []
        if plan is not None and plan[u] is not None:
            tries.append(plan[u])
        tries += [(ref, ay, ax, rhs, None, None) for ref, ay, ax, rhs in _candidates(ctx, d, conj)]
        done = None
        for ref, ay, ax, rhs, betas, alphas in tries:
            form = bounds.backward(ay, ax, betas or (), alphas)
            m = bounds.form_min(form)
            if m > rhs:
                done = {"atom": list(ref), "bound": format_rational(m)}
                if betas:
                    done["beta"] = [format_rational(b[3]) for b in betas]
                    used_betas += [b[3] for b in betas]
                if alphas:  # one lower slope per unstable neuron, in the order of the relaxations
                    done["alpha"] = [format_rational(Q(alphas.get((k, i), st[0]), SLOPE_DENOMINATOR))
                                     for k, layer in enumerate(bounds.states)
                                     for i, st in enumerate(layer) if isinstance(st, tuple)]
                break
        if done is None:
            return None, bounds
        closes.append(done)
    numbers = [v for _, _, a, s, t in bounds.relaxed for v in (a, s, t)] + used_betas
    if any(max(int(v.numerator).bit_length(), int(v.denominator).bit_length()) > MAX_RELAXATION_BITS
           for v in numbers):  # the net's own numbers are that large: a smaller box does not help
        raise _BeyondChecker("relaxation bits")
    _within_checker_sizes(ctx, d, lo, hi, closes, bounds.states)
    phases = ["".join("a" if st == 1 else "i" if st == 0 else "u" for st in layer) for layer in bounds.states]
    relax = [[format_rational(a), format_rational(s), format_rational(t)] for _, _, a, s, t in bounds.relaxed]
    return {"phases": phases, "relaxations": relax, "closes": closes}, bounds


def _within_checker_sizes(ctx: _Context, d, lo, hi, closes, states) -> None:
    """Raise :class:`_BeyondChecker` when the trusted checker would refuse the leaf's numbers:
    its box beyond ``denominator bits``, or its bounds or a close's beyond ``product bits``
    (bounded as :func:`symrel.checking.vnnlib.leaf_bits` bounds them)."""
    try:
        bits = box_bits(lo, hi)
        check_product_bits(leaf_bits(ctx.sizes, bits))
        relus = sum(1 for layer in ctx.inet.layers[:len(ctx.sizes)] if layer.relu)
        for u, close in enumerate(closes):
            side, k = close["atom"]
            a = ctx.unsafe[u][k] if side == "unsafe" else dict(ctx.extra[d])[k]
            chosen = [rational(v) for v in close.get("beta", ())]
            chosen += [rational(v) for v in close["alpha"]] if "alpha" in close else \
                [st[0] for layer in states for st in layer if isinstance(st, tuple)]
            check_product_bits(leaf_bits(ctx.sizes, bits, number_bits(list(a.x) + list(a.y) + [a.rhs])
                                         + relus * number_bits(chosen)))
    except LimitError as err:
        raise _BeyondChecker(getattr(err, "limit", None) or "product bits") from None


def _float_gaps(ctx: _Context, d, run):
    """Per unsafe disjunct the float ``(gap, index of the atom)`` of its best atom (gap: lower
    bound minus right-hand side; the disjunct closes when it is > 0)."""
    rows = ctx.float_atoms[d]
    C = ctx.fb.lower_many(run, rows[0], rows[1])
    out = []
    for first, count in ctx.float_groups[d]:
        if not count:  # an empty conjunction: always unsafe, never closed
            out.append((float("-inf"), None))
            continue
        g = C[first:first + count] - rows[2][first:first + count]
        j = int(g.argmax())
        out.append((float(g[j]), j))
    return out


def _node_gap(ctx, d, lo, hi, fixed, splits=(), base=None, start=0) -> float:
    """The float gap of the least-settled unsafe disjunct at a node (with the splits' betas
    from the float LP where the plain bound leaves it open); ``base``, ``start``: a run to
    take the layers below ReLU layer ``start`` from (:meth:`FloatBounds.run`)."""
    run = ctx.fb.run(lo, hi, fixed, base, start)
    gaps = _float_gaps(ctx, d, run)
    worst = min(g for g, _ in gaps)
    if worst > 0 or not splits:
        return worst
    out = []
    for u, conj in enumerate(ctx.unsafe):
        g, j = gaps[u]
        if g <= 0 and j is not None:
            _, ay, ax, rhs = _candidates(ctx, d, conj)[j]
            fay, fax = [_fl(v) for v in ay], [_fl(v) for v in ax]
            _, A, c = ctx.fb.lower(run, fay, fax)
            bt = split_betas(ctx.fb, run, splits, A, c)
            if bt is not None:
                g = max(g, ctx.fb.lower(run, fay, fax, [(k, i, ph, b) for (k, i, ph), b in zip(splits, bt)])[0]
                        - _fl(rhs))
        out.append(g)
    return min(out)


def _evaluate(ctx: _Context, node):
    """``("closed", facts, relaxed)``, ``("sat", x, how)`` (an exact input proposed, to be
    confirmed; ``how``: the split should it not be) or ``("split", how, None)`` (``("x", i)`` or ``("relu", k, i)``) for the node
    ``(disjunct, lo, hi, splits, fresh)``; ``fresh``: its box is not its parent's (a root or a
    part of an input split), so that it is attacked."""
    d, lo, hi, splits, fresh = node
    fixed = {(k, i): ph for k, i, ph in splits}
    if ctx.fb is None:
        return _evaluate_exact(ctx, node, fixed)
    flo, fhi = [_fl(v) for v in lo], [_fl(v) for v in hi]
    run = ctx.fb.run(flo, fhi, fixed)
    gaps = _float_gaps(ctx, d, run)
    plan = []
    for u, conj in enumerate(ctx.unsafe):
        cands = _candidates(ctx, d, conj)
        g, j = gaps[u]
        if j is None:
            plan.append(None)
            continue
        ref, ay, ax, rhs = cands[j]
        betas = alphas = None
        if g <= 0 and splits:  # beta-CROWN: the splits' multipliers, from a float LP
            for jj, (ref2, ay2, ax2, rhs2) in enumerate(cands):
                if not any(ay2):
                    continue
                fay, fax = [_fl(v) for v in ay2], [_fl(v) for v in ax2]
                _, A, c = ctx.fb.lower(run, fay, fax)
                bt = split_betas(ctx.fb, run, splits, A, c)
                if bt is None:
                    continue
                bq = [_dyadic(v) for v in bt]
                g2 = ctx.fb.lower(run, fay, fax, [(k, i, ph, _fl(b)) for (k, i, ph), b in zip(splits, bq)])[0] \
                    - _fl(rhs2)
                if g2 > g:
                    g, ref, ay, ax, rhs = g2, ref2, ay2, ax2, rhs2
                    betas = tuple((k, i, ph, b) for (k, i, ph), b in zip(splits, bq))
                if g > 0:
                    break
        if g <= 0 and any(ay) and (splits or _unstable(run) <= LP_UNSTABLE):  # the LP over the whole net, best atom
            got = _lp_multipliers(ctx, run, splits, ay, ax, rhs)
            if got is not None and got[0] - _fl(rhs) > g:
                g, betas, alphas = got[0] - _fl(rhs), got[1] or None, got[2] or None
        plan.append((ref, ay, ax, rhs, betas, alphas))
        gaps[u] = (g, j)
    # a gap the floats could not compute (they overflowed: NaN or infinite) is the exact bounds' to judge
    if all(g > 0 or (j is not None and not math.isfinite(g)) for g, j in gaps):
        facts, bounds = _exact_close(ctx, d, lo, hi, fixed, plan, run.pre)
        if facts is not None:
            return ("closed", facts, len(bounds.relaxed))
    if all(a == b for a, b in zip(lo, hi)):  # a single point (a root: splits never make one): no split helps
        return _point(ctx, d, lo, fixed)
    how = _branch(ctx, d, lo, hi, fixed, run, gaps, plan)
    if fresh:  # a float attack on a new box (the phase-split parts of a box were attacked as the box)
        x = _attack(ctx, d, lo, hi)
        if x is not None:
            return ("sat", x, how)  # how: the split, should exact evaluation refute x
    return ("split", how, None)


def _attack(ctx, d, lo, hi):
    flo, fhi = [_fl(v) for v in lo], [_fl(v) for v in hi]
    disjuncts = [list(c) + [([_fl(v) for v in a.x], [0.0] * ctx.inet.n_outputs, _fl(a.rhs))
                            for _, a in ctx.extra[d]] for c in ctx.float_unsafe]
    seed = zlib.crc32(repr((d, [str(v) for v in lo], [str(v) for v in hi])).encode())  # the same in every process
    x = propose(ctx.fnet, disjuncts, flo, fhi, seed=seed)
    if margin(ctx.fnet, disjuncts, x) >= -1e-9:
        return tuple(min(max(Q(*_ratio(v)), a), b) for v, a, b in zip(x, lo, hi))
    return None


#: inputs (highest "sb" scores) whose split is tried in floats, besides the widest input
INPUT_CANDIDATES = 2
#: ReLU neurons (highest BaBSR-style scores) whose split is tried against the input splits
#: (measured on ACAS Xu 3_3 and 4_2 prop_2, docs/benchmarks.md: 4 makes 3_3 faster by as much
#: as it makes 4_2 slower, 8 is slower on 3_3; the other values tried of the constants below
#: were slower too)
RELU_CANDIDATES = 2
#: an input whose width, relative to its width in the root box, is below 2^-INPUT_BALANCE times
#: the relatively widest input's is not split (see :func:`_branch`)
INPUT_BALANCE = 8
#: unstable neurons (highest BaBSR-style scores) through whose zero an input cut is tried
#: (:func:`_crossing`)
CROSSING_CANDIDATES = 2
#: a node with at most this many unstable ReLUs may be split on a ReLU
RELU_SPLIT_UNSTABLE = 40


def _branch(ctx, d, lo, hi, fixed, run, gaps, plan):
    """The split of the node, chosen by the float gaps of the parts it makes: the candidates
    are the ``INPUT_CANDIDATES`` inputs scored highest by alpha-beta-CROWN's "sb" input
    heuristic (``|A_i| * width_i`` for the lower form ``A x + c`` of the least-settled
    disjunct's atom) and the widest input, and, where at most ``RELU_SPLIT_UNSTABLE`` ReLUs are
    unstable, the ReLU splits of the ``RELU_CANDIDATES`` neurons with the highest BaBSR-style
    scores; the one that closes the most of its two parts in floats wins, and among those the
    one whose two parts' gaps sum highest (a bound-improvement choice, as alpha-beta-CROWN's
    filtered smart branching; ties: input splits, in that order).

    Why closed parts first: a part whose float gap is positive is finished (the exact close
    almost always confirms it), while a raised negative gap may still need many splits; the sum
    alone preferred, say, two halves at -0.003 and -0.002 to one at +0.02 and one at -0.01, and
    on ACAS Xu 1_1 prop_3 it halved ``X_0`` down to a width of 1e-5 (its weight in the outputs
    is about 0.06) where halving ``X_2`` closed both halves: 16% of the box covered in 40 s of
    CPU; with closed parts first, unsat in 56 s (1,222 leaves).

    Why the widest input too: the "sb" score sees only the coefficients of the lower form, not
    the slack of the unstable neurons' relaxations. An input can weigh nothing in the form
    (its coefficients cancel through the relaxation lines) while its width is what keeps
    neurons unstable: halving it closes both parts, yet its score is about 0, so the search
    would halve the other inputs forever around a segment along it (ACAS Xu 5_1 prop_1: depth
    90 with the gap stuck at -0.94, both halves of ``X_2`` closing at every level).

    Why the parts' gaps are floored at the node's, and thin inputs left alone: the float bounds
    are not monotone in the box (a part's relaxation slopes can flip and its bound fall below
    the node's), so halving the one wide input could score below halving an input a thousand
    times thinner, which changes nothing. On ACAS Xu 3_3 prop_2 a box 1/64 wide in ``X_1`` and
    a few millionths in the others had ``X_4`` halved for ever (depth 127, no leaf closed in a
    minute). The node's bound holds on its parts, so the floor is sound as a score; and an
    input whose width relative to the root box is below ``2^-INPUT_BALANCE`` times the
    relatively widest input's is not a candidate."""
    n = len(lo)
    flo, fhi = [_fl(v) for v in lo], [_fl(v) for v in hi]
    u = min(range(len(gaps)), key=lambda k: gaps[k][0])
    ay = [_fl(v) for v in plan[u][1]] if plan[u] is not None else [0.0] * ctx.inet.n_outputs
    ax = [_fl(v) for v in plan[u][2]] if plan[u] is not None else [0.0] * n
    _, A, _ = ctx.fb.lower(run, ay, ax)
    widths = [b - a for a, b in zip(flo, fhi)]
    scores = [abs(float(A[i])) * widths[i] if hi[i] > lo[i] else -1.0 for i in range(n)]
    if max(scores) <= 0:
        scores = [w if hi[i] > lo[i] else -1.0 for i, w in enumerate(widths)]
    rel = [w / r if r > 0 else 0.0 for w, r in zip(widths, ctx.root_widths[d])]
    keep = max(rel) / 2 ** INPUT_BALANCE
    ranked = sorted((i for i in range(n) if scores[i] >= 0 and rel[i] >= keep), key=lambda k: (-scores[k], k))
    if not ranked:  # the floats overflowed (scores of NaN): the exactly widest input
        ranked = sorted((i for i in range(n) if hi[i] > lo[i]), key=lambda k: (lo[k] - hi[k], k))[:1]
    inputs = ranked[:INPUT_CANDIDATES]
    widest = max(ranked, key=lambda k: (widths[k], -k), default=None)
    if widest is not None and widest not in inputs:
        inputs.append(widest)
    unstable = _unstable(run) - len(fixed)
    relus = any(ay) and unstable <= RELU_SPLIT_UNSTABLE
    if not any(ay):
        if not inputs:
            raise InternalError("a node that is a single point stayed open")
        return ("x", inputs[0])
    options = []
    floor = min(g for g, _ in gaps)  # the node's bound holds on its parts (theirs may be lower: see above)
    for rank, i in enumerate(inputs):
        mid = (flo[i] + fhi[i]) / 2
        a = max(floor, _node_gap(ctx, d, flo, [mid if k == i else v for k, v in enumerate(fhi)], fixed))
        b = max(floor, _node_gap(ctx, d, [mid if k == i else v for k, v in enumerate(flo)], fhi, fixed))
        options.append(((a > 0) + (b > 0), a + b, 1, -rank, ("x", i)))
    scored = ctx.fb.neuron_scores(run, ay, fixed)  # the neurons whose relaxations lose the most, first
    for t, (_, k, j) in enumerate(scored[:CROSSING_CANDIDATES]):
        how = _crossing(run, k, j, lo, hi, [i for i in range(n) if scores[i] >= 0 and rel[i] >= keep])
        if how is not None:
            i, c = how[1], _fl(how[2])
            a = max(floor, _node_gap(ctx, d, flo, [c if k == i else v for k, v in enumerate(fhi)], fixed))
            b = max(floor, _node_gap(ctx, d, [c if k == i else v for k, v in enumerate(flo)], fhi, fixed))
            options.append(((a > 0) + (b > 0), a + b, 1, -len(inputs) - t, how))
    if relus:
        splits = tuple((k, i, ph) for (k, i), ph in fixed.items())
        for score, k, i in scored[:RELU_CANDIDATES]:  # the parts' runs share the node's below layer k
            a = max(floor, _node_gap(ctx, d, flo, fhi, dict(fixed) | {(k, i): 0}, splits + ((k, i, 0),), run, k))
            b = max(floor, _node_gap(ctx, d, flo, fhi, dict(fixed) | {(k, i): 1}, splits + ((k, i, 1),), run, k))
            options.append(((a > 0) + (b > 0), a + b, 0, 0, ("relu", k, i)))
    if not options:
        raise InternalError("a node that is a single point stayed open")
    return max(options, key=lambda o: o[:4])[4]


def _crossing(run, k, j, lo, hi, allowed):
    """The input split ``("x", i, c)`` through the zero of neuron ``j`` of ReLU layer ``k``:
    ``i``, among the ``allowed`` inputs, the one along which the neuron's float form (the mean
    of its lower and upper forms over the box) varies most, and ``c`` where that form vanishes
    with the other inputs at the box's centre, rounded to a dyadic of about 1/64 of the
    width; None when that point is not at least 1/32 of the width inside.

    Why: in a box thin in every input but one, an unstable neuron's pre-activation is nearly a
    function of that input, and a cut through its zero leaves it (nearly) stable on both
    sides, where halving the input leaves it unstable in one half. On ACAS Xu 3_3 prop_2 a
    node whose halvings of ``X_1`` leave both halves open at gaps -0.0033 and -0.067 has a
    part closed by the cut through the zero of each of five of its seven unstable neurons."""
    Al, cl, Au, cu = run.forms[k]
    form = (Al[j] + Au[j]) / 2
    const = (float(cl[j]) + float(cu[j])) / 2
    flo, fhi = [_fl(v) for v in lo], [_fl(v) for v in hi]
    i = max(allowed, key=lambda m: (abs(float(form[m])) * (fhi[m] - flo[m]), -m), default=None)
    if i is None or not form[i]:
        return None
    x = -(const + sum(float(form[m]) * (flo[m] + fhi[m]) / 2 for m in range(len(lo)) if m != i)) / float(form[i])
    w = hi[i] - lo[i]
    if not math.isfinite(x) or not _fl(w) > 0:  # a form of a denormal slope, or a box too thin for a double
        return None
    e = math.floor(math.log2(_fl(w) / 64))
    grid = Q(2) ** e if e >= 0 else Q(1, 2 ** -e)
    c = Q(round(x / 2.0 ** e)) * grid
    if not lo[i] + w / 32 <= c <= hi[i] - w / 32:
        return None
    return ("x", i, c)


def _evaluate_exact(ctx: _Context, node, fixed):
    """Without numpy: the exact bounds at every node, input splits only."""
    d, lo, hi, _, _ = node
    n = len(lo)
    facts, bounds = _exact_close(ctx, d, lo, hi, fixed, None)
    if facts is not None:
        return ("closed", facts, len(bounds.relaxed))
    if all(a == b for a, b in zip(lo, hi)):
        return _point(ctx, d, lo, fixed)
    x = _attack(ctx, d, lo, hi)
    if x is not None:
        return ("sat", x, None)
    worst = None
    for conj in ctx.unsafe:
        best = None
        for ref, ay, ax, rhs in _candidates(ctx, d, conj):
            form = bounds.backward(ay, ax)
            m = bounds.form_min(form)
            if best is None or m - rhs > best[0]:
                best = (m - rhs, form)
        if best is not None and best[0] <= 0 and (worst is None or best[0] < worst[0]):
            worst = best
    widths = [b - a for a, b in zip(lo, hi)]
    scores = widths if worst is None else [abs(worst[1][i]) * widths[i] for i in range(n)]
    if not any(scores):
        scores = widths
    return ("split", ("x", max(range(n), key=lambda k: (scores[k], -k))), None)


def _point(ctx: _Context, d, x, fixed):
    """A node whose box is the single point ``x``: closed when its exact bounds close it, else
    ``x`` itself is proposed. At a point every neuron's range is its value (no relaxation), so
    the bounds are the outputs' exact values: they fail to close only where, for some unsafe
    disjunct, every atom and every constraint of the input disjunct holds, that is at a
    counterexample."""
    facts, bounds = _exact_close(ctx, d, x, x, fixed, None)
    if facts is not None:
        return ("closed", facts, len(bounds.relaxed))
    return ("sat", tuple(x), None)


def _ratio(v: float):
    return v.as_integer_ratio()


def _evaluate_chunk(ctx, chunk):
    """The results of a chunk ``(deadline, nodes)``; None for the nodes left when the
    deadline (wall-clock seconds since the epoch, or None) has passed."""
    deadline, nodes = chunk
    out = []
    with arithmetic_limits(*ctx.limits):  # the caller's, also in a worker process
        for node in nodes:
            if deadline is not None and time.time() >= deadline:
                out.append(None)
            elif _np is None:
                out.append(_evaluate(ctx, node))
            else:  # floats that overflow (NaN, infinite) only propose less: the exact bounds judge
                with _np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                    out.append(_evaluate(ctx, node))
    return out


def _confirm(net, prop, x):
    """The exact outputs at ``x`` when ``x`` is a counterexample (in the region and unsafe), else None."""
    if not prop.in_region(list(x)):
        return None
    y = tuple(net.evaluate_exact(list(x)))
    return y if prop.holds(list(x), list(y)) else None


def _volume(lo, hi, dims):
    v = Q(1)
    for i in dims:
        v *= hi[i] - lo[i]
    return v


# -- the search ------------------------------------------------------------------------------------
#: nodes per round of :func:`decide`. An unsat search's tree does not depend on it (each node's
#: split depends on the node alone), only how often the workers wait for the slowest of a
#: round: on ACAS Xu 3_3 prop_2 with two worker processes, 397 rounds of 32 took 106.9 s, 205
#: of 64 took 101.4 s and 112 of 128 took 98.0 s (the same 12,305 nodes)
BATCH = 128


def decide(net, prop, *, timeout=None, executor=None, progress=None, batch: int = BATCH,
           max_tree_entries: int = MAX_TREE_ENTRIES, max_leaf_operations: int = MAX_LEAF_OPERATIONS) -> Verdict:
    """Decide ``prop`` on ``net`` exactly (module docstring). ``timeout``: seconds (None: no
    limit); ``executor``: a ``concurrent.futures`` executor or None; ``progress``: called as
    ``progress(stats)`` after each round; ``batch``: nodes per round (the verdict depends on
    it, not on the executor).

    The search also stops, as ``"unknown"``, when its tree (nodes decided plus nodes open)
    would exceed ``max_tree_entries`` or its leaves ``max_leaf_operations`` (counted as the
    checker counts them): by default the trusted checker's limits, so that memory stays
    bounded without a ``timeout`` and no certificate is built that the checker would refuse;
    and, for the same reason, when a closed leaf's numbers exceed the checker's ``relaxation
    bits`` (a network or region of numbers beyond about 2^512)."""
    start = time.monotonic()
    budget = Budget(timeout)
    boxes = [region_box(conj, prop.n_inputs, f"input disjunct {d}") for d, conj in enumerate(prop.input_region)]
    roots, dims, total = {}, {}, Q(0)
    stack = []
    trees: dict = {}
    for d in reversed(range(len(boxes))):
        lo, hi, _ = boxes[d]
        empty = next((i for i in range(len(lo)) if lo[i] > hi[i]), None)
        roots[d] = (lo, hi, empty)
        if empty is not None:
            continue
        dims[d] = [i for i in range(len(lo)) if hi[i] > lo[i]]
        stack.append((d, (), lo, hi, (), None))
    stats = {"nodes": 0, "leaves": 0, "rounds": 0, "max_depth": 0, "relaxed": 0, "attacks": 0, "relu_splits": 0,
             "region_lps": 0}
    tried = set()  # (input disjunct, linear region) of the refuted proposals whose region LP ran
    closed_volume = Q(0)
    closed_points = 0
    owners: dict = {}  # (d, path) of a box whose parts are phase-split: [its open parts, its volume or None]

    def close_part(d, lo, hi, owner):
        nonlocal closed_volume, closed_points
        if owner is not None:
            owners[owner][0] -= 1
            if owners[owner][0]:
                return
            lo, hi = owners[owner][1]
        if dims[d]:
            closed_volume += _volume(lo, hi, dims[d])
        else:
            closed_points += 1

    # the network in integers, within the arithmetic limits (symrel.exact.sizes); a caller's
    # backstop timer (symrel.verify's) stopping it is an unknown at the time
    try:
        for d in dims:  # the volumes (for the fraction covered): a product of n widths, bounded first
            lo, hi, _ = roots[d]
            check_product_bits(sum(int(w.numerator).bit_length() + int(w.denominator).bit_length()
                                   for w in (hi[i] - lo[i] for i in dims[d])),
                               where=f"input disjunct {d}", what="the volume of the box")
            total += _volume(lo, hi, dims[d])
        ctx = _context(net, prop, boxes)
        for d, (lo, hi, empty) in roots.items():  # the roots' numbers within the checker's bounds
            if empty is None:
                check_product_bits(leaf_bits(ctx.sizes, box_bits(lo, hi, f"input disjunct {d}")),
                                   where=f"input disjunct {d}", what="the numbers of the exact bounds")
    except LimitError as err:
        if getattr(err, "limit", None) is None:
            raise
        return _unknown(stack, closed_volume, total, closed_points, stats, start, err.limit)
    except BudgetExceeded:
        return _unknown(stack, closed_volume, total, closed_points, stats, start, "time")
    weights = sum(layer.output_dim * layer.input_dim for layer in net.layers)
    leaf_work = 0  # the leaves' operations, counted as the trusted checker counts them
    while stack:
        if budget.expired():
            return _unknown(stack, closed_volume, total, closed_points, stats, start, "time")
        if len(trees) + len(stack) > max_tree_entries:
            return _unknown(stack, closed_volume, total, closed_points, stats, start, "tree entries")
        if leaf_work > max_leaf_operations:
            return _unknown(stack, closed_volume, total, closed_points, stats, start, "leaf operations")
        round_ = [stack.pop() for _ in range(min(batch, len(stack)))]
        # a node is fresh when its box is new: a root, or a part of an input split (not of a ReLU split)
        items = [(d, lo, hi, splits, not path or trees[(d, path[:-1])][0] != "relu")
                 for d, path, lo, hi, splits, _ in round_]
        left = budget.remaining()
        deadline = None if left is None else time.time() + left
        chunks = [(deadline, part) for part in chunked(items, executor)]
        try:
            results = [r for part in map_ordered(_evaluate_chunk, chunks, executor, shared=(ctx,)) for r in part]
        except _BeyondChecker as limit:  # no certificate the checker would refuse: the round stays open
            stack.extend(reversed(round_))
            return _unknown(stack, closed_volume, total, closed_points, stats, start, limit.args[0])
        except BudgetExceeded:  # a caller's backstop timer, inside the round: the round stays open
            stack.extend(reversed(round_))
            return _unknown(stack, closed_volume, total, closed_points, stats, start, "time")
        if any(r is None for r in results):  # the time limit came inside the round: its nodes stay open
            stack.extend(reversed(round_))
            return _unknown(stack, closed_volume, total, closed_points, stats, start, "time")
        stats["rounds"] += 1
        children = []
        for (d, path, lo, hi, splits, owner), res in zip(round_, results):
            stats["nodes"] += 1
            stats["max_depth"] = max(stats["max_depth"], len(path))
            if res[0] == "closed":
                trees[(d, path)] = ("leaf", res[1])
                stats["leaves"] += 1
                leaf_work += leaf_operations(weights, prop.n_inputs, len(prop.unsafe),
                                             leaf_bits(ctx.sizes, box_bits(lo, hi)))
                stats["relaxed"] += res[2]
                close_part(d, lo, hi, owner)
            elif res[0] == "sat":
                stats["attacks"] += 1
                x = res[1]
                y = _confirm(net, prop, x)
                region = linear_region(ctx.inet, x) if y is None else None
                if region is not None and (d, region.phases) not in tried:  # the floats missed: an exact LP
                    tried.add((d, region.phases))
                    stats["region_lps"] += 1
                    try:
                        x = region_witness(region, lo, hi, ctx.unsafe, [a for _, a in ctx.extra[d]], budget)
                    except BudgetExceeded:  # the time is up: the next round's check says so
                        x = None
                    y = None if x is None else _confirm(net, prop, x)
                if y is not None:
                    stats["seconds"] = round(time.monotonic() - start, 3)
                    return Verdict("sat", tuple(x), y, None, (), closed_volume / total if total else ZERO, stats)
                children.append((d, path, lo, hi, splits, owner, res[2]))  # a false alarm of the floats: split
            else:
                children.append((d, path, lo, hi, splits, owner, res[1]))
        for d, path, lo, hi, splits, owner, how in reversed(children):
            if how is None:
                widths = [b - a for a, b in zip(lo, hi)]
                how = ("x", max(range(len(lo)), key=lambda k: (widths[k], -k)))
            if how[0] == "relu":
                _, k, i = how
                stats["relu_splits"] += 1
                if owner is None:
                    owner = (d, path)
                    owners[owner] = [1, (lo, hi)]
                owners[owner][0] += 1
                trees[(d, path)] = ("relu", k, i)
                stack.append((d, path + (1,), lo, hi, splits + ((k, i, 1),), owner))
                stack.append((d, path + (0,), lo, hi, splits + ((k, i, 0),), owner))
                continue
            i = how[1]
            if not hi[i] > lo[i]:
                raise InternalError("a node that is a single point stayed open")
            if owner is not None:
                owners[owner][0] += 1
            mid = how[2] if len(how) > 2 else (lo[i] + hi[i]) / 2  # the cut, or the halving
            if not lo[i] < mid < hi[i]:
                raise InputError("a split outside its node's box (internal error)", path="engine")
            trees[(d, path)] = ("split", i, mid)
            hi0 = tuple(mid if k == i else v for k, v in enumerate(hi))
            lo1 = tuple(mid if k == i else v for k, v in enumerate(lo))
            stack.append((d, path + (1,), lo1, hi, splits, owner))
            stack.append((d, path + (0,), lo, hi0, splits, owner))
        if progress is not None:  # the exact fraction of the region closed so far, and the time
            covered = closed_volume / total if total else ZERO
            progress(dict(stats, open=len(stack), covered=covered, seconds=time.monotonic() - start))
    stats["seconds"] = round(time.monotonic() - start, 3)
    cert = _certificate(net, prop, roots, trees)
    return Verdict("unsat", None, None, cert, (), Q(1), stats)


def _unknown(stack, closed_volume, total, closed_points, stats, start, limit) -> Verdict:
    stats["seconds"] = round(time.monotonic() - start, 3)
    open_leaves = tuple((d, lo, hi) for d, _, lo, hi, _, _ in reversed(stack))
    covered = closed_volume / total if total else ZERO
    return Verdict("unknown", None, None, None, open_leaves, covered, stats, limit)


# -- the certificate -------------------------------------------------------------------------------
def property_object(prop) -> dict:
    """The property as the certificate's claim records it (docs/format.md)."""
    def atom(a):
        return {"x": [format_rational(v) for v in a.x], "y": [format_rational(v) for v in a.y],
                "rhs": format_rational(a.rhs)}

    return {"inputs": prop.n_inputs, "outputs": prop.n_outputs,
            "input_region": [[atom(a) for a in conj] for conj in prop.input_region],
            "unsafe": [[atom(a) for a in conj] for conj in prop.unsafe]}


def _tree(trees, d):
    out, todo = [], [(d, ())]
    while todo:
        key = todo.pop()
        entry = trees[key]
        if entry[0] == "leaf":
            out.append({"leaf": entry[1]})
        elif entry[0] == "relu":  # the part where z <= 0 first, then z >= 0
            out.append({"relu": [entry[1], entry[2]]})
            todo.append((d, key[1] + (1,)))
            todo.append((d, key[1] + (0,)))
        else:
            out.append({"split": entry[1], "at": format_rational(entry[2])})
            todo.append((d, key[1] + (1,)))
            todo.append((d, key[1] + (0,)))
    return out


def _file_name(source) -> str:
    """The name of the property's file without its directory (certificates record no paths).

    >>> _file_name("/data/acasxu/prop_3.vnnlib"), _file_name("inline")
    ('prop_3.vnnlib', 'inline')
    """
    import os

    name = os.path.basename(str(source).replace("\\", "/"))
    name = "".join(c if c.isprintable() else "?" for c in name)
    return name if name not in ("", ".", "..") else "inline"


def _certificate(net, prop, roots, trees) -> dict:
    from ..certificates.core import PROVED, Step
    from ..fileformat import sha256_of
    from ..fileformat.models_io import write_relu

    obj = write_relu(net)
    steps = []
    for d in range(len(roots)):
        lo, hi, empty = roots[d]
        data = {"disjunct": d, "box": {"lower": [format_rational(v) for v in lo],
                                       "upper": [format_rational(v) for v in hi]}}
        data["tree"] = [{"empty": empty}] if empty is not None else _tree(trees, d)
        lemma = f"no input of input disjunct {d} meets the unsafe condition"
        steps.append(Step(lemma, "vnnlib-branch-and-bound", data, PROVED).to_json())
    sha = sha256_of(obj)
    claim = {"kind": CLAIM_KIND, "network_sha256": sha, "property_sha256": prop.sha256,
             "property_source": _file_name(prop.source), "property": property_object(prop)}
    from ..checking import stated  # the statement the checker derives from the data

    return stated({"symrel": 1, "kind": "certificate", "claim": claim,
                   "inputs": {"network": {"object": obj, "sha256": sha}}, "steps": steps})
