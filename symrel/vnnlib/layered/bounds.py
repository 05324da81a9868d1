"""Exact bounds of a layered net on one node of the search: the facts a leaf rests on.

Definition. A node is a box ``B = [lo, hi]`` of the inputs and its splits: ReLU splits
(``sides[k] = {entry: 1 or 0}``: the part where entry ``i`` of the vector ReLU op ``k``
reads is ``>= 0`` or ``<= 0``) and max splits (``winners[k] = {group: position}``: the
part where that piece is the largest of its group). :func:`leaf_bounds` computes, op by op:

1. the bounds of the vector each op reads: the box, then each affine op's exact interval
   image (:func:`~symrel.vnnlib.layered.ops.affine.interval`), each ReLU's ``[max(lo, 0), max(hi, 0)]``, each
   max's group bounds (:mod:`~symrel.vnnlib.layered.ops.max_groups`);
2. for a nonlinear op ``k`` and the entries ``refine[k]``: the bounds by backward
   substitution through the ops below (:func:`lower_bound` of the entry and of its negative,
   with the states below), rounded outward to ``2^-24``, intersected with those of step 1;
3. the splits' clip and the states (:func:`~symrel.vnnlib.layered.ops.relu.transfer`,
   :func:`~symrel.vnnlib.layered.ops.max_groups.transfer`); an entry whose range is then empty (``lo > hi``)
   shows that the node's part holds no point: :attr:`LeafBounds.empty` names it and the
   computation stops.

:func:`lower_bound` then bounds ``ay . y + ax . x`` from below on the node's part by
substituting backwards from the outputs (:func:`~symrel.vnnlib.layered.ops.affine.backward` and the states'
lines; a close's own ``alphas``, ``pieces``, ``betas`` and ``lambdas``) and minimising over
the box. Everything is exact: integers over common denominators, rationals at the end. This
is the computation the trusted checker repeats (:mod:`symrel.checking.vnnlib_layered`,
docs/format.md).

Cost: one exact pass over the net (its stored entries) for step 1, two backward passes per
refined entry, one backward pass per bound.

>>> from symrel.models.layered import LayeredNet, Relu, SparseAffine
>>> from symrel.vnnlib.layered.network import prepare
>>> net = prepare(LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]]), Relu(2), SparseAffine([[(0, 1), (1, 1)]])]))
>>> lb = leaf_bounds(net, [-1], [2], {}, {})                 # |x| on [-1, 2]
>>> str(lower_bound(net, lb, [1], [0]))                      # the chords' bound
'-1'
>>> lb = leaf_bounds(net, [-1], [2], {1: {0: 1, 1: 0}}, {})  # the part x >= 0 (z0 >= 0, z1 <= 0)
>>> str(lower_bound(net, lb, [1], [0])), str(lower_bound(net, lb, [1], [0], betas={1: [(0, 1, Q(1))]}))
('-1', '0')
"""

from __future__ import annotations

from dataclasses import dataclass
from math import lcm

from ...exact import Q
from .ops import affine as _affine
from .ops import max_groups as _max
from .ops import relu as _relu
from .ops.relu import K2


@dataclass(frozen=True)
class Box:
    """The box as integers over one denominator: ``lo[i] = plo[i] / den``."""

    plo: tuple
    phi: tuple
    den: int


def scaled_box(lo, hi) -> Box:
    """The box ``[lo, hi]`` (exact rationals) over the lcm of its denominators."""
    d = 1
    for v in list(lo) + list(hi):
        d = lcm(d, int(v.denominator))
    return Box(tuple(int(v.numerator) * (d // int(v.denominator)) for v in lo),
               tuple(int(v.numerator) * (d // int(v.denominator)) for v in hi), d)


@dataclass
class LeafBounds:
    """What :func:`leaf_bounds` found: ``states[k]`` of each nonlinear op (None for an
    affine one), ``pre[k] = (lo, hi, den)`` the bounds of the vector op ``k`` reads (of a
    nonlinear op after refinement, before the clip; None after the last nonlinear op), and
    ``empty``: ``(k, "entry" or "group", i)`` or None."""

    box: Box
    states: list
    pre: list
    empty: tuple | None = None


def _round_out(lo, hi, den, lb, ub):
    """``lo``, ``hi`` (over ``den``) intersected with ``[floor(2^24 lb), ceil(2^24 ub)] / 2^24``,
    over a common denominator: ``(lo, hi, den)``."""
    f = K2 // _gcd(den, K2)
    if f > 1:
        lo, hi, den = [v * f for v in lo], [v * f for v in hi], den * f
    g = den // K2
    for i, (a, b) in lb.items():
        lo[i] = max(lo[i], ((a * K2) // b) * g)
    for i, (a, b) in ub.items():
        hi[i] = min(hi[i], -((-a * K2) // b) * g)
    return lo, hi, den


def _gcd(a, b):
    from math import gcd

    return gcd(a, b)


def _box_min(mu, M: int, box: Box):
    """``(n, d)``: ``min_B (mu / M) . x = n / d``."""
    total = 0
    for v, a, b in zip(mu, box.plo, box.phi):
        if v:
            total += v * (a if v > 0 else b)
    return total, M * box.den


def _substitute(net, lb: LeafBounds, top: int, mu, M: int, alphas=None, pieces=None, betas=None, lambdas=None,
                used=None, hulls=None):
    """Substitute ``mu`` (integers over ``M``, coefficients of the vector op ``top`` reads)
    down through ops ``top - 1, ..., 0``: ``(nu, M', const)`` with ``mu . v >= nu . x + const``
    on the node's part. ``hulls``: ``{relu op: {entry: (a, c)}}``, lines over the box of the
    vector the affine op below it reads (:func:`~symrel.vnnlib.layered.ops.relu.line_above`)."""
    const = Q(0)
    bypass = None   # the redirected coefficients' lines, put on the vector op k - 1 reads
    for k in range(top - 1, -1, -1):
        kind, op = net.ops[k]
        if kind == "affine":
            mu, M2, c, C = _affine.backward(op, mu, M)
            if bypass:
                mu, M2 = _add_rational(mu, M2, bypass)
                bypass = None
        elif kind == "relu":
            mine = None if hulls is None else hulls.get(k)
            redirected = [] if mine else None
            mu, M2, c, C = _relu.backward(lb.states[k], mu, M, None if alphas is None else alphas.get(k),
                                          () if betas is None else betas.get(k, ()),
                                          None if used is None else used.setdefault(k, set()), mine, redirected,
                                          None if used is None else used.setdefault((k, "hull"), set()))
            if redirected:
                rows = net.ops[k - 1][1].rows
                bypass = {}
                for i, v in redirected:
                    a, cc = mine[i]
                    w = Q(v, M)
                    const += w * cc
                    for (j, _), aj in zip(rows[i], a):
                        bypass[j] = bypass.get(j, 0) + w * aj
        else:
            mu, M2, c, C = _max.backward(op, lb.states[k], mu, M, net.widths[k],
                                         None if pieces is None else pieces.get(k),
                                         () if lambdas is None else lambdas.get(k, ()),
                                         None if used is None else used.setdefault(k, set()))
        if c:
            const += Q(c, C)
        M = M2
    return mu, M, const


#: the interval bounds up to the first nonlinear op of the last few boxes: they depend on the box
#: alone, and the parts of a ReLU or max split share their box (a 2 x 2 convolution's 23,328
#: rows cost some 30 ms a box)
_PREFIX: dict = {}


def _prefix(net, box: Box):
    """``(k, pre)``: the index of the first nonlinear op and the bounds ``(lo, hi, den)`` of the
    vectors ops ``0, ..., k`` read."""
    key = (id(net), box)
    got = _PREFIX.get(key)
    if got is not None and got[0] is net:
        return got[1]
    pre = [(list(box.plo), list(box.phi), box.den)]
    k = 0
    while k < len(net.ops) and net.ops[k][0] == "affine":
        pre.append(_affine.interval(net.ops[k][1], *pre[-1]))
        k += 1
    if len(_PREFIX) >= 16:
        del _PREFIX[next(iter(_PREFIX))]
    _PREFIX[key] = (net, (k, pre))
    return k, pre


def _add_rational(mu, M: int, extra: dict):
    """``mu / M`` plus the exact rationals ``extra[j]`` at entries ``j``, over a common
    denominator: ``(mu', M')``."""
    s = 1
    for q in extra.values():
        d = int(Q(q).denominator)
        s = lcm(s, d // _gcd(d, M))
    mu = [v * s for v in mu] if s > 1 else list(mu)
    M *= s
    for j, q in extra.items():
        q = Q(q)
        mu[j] += int(q.numerator) * (M // int(q.denominator))
    return mu, M


def leaf_bounds(net, lo, hi, sides, winners, refine=None) -> LeafBounds:
    """The states of every nonlinear op on the node (module docstring); ``lo``, ``hi``: the
    box (exact rationals); ``sides``, ``winners``: the splits; ``refine``: ``{k: entries}``."""
    box = scaled_box(lo, hi) if not isinstance(lo, Box) else lo
    out = LeafBounds(box, [None] * len(net.ops), [None] * len(net.ops))
    first, pre = _prefix(net, box)
    out.pre[:first] = pre[:first]
    vlo, vhi, den = pre[first]
    last = max((k for k, (kind, _) in enumerate(net.ops) if kind != "affine"), default=-1)
    for k, (kind, op) in enumerate(net.ops):
        if k < first:
            continue
        if k > last:   # the affine ops after the last nonlinear one: no state, no bound needed
            break
        if kind == "affine":
            out.pre[k] = (vlo, vhi, den)
            vlo, vhi, den = _affine.interval(op, vlo, vhi, den)
            continue
        if refine and refine.get(k):
            lbs, ubs = {}, {}
            for i in refine[k]:
                for sign, store in ((1, lbs), (-1, ubs)):
                    mu = [0] * net.widths[k]
                    mu[i] = sign
                    nu, M, const = _substitute(net, out, k, mu, 1)
                    n, d = _box_min(nu, M, box)
                    v = Q(n, d) + const
                    if sign < 0:
                        v = -v
                    store[i] = (int(v.numerator), int(v.denominator))
            vlo, vhi, den = _round_out(list(vlo), list(vhi), den, lbs, ubs)
        out.pre[k] = (vlo, vhi, den)
        bad = next((i for i, (a, b) in enumerate(zip(vlo, vhi)) if a > b), None)
        if bad is not None:
            out.empty = (k, "entry", bad)
            return out
        if kind == "relu":
            vlo, vhi, den, states, empty = _relu.transfer(vlo, vhi, den, sides.get(k, {}))
            if empty is not None:
                out.empty = (k, "entry", empty)
                return out
        else:
            vlo, vhi, den, states, empty = _max.transfer(op, vlo, vhi, den, winners.get(k, {}))
            if empty is not None:
                out.empty = (k, "group", empty)
                return out
        out.states[k] = states
    return out


def lower_bound(net, lb: LeafBounds, ay, ax, *, alphas=None, pieces=None, betas=None, lambdas=None, used=None,
                hulls=None):
    """The exact lower bound of ``ay . y + ax . x`` on the node's part (module docstring).
    ``alphas``: ``{relu op: {entry: a}}`` (slopes ``a / 2^16``); ``pieces``: ``{max op:
    {group: position}}``; ``betas``: ``{relu op: [(entry, side, beta)]}``; ``lambdas``:
    ``{max op: [(group, winner, [lambda per position])]}`` (exact rationals); ``used``: a dict
    that receives, per op ``k``, the entries and groups whose own slope or piece was applied
    (and at ``(k, "hull")`` the entries whose line was);
    ``hulls``: ``{relu op: {entry: (a, c)}}``, lines over the box of the vector the affine op
    below reads, for entries with a coefficient ``< 0`` (valid lines: :func:`hull_lines_valid`)."""
    M = 1
    for c in ay:
        M = lcm(M, int(Q(c).denominator))
    mu = [int(Q(c).numerator) * (M // int(Q(c).denominator)) for c in ay]
    nu, M, const = _substitute(net, lb, len(net.ops), mu, M, alphas, pieces, betas, lambdas, used, hulls)
    if any(ax):
        A = 1
        for c in ax:
            A = lcm(A, int(Q(c).denominator))
        nu = [v * A + int(Q(c).numerator) * (A // int(Q(c).denominator)) * M for v, c in zip(nu, ax)]
        M *= A
    n, d = _box_min(nu, M, lb.box)
    return Q(n, d) + const


def hull_lines_valid(net, lb: LeafBounds, hulls) -> dict:
    """The lines of ``hulls`` (``{relu op: {entry: (a, c)}}``) that lie above their ReLU on the
    box of the vector the affine op below reads (:func:`~symrel.vnnlib.layered.ops.relu.line_above`), for unstable
    entries of rows of at most :data:`~symrel.vnnlib.layered.ops.relu.HULL_ENTRIES` entries: the same dict without
    the others."""
    out = {}
    for k, lines in hulls.items():
        if k == 0 or net.ops[k][0] != "relu" or net.ops[k - 1][0] != "affine" or lb.states[k] is None:
            continue
        op = net.ops[k - 1][1]
        lo, hi, den = lb.pre[k - 1]
        for i, (a, c) in lines.items():
            row = op.rows[i]
            if lb.states[k][i] in (_relu.ACTIVE, _relu.INACTIVE) or len(row) > _relu.HULL_ENTRIES \
                    or len(a) != len(row):
                continue
            if _relu.line_above(row, op.b[i], op.D, lo, hi, den, a, c):
                out.setdefault(k, {})[i] = (a, c)
    return out
