"""Exact bounds of a ReLU net's outputs over a box, by branch and bound: the search behind
:func:`symrel.bounds`.

Definition. For an output ``j`` and a side, the *objective* is ``f = Y_j`` (the lower side)
or ``f = -Y_j`` (the upper side), bounded from below over the box ``B``. Per objective the
search keeps

* a tree whose leaves cover ``B``, each leaf with an exact lower bound of ``f`` on it: the
  symbolic intervals of :func:`~symrel.vnnlib.symbolic.propagate` and the backward form of
  ``f`` (:meth:`~symrel.vnnlib.symbolic.Bounds.backward`) minimised over the leaf's box
  (:meth:`~symrel.vnnlib.symbolic.Bounds.form_min`). The least leaf bound is the objective's
  *certified bound*: ``f >= bound`` on ``B``, what the ``output-bounds`` certificate shows
  leaf by leaf (docs/format.md);
* ``best``: the least exact value of ``f`` found at a point of ``B``, with the point. When the
  least leaf bound reaches ``best``, the bound is *attained*: it is the minimum of ``f`` over
  ``B``, and the point is its witness.

The points: on every new leaf, the corner of its box where the leaf's lower form is least
(on a leaf where every ReLU is stable the form is ``f`` itself, and that corner a minimiser),
evaluated exactly; on a leaf whose bound is below ``best``, a float attack
(:func:`symrel.vnnlib.attack.propose`, climbing ``-f``), whose point counts after exact
evaluation alone. A point that improves ``best`` is improved further by exact LPs
(:func:`_descend`): the least value of ``f`` on the part of ``B`` where every ReLU keeps its
phase at the point (its linear region, :func:`symrel.vnnlib.pattern.linear_region`), which
reaches a vertex of the arrangement: the minimum wherever it is a local one.

The leaf bounds: the backward form with the relaxations' own slopes and, where the LP over
the relaxed net (:func:`symrel.vnnlib.betas.network_multipliers`, floats) proposes better, its
lower slopes ``alpha`` and the ReLU splits' multipliers ``beta`` (alpha- and beta-CROWN's), each
kept only when the exact bound with them is higher. On a leaf where every ReLU is settled or
split, ``f`` is affine on the leaf's part and its minimum there an exact LP's: the betas that
reach it exactly are solved for (:func:`_exact_betas`), so that the leaf's bound *is* its
minimum, and the LP's vertex is a point. Without numpy (no float LP), the lower slopes 0 and 1
of every unstable ReLU are tried exactly as well, and the exact betas are solved for on every
leaf with splits (proposals there, kept only where the exact bound with them is higher; on an
empty part they prove it so).

The branching: best first. A round takes, per objective not yet attained, the
:data:`BATCH` leaves of least bound (those below ``best``) and splits each as its parts'
float lower bounds (:mod:`symrel.vnnlib.floatbounds`) say is best (the least of the two
highest, then their sum): a halving of one of the :data:`INPUT_CANDIDATES` inputs of highest
``|A_i| * width_i`` (``A``: the float lower form of ``f``, alpha-beta-CROWN's "sb" score) or of
the relatively widest input, or, where at most :data:`RELU_SPLIT_UNSTABLE` ReLUs are unstable,
a ReLU split of one of the :data:`RELU_CANDIDATES` neurons of highest BaBSR-style score. A leaf
that holds the best point, on a kink of ``f`` (some unstable neuron vanishes there), is split
on those neurons first: no halving makes them stable, while on their parts the exact betas can
show the point is the minimum. A split that makes no progress (:data:`STALL`) gives way to
halving the relatively widest input. Without numpy: the kinks, else the input of highest score
in the exact form. The rounds' leaves are evaluated on ``executor``; a round's leaves do not
depend on the executor, so with a node budget the trees are the same on any executor.

The search stops when every bound is attained, or at a limit: ``timeout`` (less the time the
trusted check of its leaves will need, :data:`CHECK_MARGIN`), ``nodes``, or the trusted
checker's limits on the certificate (``tree entries``, ``leaf operations``, ``relaxation
bits``, ``product bits``); the bounds are then the certified bounds of the trees as they stand.
Without ``timeout`` and ``nodes`` it does not branch: each bound is the root box's (one
propagation, then one backward pass per bound), as auto_LiRPA's ``compute_bounds`` gives.

Cost: per leaf one exact propagation and one backward pass (milliseconds on ACAS Xu), and
for the split of a leaf a few float propagations; the number of leaves is what the budget
allows.

>>> from symrel.exact import Q
>>> from symrel.models import DenseLayer, ReLUNet
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
>>> found = search_bounds(net, [Q(-1)], [Q(2)], nodes=64)
>>> [(b.side, str(b.bound), b.attained) for b in found.objectives]
[('lower', '0', True), ('upper', '2', True)]
>>> [str(v) for v in found.objectives[1].point]
['2']
"""

from __future__ import annotations

import heapq
import math
import time
import zlib
from dataclasses import dataclass, field
from math import lcm

from ..budget import Budget
from ..checking.output_bounds import MAX_LEAF_OPERATIONS, MAX_RELAXATION_BITS, MAX_TREE_ENTRIES
from ..checking.vnnlib import box_bits, leaf_bits, leaf_operations
from ..errors import InputError, InternalError, LimitError
from ..exact import Q, format_rational
from ..exact.sizes import arithmetic_limits, check_product_bits, current_arithmetic_limits, number_bits
from ..parallel import chunked, map_ordered, worker_count
from .attack import FloatNet, propose
from .symbolic import IntNet, box_scale, integer_net, propagate

try:  # optional (the "numeric" extra): float bounds choose the splits
    import numpy as _np

    from .floatbounds import FloatBounds
except ImportError:  # pragma: no cover - exercised where numpy is absent
    _np = None
try:  # optional: the LP over the relaxed net proposes betas and slopes (scipy's HiGHS)
    import scipy  # noqa: F401

    from .betas import network_multipliers
except ImportError:  # pragma: no cover - exercised where scipy is absent
    network_multipliers = None

#: the claim kind of the certificates written here, and the rule of each step
CLAIM_KIND = "output-bounds"
RULE = "output-bound-branch-and-bound"
SIDES = ("lower", "upper")

#: leaves split per objective in a round (the trees do not depend on the executor)
BATCH = 4
#: inputs (highest "sb" scores) whose halving is tried in floats, besides the widest input
INPUT_CANDIDATES = 2
#: an input whose width, relative to its width in the root box, is below 2^-INPUT_BALANCE times
#: the relatively widest input's is not split (the float bounds are not monotone in the box, so a
#: thin input could otherwise be halved for ever; symrel.vnnlib.engine does the same)
INPUT_BALANCE = 8
#: linear-region LPs run from a point that improved ``best`` (each starts where the last ended)
DESCENTS = 3
#: a split whose worse part's float bound rises by at most this fraction of the leaf's gap stalls
#: (the float bounds are not monotone in the box, and the "sb" score can miss the input whose
#: width keeps the relaxations loose: on a random 3-8-6-5-2 net a leaf [-1, 1] wide in X_0 and
#: 1/200 in the others had X_1 and X_2 halved 1,500 times with the bound stuck at -2.427, where
#: the minimum is -0.911); then the relatively widest input is halved
STALL = 1e-2
#: ReLU neurons (highest BaBSR-style scores) whose split is tried against the input halvings
RELU_CANDIDATES = 2
#: a leaf with at most this many unstable ReLUs (in floats) may be split on a ReLU
RELU_SPLIT_UNSTABLE = 6
#: a leaf without ReLU splits gets the LP's lower slopes only when at most this many ReLUs are
#: unstable (the LP's cost grows with them; symrel.vnnlib.engine takes the same limit)
LP_UNSTABLE = 80
#: the denominator of the lower slopes a leaf may choose (the exact bounds' slope grid)
SLOPE_DENOMINATOR = 1 << 16


# -- the problem -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Objective:
    """``f = sign * Y_output``, bounded from below: sign 1 is the lower side, -1 the upper."""

    output: int
    sign: int

    @property
    def side(self) -> str:
        return "lower" if self.sign == 1 else "upper"


@dataclass(frozen=True)
class _Context:
    inet: IntNet
    fnet: FloatNet
    objectives: tuple
    lo: tuple  # the root box, exact
    hi: tuple
    fb: object = None  # FloatBounds (None without numpy)
    sizes: tuple = ()  # per layer of the net, the bits (d, w, fan-in) the checker bounds a leaf's numbers by
    limits: tuple = ()  # the arithmetic limits in force (symrel.exact.sizes), for the worker processes


def _fl(v) -> float:
    return int(v.numerator) / int(v.denominator)


def _context(net, lo, hi, objectives) -> _Context:
    inet = integer_net(net)
    try:
        fnet = FloatNet([([[_fl(v) for v in r] for r in layer.affine.exact_W.to_list()],
                          [_fl(r[0]) for r in layer.affine.exact_b.to_list()], layer.activation == "relu")
                         for layer in net.layers])
        if not all(math.isfinite(_fl(b) - _fl(a)) for a, b in zip(lo, hi)):
            raise OverflowError
    except OverflowError:
        raise InputError("a weight, bias or bound beyond the range of a double (about 1.8e308): the float "
                         "proposals (attacks, splits) cannot represent it", path="network") from None
    fb = FloatBounds(inet) if _np is not None else None
    sizes = tuple((L.D.bit_length(), max((abs(v).bit_length() for r in L.Wp + L.Wn + (L.b,) for v in r), default=0),
                   layer.affine.input_dim) for L, layer in zip(inet.layers, net.layers))
    return _Context(inet, fnet, tuple(objectives), tuple(lo), tuple(hi), fb, sizes,
                    tuple(current_arithmetic_limits()))


def exact_outputs(ctx: _Context, x) -> list:
    """``N(x)`` exactly: integers over one common denominator, layer by layer (the layer
    products of :mod:`symrel.vnnlib.symbolic`: int64 limbs or python-flint where installed)."""
    from .symbolic import _products

    q = 1
    for v in x:
        q = lcm(q, int(v.denominator))
    h = [[int(v.numerator) * (q // int(v.denominator))] for v in x]   # a column, as one-entry rows
    den = q
    for layer in ctx.inet.layers:
        z = _products(layer, h, h)[0]
        h = [[int(r[0]) + c * den] for r, c in zip(z, layer.b)]
        den *= layer.D
        if layer.relu:
            h = [[v[0] if v[0] > 0 else 0] for v in h]
    return [Q(v[0], den) for v in h]


def _may_improve(ctx: _Context, o: int, x, best) -> bool:
    """Whether ``f(x)`` may be below ``best`` (floats, with a margin far above their error: a
    filter that saves exact evaluations of points that cannot improve, never a decision)."""
    if best is None or _np is None:
        return True
    obj = ctx.objectives[o]
    h = _np.array([_fl(v) for v in x], dtype=float)
    for W, b, relu in ctx.fnet.arrays:
        h = W @ h + b
        if relu:
            h = _np.maximum(h, 0.0)
    value = obj.sign * float(h[obj.output])
    limit = _fl(best)
    return not math.isfinite(value) or value <= limit + 1e-6 * (1.0 + abs(limit))


# -- one leaf --------------------------------------------------------------------------------------
class _BeyondChecker(Exception):
    """A leaf whose numbers the trusted checker would refuse (its argument: the limit's name)."""


def _within_checker_sizes(ctx: _Context, lo, hi, bound_y, chosen) -> None:
    """Raise :class:`_BeyondChecker` when the trusted checker would refuse the leaf's numbers
    (bounded as :func:`symrel.checking.vnnlib.leaf_bits` bounds them, with the leaf's bound and
    its own slopes and betas as :mod:`symrel.checking.output_bounds` counts them)."""
    try:
        relus = sum(1 for layer in ctx.inet.layers[:len(ctx.sizes)] if layer.relu)
        check_product_bits(leaf_bits(ctx.sizes, box_bits(lo, hi), number_bits([bound_y]) + relus * number_bits(chosen)))
    except LimitError as err:
        raise _BeyondChecker(getattr(err, "limit", None) or "product bits") from None


def _facts(bounds, bound_y) -> dict:
    """The leaf as the certificate records it (docs/format.md, "output-bounds")."""
    numbers = [v for _, _, a, s, t in bounds.relaxed for v in (a, s, t)]
    if any(max(int(v.numerator).bit_length(), int(v.denominator).bit_length()) > MAX_RELAXATION_BITS
           for v in numbers):
        raise _BeyondChecker("relaxation bits")
    phases = ["".join("a" if st == 1 else "i" if st == 0 else "u" for st in layer) for layer in bounds.states]
    relax = [[format_rational(a), format_rational(s), format_rational(t)] for _, _, a, s, t in bounds.relaxed]
    return {"phases": phases, "relaxations": relax, "bound": format_rational(bound_y)}


def _ay(ctx: _Context, o: int) -> list:
    obj = ctx.objectives[o]
    return [Q(obj.sign if k == obj.output else 0) for k in range(ctx.inet.n_outputs)]


def _dyadic(v: float):
    """A float rounded down to 2^-32 (a beta: small numbers keep the exact check cheap)."""
    return Q(int(v * 4294967296.0), 4294967296)


def _lp_proposal(ctx: _Context, run, splits, o: int):
    """The LP's betas (one per split, rounded down to 2^-32) and lower slopes (``{(k, i):
    numerator over SLOPE_DENOMINATOR}``) for ``f`` on a leaf (:func:`symrel.vnnlib.betas.network_multipliers`):
    proposals, which the exact backward pass then takes or leaves; None when the LP fails."""
    obj = ctx.objectives[o]
    n = len(run.lo)
    fay = [float(obj.sign) if k == obj.output else 0.0 for k in range(ctx.inet.n_outputs)]
    got = network_multipliers(ctx.fb, run, list(splits), fay, [0.0] * n, 0.0)
    if got is None:
        return None
    bt, lam = got
    betas = tuple((k, i, ph, _dyadic(b)) for (k, i, ph), b in zip(splits, bt))
    chosen: dict = {}
    ctx.fb.lower(run, fay, [0.0] * n, [(k, i, ph, _fl(b)) for k, i, ph, b in betas], alphas=chosen, lam=lam)
    alphas = {key: min(SLOPE_DENOMINATOR, max(0, int(a * SLOPE_DENOMINATOR))) for key, a in chosen.items()}
    return betas, alphas


def _bits(v) -> int:
    return max(int(v.numerator).bit_length(), int(v.denominator).bit_length())


def _exact_betas(bounds, ay, splits, lo, hi, target):
    """On a leaf where every ReLU is settled or split, the function is affine on the leaf's
    part (the box where the splits' sides hold), and so is each split neuron's pre-activation:
    ``f = F0`` and ``h_j = sigma_j z_j >= 0`` there. Returns ``(betas, x)``: betas with which
    the backward bound is the exact minimum of ``f`` over the part, reached at the point ``x``
    (the optimal vertex of the exact LP ``min F0`` over the part, :func:`symrel.exact.lp_optimum.maximise`;
    the betas solve the optimality conditions at it exactly, :func:`symrel.exact.lp.feasibility`);
    for an empty part, ``(betas, None)`` with a bound at least ``target`` (a Farkas vector of
    the part, scaled); None when the LPs fail or the numbers exceed the checker's limit."""
    from ..exact.lp import feasibility
    from ..exact.lp_optimum import maximise

    n = len(lo)
    zero = [Q(0)] * n
    F0 = bounds.backward(ay, zero)
    h = []
    for k, i, ph in splits:  # h_j = F0 - (the form with beta_j = 1): sigma_j z_j, affine on the part
        Fj = bounds.backward(ay, zero, ((k, i, ph, Q(1)),))
        h.append([a - b for a, b in zip(F0, Fj)])
    A, b = [], []
    for t in range(n):
        A += [[Q(int(i == t)) for i in range(n)], [Q(-int(i == t)) for i in range(n)]]
        b += [hi[t], -lo[t]]
    for hj in h:  # h_j(x) >= 0
        A.append([-v for v in hj[:n]])
        b.append(hj[n])
    m0 = bounds.form_min(F0)
    M0 = -bounds.form_min([-v for v in F0])
    K = M0 + 1  # g = K - F0 >= 1 on the box
    try:
        got = maximise(A, b, [-v for v in F0[:n]], K - F0[n], upper=K - m0)
    except (ValueError, ArithmeticError):
        return None
    if got is None:  # the part is empty: a Farkas vector of its rows, scaled past the target
        if target is None:
            return None
        res = feasibility(A, b)
        if res.feasible:
            return None
        y = res.farkas[0][2 * n:]
        slack = bounds.form_min([-sum((yj * hj[t] for yj, hj in zip(y, h)), Q(0)) for t in range(n + 1)])
        if not slack > 0:
            return None
        scale = Q(max(0, math.ceil((target - m0) / slack)) + 1)
        betas = tuple((k, i, ph, scale * yj) for (k, i, ph), yj in zip(splits, y))
        return (betas, None) if all(_bits(v[3]) <= MAX_RELAXATION_BITS for v in betas) else None
    x = got[1]
    active = [j for j, hj in enumerate(h) if sum((a * v for a, v in zip(hj[:n], x)), hj[n]) == 0]
    beta = [Q(0)] * len(splits)
    if active:  # v = c - sum_j beta_j a_j: >= 0 where x is at lo, <= 0 at hi, 0 strictly inside
        rows, rhs, eq, eq_rhs = [], [], [], []
        for j in range(len(active)):
            rows.append([Q(-int(j == m)) for m in range(len(active))])
            rhs.append(Q(0))
        for t in range(n):
            coeffs = [h[j][t] for j in active]
            if lo[t] == hi[t]:
                continue
            if x[t] == lo[t]:
                rows.append(coeffs)
                rhs.append(F0[t])
            elif x[t] == hi[t]:
                rows.append([-v for v in coeffs])
                rhs.append(-F0[t])
            else:
                eq.append(coeffs)
                eq_rhs.append(F0[t])
        res = feasibility(rows, rhs, eq, eq_rhs)
        if not res.feasible:
            return None
        for j, v in zip(active, res.point):
            beta[j] = v
    if any(_bits(v) > MAX_RELAXATION_BITS for v in beta):
        return None
    return tuple((k, i, ph, v) for (k, i, ph), v in zip(splits, beta)), tuple(x)


def _leaf(ctx: _Context, bounds, run, o: int, lo, hi, splits, best):
    """``(bound of f, facts, candidate points)`` on a leaf: the backward bound of ``f``, and where
    they raise it the LP's betas and slopes (proposals, recomputed exactly) or, on a part where
    every ReLU is settled or split, the exact betas of :func:`_exact_betas`; the candidates
    ``(value of f, x)``: the least corner of the chosen form, and the exact LP's vertex."""
    ay = _ay(ctx, o)
    zero = [Q(0)] * len(lo)
    form = bounds.backward(ay, zero)
    least, betas, alphas = bounds.form_min(form), (), None
    unstable = len(bounds.relaxed)
    points = []
    if run is not None and network_multipliers is not None and (splits or 0 < unstable <= LP_UNSTABLE):
        got = _lp_proposal(ctx, run, splits, o)
        if got is not None:
            used: set = set()
            f2 = bounds.backward(ay, zero, got[0], got[1] or None, used)
            m2 = bounds.form_min(f2)
            if m2 > least:  # the slopes the form does not take are left at the relaxation's (no free number)
                form, least, betas = f2, m2, got[0]
                alphas = {key: a for key, a in got[1].items() if key in used} or None
    if run is None and unstable:   # without numpy no LP proposes slopes: the two extreme ones, exactly
        keys = [(k, i) for k, layer in enumerate(bounds.states) for i, st in enumerate(layer) if isinstance(st, tuple)]
        for a in (0, SLOPE_DENOMINATOR):
            used: set = set()
            f2 = bounds.backward(ay, zero, (), dict.fromkeys(keys, a), used)
            m2 = bounds.form_min(f2)
            if m2 > least:
                form, least, alphas = f2, m2, {key: a for key in keys if key in used} or None
    # without numpy (no float LP), also on a part with unstable ReLUs: the exact LP's betas are then
    # proposals like any other (the bound is recomputed with them), and they show a part empty
    if splits and (unstable == 0 or run is None):
        got = _exact_betas(bounds, ay, splits, lo, hi, best)
        if got is not None:
            f2 = bounds.backward(ay, zero, got[0])
            m2 = bounds.form_min(f2)
            if m2 > least:
                form, least, betas, alphas = f2, m2, got[0], None
            if got[1] is not None:
                points.append(got[1])
    corner = tuple(a if c > 0 else b if c < 0 else (a + b) / 2 for c, a, b in zip(form[:-1], lo, hi))
    points.insert(0, corner)
    obj = ctx.objectives[o]
    found = [(obj.sign * exact_outputs(ctx, x)[obj.output], x) for x in points if _may_improve(ctx, o, x, best)]
    facts = _facts(bounds, obj.sign * least)
    if betas and any(b[3] for b in betas):
        facts["beta"] = [format_rational(b[3]) for b in betas]
    if alphas:  # one lower slope per unstable neuron, in the order of the relaxations
        facts["alpha"] = [format_rational(Q(alphas.get((k, i), st[0]), SLOPE_DENOMINATOR))
                          for k, layer in enumerate(bounds.states) for i, st in enumerate(layer)
                          if isinstance(st, tuple)]
    if "beta" in facts and any(_bits(b[3]) > MAX_RELAXATION_BITS for b in betas):
        raise _BeyondChecker("relaxation bits")
    slopes = [Q(alphas.get((k, i), st[0]) if alphas else st[0], SLOPE_DENOMINATOR)
              for k, layer in enumerate(bounds.states) for i, st in enumerate(layer) if isinstance(st, tuple)]
    _within_checker_sizes(ctx, lo, hi, obj.sign * least, [b[3] for b in betas if "beta" in facts] + slopes)
    return least, facts, min(found, key=lambda p: p[0]) if found else None


def _float_point(ctx: _Context, o: int, lo, hi):
    """A float attack's point on the box (proposal only), clipped to it exactly."""
    obj = ctx.objectives[o]
    ay = [float(obj.sign) if k == obj.output else 0.0 for k in range(ctx.inet.n_outputs)]
    flo, fhi = [_fl(v) for v in lo], [_fl(v) for v in hi]
    seed = zlib.crc32(repr((o, [str(v) for v in lo], [str(v) for v in hi])).encode())  # the same in every process
    x = propose(ctx.fnet, [[([0.0] * len(lo), ay, 0.0)]], flo, fhi, seed=seed)
    if not all(math.isfinite(v) for v in x):
        return None
    return tuple(min(max(Q(*v.as_integer_ratio()), a), b) for v, a, b in zip(x, lo, hi))


def _descend(ctx: _Context, o: int, value, x, floor):
    """From the point ``x`` (``f(x) = value``), the least value of ``f`` on its linear region in
    the root box, repeated from the point reached while it improves, at most :data:`DESCENTS`
    times; ``floor``: a lower bound of ``f`` on the root box. The LP is exact
    (:func:`symrel.exact.lp_optimum.maximise`, which reaches a vertex exactly) for a region of
    at most :data:`EXACT_LP_ROWS` rows, else HiGHS's in floats (its point rounded into the box:
    a proposal). Returns ``(value, point)``, the point's value by exact evaluation (an LP that
    fails or does not improve leaves ``x``)."""
    from .pattern import linear_region

    obj = ctx.objectives[o]
    n = len(x)
    for _ in range(DESCENTS):
        region = linear_region(ctx.inet, list(x))
        form = region.outputs[obj.output]
        if len(region.rows) <= EXACT_LP_ROWS:
            y = _exact_vertex(ctx, region, [obj.sign * v for v in form], value, floor)
        elif network_multipliers is not None:
            y = _float_vertex(ctx, region, [obj.sign * v for v in form])
        else:
            return value, x
        if y is None:
            return value, x
        v = obj.sign * exact_outputs(ctx, y)[obj.output]
        if not v < value:
            return value, x
        value, x = v, y
    return value, x


#: a linear region of at most this many rows (ReLUs) gets the exact LP in :func:`_descend`
EXACT_LP_ROWS = 48


def _exact_vertex(ctx: _Context, region, form, value, floor):
    """The vertex where the affine ``form`` (integers over ``region.H``, constant last) is least
    on the region in the root box, by the exact simplex; None when it fails."""
    from ..exact.lp_optimum import maximise

    n = len(ctx.lo)
    A = [[Q(v) for v in r[:n]] for r in region.rows]
    b = [Q(-r[n]) for r in region.rows]
    for k in range(n):
        A += [[Q(int(i == k)) for i in range(n)], [Q(-int(i == k)) for i in range(n)]]
        b += [ctx.hi[k], -ctx.lo[k]]
    # maximise g = -f + value + 1 (g = 1 > 0 at the start), at most value + 1 - floor on the box
    w = [Q(-form[c], region.H) for c in range(n)]
    w0 = Q(-form[n], region.H) + value + 1
    try:
        got = maximise(A, b, w, w0, upper=value + 1 - floor)
    except (ValueError, ArithmeticError):
        return None
    return None if got is None else tuple(got[1])


def _float_vertex(ctx: _Context, region, form):
    """The point where ``form`` is least on the region in the root box by HiGHS in floats (each
    integer row scaled to doubles), rounded into the box; None when the LP fails."""
    from scipy.optimize import linprog

    n = len(ctx.lo)

    def scaled(row):
        shift = max(0, max(abs(v) for v in row).bit_length() - 60)
        return [float(v >> shift) if shift else float(v) for v in row]

    G = _np.array([scaled(r) for r in region.rows], dtype=float).reshape(len(region.rows), n + 1)
    c = _np.array(scaled(form[:n] + [0])[:n], dtype=float)
    bounds = [(_fl(a), _fl(b)) for a, b in zip(ctx.lo, ctx.hi)]
    try:
        res = linprog(c, A_ub=G[:, :n] if len(G) else None, b_ub=-G[:, n] if len(G) else None, bounds=bounds,
                      method="highs")
    except ValueError:  # pragma: no cover
        return None
    if res.status != 0 or res.x is None or not all(math.isfinite(v) for v in res.x):
        return None
    return tuple(min(max(Q(*float(v).as_integer_ratio()), a), b) for v, a, b in zip(res.x, ctx.lo, ctx.hi))


def _evaluate(ctx: _Context, o_list, lo, hi, splits, run, best, floor, fresh):
    """The leaf ``[lo, hi]`` (with its ReLU splits) for each objective of ``o_list``: ``(bound,
    facts, found, relaxed)`` with ``found`` the best point seen there, ``(value, x)``, when it
    improves ``best[o]`` (else None); ``run``: the float run of the leaf, or None (computed here
    where numpy is installed); ``fresh``: the box is new (not a ReLU split's part), so that it
    is attacked."""
    fixed = {(k, i): ph for k, i, ph in splits}
    if run is None and ctx.fb is not None:
        run = ctx.fb.run([_fl(v) for v in lo], [_fl(v) for v in hi], fixed)
    bounds = propagate(ctx.inet, box_scale(lo, hi), fixed=fixed, hints=None if run is None else run.pre)
    out = []
    for o in o_list:
        least, facts, found = _leaf(ctx, bounds, run, o, lo, hi, splits, best[o])
        if found is not None and best[o] is not None and not found[0] < best[o]:
            found = None
        if fresh and least < (best[o] if found is None else found[0]):  # the leaf may hold a better point
            x = _float_point(ctx, o, lo, hi)
            if x is not None and _may_improve(ctx, o, x, best[o] if found is None else found[0]):
                v = ctx.objectives[o].sign * exact_outputs(ctx, x)[ctx.objectives[o].output]
                if v < (best[o] if found is None else found[0]):
                    found = (v, x)
        if found is not None and floor[o] is not None:
            found = _descend(ctx, o, found[0], found[1], floor[o])
        out.append((least, facts, found, len(bounds.relaxed)))
    return out


def _unstable(run) -> int:
    """The ReLUs whose float range straddles 0 (split ones included)."""
    return sum(int(((l < 0) & (u > 0)).sum()) for l, u in run.pre)


def _float_bound(ctx: _Context, run, splits, fay, n):
    """The float lower bound of ``f`` on a part: the backward one, and on a part with splits
    and few unstable ReLUs also the LP's (what the exact bounds will try)."""
    bound = ctx.fb.lower(run, fay, [0.0] * n)[0]
    if splits and network_multipliers is not None and _unstable(run) - len(splits) <= RELU_SPLIT_UNSTABLE:
        got = network_multipliers(ctx.fb, run, list(splits), fay, [0.0] * n, 0.0)
        if got is not None:
            bt, lam = got
            betas = [(k, i, ph, b) for (k, i, ph), b in zip(splits, bt)]
            bound = max(bound, ctx.fb.lower(run, fay, [0.0] * n, betas, alphas={}, lam=lam)[0])
    return bound if math.isfinite(bound) else -math.inf


def _kinks(ctx: _Context, run, x, fixed):
    """The unstable, unsplit neurons of the run whose pre-activation vanishes at the point ``x``
    (in floats, to a relative 1e-9: a proposal), as ``(k, i)``: the kinks of ``f`` at ``x``."""
    h = _np.array([_fl(v) for v in x], dtype=float)
    out, k = [], 0
    for W, b, relu in ctx.fb.layers:
        z = W @ h + b
        if relu:
            l, u = run.pre[k]
            scale = _np.abs(W) @ _np.abs(h) + _np.abs(b) + 1.0
            for i in _np.nonzero((_np.abs(z) <= 1e-9 * scale) & (l < 0) & (u > 0))[0]:
                if (k, int(i)) not in fixed:
                    out.append((k, int(i)))
            z = _np.maximum(z, 0.0)
            k += 1
        h = z
    return out


def _exact_kinks(ctx: _Context, bounds, x):
    """The neurons unstable on the leaf (``bounds``: its exact propagation) whose pre-activation
    is exactly 0 at the point ``x``, as ``(k, i)`` (:func:`_kinks` without floats)."""
    from .symbolic import _products

    q = 1
    for v in x:
        q = lcm(q, int(v.denominator))
    h = [[int(v.numerator) * (q // int(v.denominator))] for v in x]   # a column, as in exact_outputs
    out, k = [], 0
    for layer in ctx.inet.layers:
        h = [[int(r[0]) + c * q] for r, c in zip(_products(layer, h, h)[0], layer.b)]
        q *= layer.D
        if layer.relu:
            out += [(k, i) for i, v in enumerate(h) if v[0] == 0 and isinstance(bounds.states[k][i], tuple)]
            h = [[v[0] if v[0] > 0 else 0] for v in h]
            k += 1
    return out


def _choose_split(ctx: _Context, o: int, lo, hi, splits, point=None, target=None):
    """The split of a leaf and the float runs of its two parts (None without numpy):
    ``(("x", i, c), runs)`` or ``(("relu", k, i), runs)``, chosen by float bounds (module
    docstring); without numpy the halving of the input of highest ``|A_i| * width_i`` in the
    exact lower form, or of the widest.

    A leaf that holds ``point``, the best point found, and few unstable ReLUs of which some
    vanish there (the point is on a kink of ``f``) is split on the one of those that scores
    highest: however small a box around the point, those neurons stay unstable in it, while
    on the parts of their splits ``f`` is affine near the point, so that the exact betas
    (:func:`_exact_betas`) can show it is the minimum.

    A split that raises the worse of its parts' float bounds by at most :data:`STALL` of the
    leaf's gap (to ``target``, the best value found) makes no progress: the relatively widest
    input is halved instead."""
    n = len(lo)
    obj = ctx.objectives[o]
    fixed = {(k, i): ph for k, i, ph in splits}
    widths = [b - a for a, b in zip(lo, hi)]
    splittable = [i for i in range(n) if widths[i] > 0]
    if ctx.fb is None:
        bounds = propagate(ctx.inet, box_scale(lo, hi), fixed=fixed)
        if point is not None and all(a <= v <= b for v, a, b in zip(point, lo, hi)):
            kinks = _exact_kinks(ctx, bounds, point)
            if kinks:
                return ("relu",) + kinks[0], (None, None)
        if not splittable:
            raise InternalError("a leaf that is a single point stayed open")
        form = bounds.backward(_ay(ctx, o), [Q(0)] * n)
        i = max(splittable, key=lambda k: (abs(form[k]) * widths[k], widths[k], -k))
        if not form[i]:
            i = max(splittable, key=lambda k: (widths[k], -k))
        return ("x", i, (lo[i] + hi[i]) / 2), (None, None)
    fay = [float(obj.sign) if k == obj.output else 0.0 for k in range(ctx.inet.n_outputs)]
    flo, fhi = [_fl(v) for v in lo], [_fl(v) for v in hi]
    run = ctx.fb.run(flo, fhi, fixed)
    floor, A, _ = ctx.fb.lower(run, fay, [0.0] * n)
    floor = floor if math.isfinite(floor) else -math.inf
    options = []
    few = _unstable(run) - len(fixed) <= RELU_SPLIT_UNSTABLE
    kinks = set()
    if few and point is not None and all(a <= v <= b for v, a, b in zip(point, lo, hi)):
        kinks = set(_kinks(ctx, run, point, fixed))
    widest = None
    if splittable and not kinks:
        fw = [fh - fl for fl, fh in zip(flo, fhi)]
        root = [_fl(b) - _fl(a) for a, b in zip(ctx.lo, ctx.hi)]
        rel = [w / r if r > 0 else 0.0 for w, r in zip(fw, root)]
        keep = max(rel[i] for i in splittable) / 2 ** INPUT_BALANCE
        scores = {i: abs(float(A[i])) * fw[i] for i in splittable if rel[i] >= keep}
        ranked = sorted(scores, key=lambda k: (-scores[k] if math.isfinite(scores[k]) else 0.0, k))
        inputs = ranked[:INPUT_CANDIDATES]
        widest = max(scores or splittable, key=lambda k: (rel[k], -k))
        if widest not in inputs:
            inputs.append(widest)
        for rank, i in enumerate(inputs):
            mid = (lo[i] + hi[i]) / 2
            fm = _fl(mid)
            r0 = ctx.fb.run(flo, [fm if k == i else v for k, v in enumerate(fhi)], fixed)
            r1 = ctx.fb.run([fm if k == i else v for k, v in enumerate(flo)], fhi, fixed)
            a, b = (max(floor, _float_bound(ctx, r, splits, fay, n)) for r in (r0, r1))
            options.append((min(a, b), a + b, 1, -rank, ("x", i, mid), (r0, r1)))
    if few:
        scored = ctx.fb.neuron_scores(run, fay, fixed)
        if kinks:  # the docstring: the kinks at the best point first
            scored = [t for t in scored if (t[1], t[2]) in kinks] or [(0.0, k, i) for k, i in sorted(kinks)]
        for score, k, i in scored[:RELU_CANDIDATES]:
            parts = []
            for ph in (0, 1):
                part = dict(fixed)
                part[(k, i)] = ph
                r = ctx.fb.run(flo, fhi, part, run, k)
                parts.append((r, max(floor, _float_bound(ctx, r, splits + ((k, i, ph),), fay, n))))
            (r0, a), (r1, b) = parts
            options.append((min(a, b), a + b, 0, 0, ("relu", k, i), (r0, r1)))
    if not options:
        raise InternalError("a leaf that is a single point stayed open")
    best = max(options, key=lambda t: t[:4])
    if widest is not None and target is not None and best[0] - floor <= STALL * (target - floor):
        # no split raises the worse part: halve the relatively widest input (see STALL)
        best = next(t for t in options if t[4][0] == "x" and t[4][1] == widest)
    return best[4], best[5]


def _expand(ctx: _Context, task):
    """Split the leaf of ``task`` and evaluate its two parts: ``(how, parts, seconds)`` (``how``:
    ``("x", i, c)`` or ``("relu", k, i)``; each part ``(bound, facts, found, relaxed)``;
    ``seconds``: the time their evaluation took), ``("beyond", limit)``, or None when the
    deadline has passed."""
    deadline, o, lo, hi, splits, best, floor, point = task
    if deadline is not None and time.time() >= deadline:
        return None
    try:
        how, runs = _choose_split(ctx, o, lo, hi, splits, point, None if best[o] is None else _fl(best[o]))
        t0 = time.monotonic()
        parts = []
        for side, run in zip((0, 1), runs):
            plo, phi, psplits = part_of(how, side, lo, hi, splits)
            parts.append(_evaluate(ctx, [o], plo, phi, psplits, run, best, floor, how[0] == "x")[0])
    except _BeyondChecker as limit:
        return ("beyond", limit.args[0])
    return (how, parts, time.monotonic() - t0)


def part_of(how, side, lo, hi, splits):
    """The box and splits of part ``side`` (0, then 1) of a split ``how``: the halving's lower
    part ``x_i <= c`` and upper part ``x_i >= c``, or the ReLU split's part ``z <= 0`` and ``z >= 0``."""
    if how[0] == "relu":
        return lo, hi, splits + ((how[1], how[2], side),)
    _, i, c = how
    if side == 0:
        return lo, tuple(c if k == i else v for k, v in enumerate(hi)), splits
    return tuple(c if k == i else v for k, v in enumerate(lo)), hi, splits


def _expand_chunk(ctx, chunk):
    with arithmetic_limits(*ctx.limits):  # the caller's, also in a worker process
        if _np is None:
            return [_expand(ctx, task) for task in chunk]
        with _np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # floats only propose
            return [_expand(ctx, task) for task in chunk]


# -- the search ------------------------------------------------------------------------------------
@dataclass
class ObjectiveBound:
    """The outcome for one side of one output. ``bound``: the certified bound of ``Y_output``
    (lower side: ``Y >= bound`` on the box; upper side: ``Y <= bound``); ``best``, ``point``:
    the exact value of ``Y_output`` at the point of the box found nearest to the bound (the
    least found on the lower side, the greatest on the upper side), so the true minimum
    (maximum) lies between ``bound`` and ``best``; ``attained``: ``bound == best``; ``tree``: the
    certificate's tree (preorder entries); ``leaves``, ``nodes``: its size."""

    output: int
    side: str
    bound: object
    best: object
    point: tuple | None
    attained: bool
    tree: list
    leaves: int
    nodes: int


@dataclass
class BoundsSearch:
    """What :func:`search_bounds` found: one :class:`ObjectiveBound` per output and side (the
    lower side first), ``stats`` and ``limit``: what stopped the search before every bound was
    attained (``"time"``, ``"nodes"``, ``"tree entries"``, ``"leaf operations"``, ``"relaxation
    bits"``), ``"no branching"`` when neither a timeout nor a node budget was given, None
    when every bound is attained."""

    objectives: list
    stats: dict = field(default_factory=dict)
    limit: str | None = None


class _Tree:
    """One objective's tree: its entries by path, its open leaves (a heap by bound) and ``best``."""

    def __init__(self):
        self.entries: dict = {}
        self.heap: list = []
        self.best = None  # (value of f, point)
        self.nodes = 0

    def add_leaf(self, path, lo, hi, splits, least, facts, found, seq):
        self.entries[path] = ("leaf", facts, least)
        heapq.heappush(self.heap, (least, seq, path, lo, hi, splits))
        self.nodes += 1
        if found is not None and (self.best is None or found[0] < self.best[0]):
            self.best = found

    def attained(self) -> bool:
        return self.best is not None and self.heap[0][0] >= self.best[0]

    def preorder(self) -> list:
        out, todo = [], [()]
        while todo:
            path = todo.pop()
            entry = self.entries[path]
            if entry[0] == "leaf":
                out.append({"leaf": entry[1]})
                continue
            if entry[0] == "relu":  # the part z <= 0 first, then z >= 0
                out.append({"relu": [entry[1], entry[2]]})
            else:  # the part x_i <= c first, then x_i >= c
                out.append({"split": entry[1], "at": format_rational(entry[2])})
            todo.append(path + (1,))
            todo.append(path + (0,))
        return out


def objectives_of(n_outputs: int, outputs=None) -> list:
    """The objectives of the outputs ``outputs`` (all when None): per output its lower side,
    then its upper side."""
    outputs = range(n_outputs) if outputs is None else outputs
    return [Objective(j, s) for j in outputs for s in (1, -1)]


#: the time kept for the trusted check is this multiple of its expected time (the check's leaves
#: deeper in the tree and a load that changes between the search and the check make it vary:
#: with 1.25, two of eight ACAS Xu instances with a budget of 20 s under a load of about 4 on
#: 2 cores ran out of time in the check and fell back to the bounds of the whole box)
CHECK_MARGIN = 1.6


def search_bounds(net, lo, hi, outputs=None, *, timeout=None, nodes=None, executor=None, progress=None,
                  after_roots=None) -> BoundsSearch:
    """Bound the outputs ``outputs`` (indices, all when None) of ``net`` over the box
    ``[lo, hi]`` (exact rationals) by branch and bound (module docstring).

    ``timeout``: seconds for the search (None: no limit); ``nodes``: most leaves evaluated in
    all (the roots count one per bound); neither: the root box alone. ``executor``: a
    ``concurrent.futures`` executor or None. ``progress``: called as ``progress(stats)``
    after the roots and after each round. ``after_roots``: called with the
    :class:`BoundsSearch` of the roots alone (the bounds of the whole box) before any branching;
    it returns the seconds the trusted check takes per leaf (serially), or None to stop there.
    With a ``timeout``, the search then keeps :data:`CHECK_MARGIN` times the time the check of
    its leaves needs, spread over the executor's workers as the rounds were (the seconds their
    leaves took over the rounds' wall time, at most the workers: fewer on a loaded machine): a
    round is not started that would not leave it, and a round that runs late is stopped at it."""
    start = time.monotonic()
    clock = Budget(timeout)
    lo, hi = tuple(lo), tuple(hi)
    if len(lo) != net.input_dim or len(hi) != net.input_dim:
        raise InputError(f"expected a box of {net.input_dim} inputs, got {len(lo)}", path="region")
    bad = next((i for i in range(len(lo)) if lo[i] > hi[i]), None)
    if bad is not None:
        raise InputError(f"expected lower <= upper, got [{lo[bad]}, {hi[bad]}] for input {bad}", path="region")
    n_out = net.output_dim
    chosen = list(range(n_out)) if outputs is None else list(outputs)
    if not chosen or any(not 0 <= j < n_out for j in chosen) or len(set(chosen)) != len(chosen):
        raise InputError(f"expected distinct outputs in 0..{n_out - 1}, got {chosen}", path="outputs")
    objectives = objectives_of(n_out, sorted(chosen))
    ctx = _context(net, lo, hi, objectives)
    try:   # the root's numbers within the checker's bounds: else no certificate it accepts can be made
        check_product_bits(leaf_bits(ctx.sizes, box_bits(lo, hi, "region")), where="region",
                           what="the numbers of the exact bounds")
    except LimitError as err:
        raise LimitError(f"the network's or the region's numbers are too large for a certificate the trusted "
                         f"checker accepts ({err.message})", path="region") from None
    trees = [_Tree() for _ in objectives]
    stats = {"nodes": 0, "leaves": 0, "rounds": 0, "input_splits": 0, "relu_splits": 0, "relaxed": 0,
             "exact_seconds": 0.0}
    seq = 0
    t0 = time.monotonic()
    try:
        root = _evaluate(ctx, range(len(objectives)), lo, hi, (), None, [None] * len(objectives),
                         [None] * len(objectives), True)
    except _BeyondChecker as limit:
        raise LimitError(f"the network's or the region's numbers are too large for a certificate the trusted checker "
                         f"accepts (limit {limit.args[0]!r})") from None
    stats["exact_seconds"] += time.monotonic() - t0
    floors = [least for least, *_ in root]
    for o, (least, facts, found, relaxed) in enumerate(root):
        trees[o].add_leaf((), lo, hi, (), least, facts, found, seq)
        seq += 1
        stats["relaxed"] += relaxed
    if trees[0].best is not None:  # the root's points, improved by the LP now that the floors are known
        for o, tree in enumerate(trees):
            tree.best = _descend(ctx, o, tree.best[0], tree.best[1], floors[o])
    stats["nodes"] = stats["leaves"] = len(objectives)
    if progress is not None:
        progress(_progress_stats(trees, objectives, stats, start))
    weights = sum(layer.output_dim * layer.input_dim for layer in net.layers)
    # the leaves' operations, counted as the trusted checker counts them (a leaf's box's bits weigh in)
    leaf_work = len(objectives) * leaf_operations(weights, net.input_dim, 1, leaf_bits(ctx.sizes, box_bits(lo, hi)))
    workers = worker_count(executor)
    limit = None if (timeout is not None or nodes is not None) else "no branching"
    if all(tree.attained() for tree in trees):
        limit = None
    check_rate = 0.0  # seconds of the trusted check per leaf
    if after_roots is not None:
        roots = _outcome(objectives, trees, dict(stats, seconds=round(time.monotonic() - start, 3)),
                         None if all(tree.attained() for tree in trees) else "no branching")
        rate = after_roots(roots)
        if rate is None and limit is None and not all(tree.attained() for tree in trees):
            limit = "time"
        check_rate = rate or 0.0
    last_round = 0.0  # wall seconds of the last round
    busy = wall = 0.0  # the seconds the rounds' leaves took to evaluate, in all, and the rounds' wall seconds
    while limit is None:
        active = [o for o, tree in enumerate(trees) if not tree.attained()]
        if not active:
            break
        if clock.expired():
            limit = "time"
            break
        # the time the check of the leaves after this round needs is kept for it; a round not
        # expected to end before that is not started, and one that runs late is stopped at it
        # spread over the workers as the rounds were: on a loaded machine they share fewer cores
        speedup = min(max(1.0, busy / wall), workers) if wall > 0 else 1.0
        reserve = CHECK_MARGIN * check_rate * (stats["leaves"] + BATCH * len(active)) / speedup
        left = clock.remaining()
        if left is not None and left <= reserve + last_round:
            limit = "time"
            break
        tasks = []
        for o in active:
            tree = trees[o]
            for _ in range(BATCH):
                if not tree.heap or tree.heap[0][0] >= tree.best[0]:
                    break
                if nodes is not None and stats["nodes"] + 2 * (len(tasks) + 1) > nodes:
                    break
                tasks.append((o, heapq.heappop(tree.heap)))
        if not tasks:
            limit = "nodes"
            break
        entries = sum(len(t.entries) for t in trees)
        if entries + 2 * len(tasks) > MAX_TREE_ENTRIES:
            limit = "tree entries"
        elif leaf_work + sum(2 * leaf_operations(weights, net.input_dim, 1, leaf_bits(ctx.sizes, box_bits(item[3],
                                                                                                       item[4])))
                             for _, item in tasks) > MAX_LEAF_OPERATIONS:
            limit = "leaf operations"
        if limit is not None:
            for o, item in tasks:
                heapq.heappush(trees[o].heap, item)
            break
        left = clock.remaining()
        deadline = None if left is None else time.time() + left - reserve
        round_start = time.monotonic()
        best = [t.best[0] if t.best is not None else None for t in trees]
        items = [(deadline, o, item[3], item[4], item[5], best, floors, trees[o].best[1]) for o, item in tasks]
        results = [r for part in map_ordered(_expand_chunk, chunked(items, executor), executor, shared=(ctx,))
                   for r in part]
        last_round = time.monotonic() - round_start
        wall += last_round
        busy += sum(r[2] for r in results if r is not None and r[0] != "beyond")
        if any(r is None for r in results):  # the time ran out inside the round: its leaves stay
            for o, item in tasks:
                heapq.heappush(trees[o].heap, item)
            limit = "time"
            break
        beyond = next((r[1] for r in results if r[0] == "beyond"), None)
        stats["rounds"] += 1
        for (o, item), res in zip(tasks, results):
            tree = trees[o]
            _, _, path, plo, phi, splits = item
            if res[0] == "beyond":
                heapq.heappush(tree.heap, item)
                continue
            how, parts, seconds = res
            stats["exact_seconds"] += seconds
            tree.entries[path] = how
            leaf_work += leaf_operations(weights, net.input_dim, 1, leaf_bits(ctx.sizes, box_bits(plo, phi)))
            stats["relu_splits" if how[0] == "relu" else "input_splits"] += 1
            for side, (least, facts, found, relaxed) in enumerate(parts):
                clo, chi, csplits = part_of(how, side, plo, phi, splits)
                tree.add_leaf(path + (side,), clo, chi, csplits, least, facts, found, seq)
                seq += 1
                stats["relaxed"] += relaxed
            stats["nodes"] += 2
            stats["leaves"] += 1
        if beyond is not None:
            limit = beyond
        if progress is not None:
            progress(_progress_stats(trees, objectives, stats, start))
    stats["seconds"] = round(time.monotonic() - start, 3)
    return _outcome(objectives, trees, stats, limit)


def _outcome(objectives, trees, stats, limit) -> BoundsSearch:
    """The :class:`BoundsSearch` of the trees as they stand."""
    stats = dict(stats, exact_seconds=round(stats["exact_seconds"], 3))
    out = []
    for obj, tree in zip(objectives, trees):
        least = tree.heap[0][0]
        attained = tree.attained()
        value = tree.best[0] if tree.best is not None else None
        bound = value if attained else rounded_down(least)
        sign = obj.sign
        out.append(ObjectiveBound(obj.output, obj.side, sign * bound, None if value is None else sign * value,
                                  None if tree.best is None else tuple(tree.best[1]), attained, tree.preorder(),
                                  sum(1 for e in tree.entries.values() if e[0] == "leaf"), len(tree.entries)))
    if limit is None and not all(b.attained for b in out):  # pragma: no cover - the loop ends only so
        raise InternalError("the search ended with a bound not attained and no limit")
    return BoundsSearch(out, stats, limit)


#: significant digits of a bound that is not attained, rounded outward (:func:`rounded_down`)
BOUND_DIGITS = 20


def rounded_down(q, digits: int = BOUND_DIGITS):
    """``q`` rounded down to ``digits`` significant decimal digits, when that is shorter: a
    certified bound that is not attained, outward, so that the leaves' bounds still justify it
    (the leaves' own bounds, exact rationals over the products of the layers' denominators,
    run to a hundred digits on ACAS Xu). Loses at most ``|q| 10^(1 - digits)``.

    >>> str(rounded_down(Q(200001, 300007), 5)), str(rounded_down(Q(-200001, 300007), 5))
    ('13333/20000', '-33333/50000')
    >>> str(rounded_down(Q(2, 3), 5))          # already short: kept
    '2/3'
    """
    num, den = int(q.numerator), int(q.denominator)
    if num == 0 or len(str(abs(num))) + len(str(den)) <= digits:
        return q
    e = math.floor((abs(num).bit_length() - den.bit_length()) * math.log10(2))  # about log10 |q|
    s = digits - 1 - e
    scaled = (num * 10 ** s) // den if s >= 0 else num // (den * 10 ** -s)
    out = Q(scaled, 10 ** s) if s >= 0 else Q(scaled * 10 ** -s)
    return out if len(str(out)) < len(str(q)) else q


def _progress_stats(trees, objectives, stats, start) -> dict:
    """The figures of a round: nodes, leaves, bounds attained, the widest gap between a
    certified bound and the best point (floats, for reading), seconds."""
    gaps = [_fl(t.best[0] - t.heap[0][0]) for t in trees if t.best is not None and not t.attained()]
    return {"nodes": stats["nodes"], "leaves": stats["leaves"], "rounds": stats["rounds"],
            "attained": sum(t.attained() for t in trees), "bounds": len(objectives),
            "gap": max(gaps) if gaps else 0.0, "seconds": time.monotonic() - start}


# -- the certificate -------------------------------------------------------------------------------
def box_object(lo, hi) -> dict:
    """The box ``[lo, hi]`` as a certificate embeds it (a box file's object, docs/format.md)."""
    return {"symrel": 1, "kind": "box", "bounds": [[format_rational(a), format_rational(b)] for a, b in zip(lo, hi)]}


def certificate(net, lo, hi, found: BoundsSearch, *, network_file=None, region_file=None) -> dict:
    """The ``output-bounds`` certificate of ``found`` (docs/format.md): the network and the box
    as inputs, per output its bounds in the claim and two steps, its lower and upper trees.
    ``network_file``, ``region_file``: ``{"name", "sha256"}`` of the files read, recorded in
    the claim (they change nothing in what is proved)."""
    from ..certificates.core import PROVED, Step
    from ..checking import stated
    from ..fileformat import sha256_of
    from ..fileformat.models_io import write_relu

    obj = write_relu(net)
    box = box_object(lo, hi)
    entries, steps = [], []
    by_output: dict = {}
    for b in found.objectives:
        by_output.setdefault(b.output, {})[b.side] = b
    for j in sorted(by_output):
        lower, upper = by_output[j]["lower"], by_output[j]["upper"]
        entry = {"output": j, "lower": format_rational(lower.bound), "upper": format_rational(upper.bound)}
        attained = [b.side for b in (lower, upper) if b.attained]
        if attained:
            entry["attained"] = attained
        entries.append(entry)
        for b in (lower, upper):
            data = {"output": j, "side": b.side, "bound": format_rational(b.bound), "tree": b.tree}
            if b.attained:
                data["attained"] = [format_rational(v) for v in b.point]
            lemma = f"Y_{j} is {'at least' if b.side == 'lower' else 'at most'} {format_rational(b.bound)} on the box"
            steps.append(Step(lemma, "output-bound-branch-and-bound", data, PROVED).to_json())
    sha = sha256_of(obj)
    claim = {"kind": CLAIM_KIND, "network_sha256": sha, "bounds": entries}
    if network_file:
        claim["network_file"] = dict(network_file)
    if region_file:
        claim["region_file"] = dict(region_file)
    return stated({"symrel": 1, "kind": "certificate", "claim": claim,
                   "inputs": {"network": {"object": obj, "sha256": sha},
                              "region": {"object": box, "sha256": sha256_of(box)}},
                   "steps": steps})
