"""The inputs a cross-validation runs on: random points of the domain, points
next to region boundaries and output ties, grid points (where hardmax ties
live) and extreme magnitudes; all rounded to floats of the dtype under test so
that the float and the exact evaluation see the very same input.

Boundary points come from an exact walk along segments: on a line
``x(t) = a + t (b - a)`` a ReLU or maxout net is piecewise linear in t, every
pre-activation is an affine function of t on the current piece, so the next
breakpoint (a ReLU changing sign, a maxout piece overtaking the winner) and the
points where two outputs tie are exact roots of affine functions.

>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(1, [DenseLayer([[2], [2]], [0, -1]), DenseLayer([[1, -2]], [0], "none")])
>>> [str(p[0]) for p in segment_breakpoints(net, [Q(-1)], [Q(1)]).boundaries]
['0', '1/2']
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..errors import InputError
from ..exact import Public, Q, Rational, flat, from_rationals, rows
from ..models import Box
from ..interop.floats import FloatFormat, nextafter, round_to_format
from ..interop.float_program import GroupMax, float_program
from ..lowering import Affine, Relu


@dataclass
class SegmentPoints:
    """Exact points on a segment where the net's linear piece changes
    (``boundaries``) and where two outputs are equal (``ties``)."""

    boundaries: list[list[Rational]] = field(default_factory=list)
    ties: list[list[Rational]] = field(default_factory=list)


def _affine_in_t(op, s, o):
    W, b = op.W, op.b
    S = W * from_rationals([[v] for v in s], (len(s), 1))
    O = W * from_rationals([[v] for v in o], (len(o), 1)) + b
    return flat(S), flat(O)


def _after(t, s, o):
    """Sort key of the affine function ``o + s t`` just right of t."""
    return (o + s * t, s)


def segment_breakpoints(model, a, b, *, limit: int = 1000) -> SegmentPoints:
    """The exact breakpoints and output ties of a relu/maxout/cpwl1d net on the
    segment from ``a`` to ``b`` (at most ``limit`` of each). Cost per linear
    piece: one pass through the net with two vectors."""
    program = float_program(model)
    if program.kind not in ("relu", "maxout"):
        raise InputError("segment walks need a relu, maxout or cpwl1d model", path="kind")
    a = list(a)
    d = [bi - ai for ai, bi in zip(a, b)]
    out = SegmentPoints()
    t = Q(0)
    while t < 1 and len(out.boundaries) < limit:
        s, o = d, a
        nxt = Q(1)
        for st in program.stages:
            for op in st.ops:
                if isinstance(op, Affine):
                    s, o = _affine_in_t(op, s, o)
                elif isinstance(op, Relu):
                    for si, oi in zip(s, o):
                        if si and t < -oi / si < nxt:
                            nxt = -oi / si
                    keep = [_after(t, si, oi) > (0, 0) for si, oi in zip(s, o)]
                    s = [si if k else Q(0) for si, k in zip(s, keep)]
                    o = [oi if k else Q(0) for oi, k in zip(o, keep)]
                elif isinstance(op, GroupMax):
                    s2, o2 = [], []
                    for g in range(0, len(s), op.rank):
                        grp = list(zip(s[g:g + op.rank], o[g:g + op.rank]))
                        ws, wo = max(grp, key=lambda p: _after(t, *p))
                        for sj, oj in grp:
                            if sj > ws and t < (wo - oj) / (sj - ws) < nxt:
                                nxt = (wo - oj) / (sj - ws)
                        s2.append(ws)
                        o2.append(wo)
                    s, o = s2, o2
        # output ties inside this piece: o_i + s_i t = o_j + s_j t
        for i in range(len(s)):
            for j in range(i + 1, len(s)):
                if s[i] != s[j]:
                    r = (o[j] - o[i]) / (s[i] - s[j])
                    if t <= r <= nxt and len(out.ties) < limit:
                        out.ties.append([ai + r * di for ai, di in zip(a, d)])
        if nxt < 1:
            out.boundaries.append([ai + nxt * di for ai, di in zip(a, d)])
        t = nxt
    return out


def random_points(box: Box, n: int, rng: random.Random, fmt: FloatFormat) -> list[list[Rational]]:
    """``n`` points uniform in the box, as floats of ``fmt`` (exact values)."""
    pts = []
    for _ in range(n):
        x = []
        for lo, hi in box.exact_bounds:
            u = Q(rng.getrandbits(53), 2**53)
            x.append(_clip(round_to_format(lo + (hi - lo) * u, fmt), lo, hi, fmt))
        pts.append(x)
    return pts


def _clip(v, lo, hi, fmt):
    """A float of fmt in [lo, hi] (nudged inwards when rounding left the box)."""
    if v is None:
        v = hi
    while v > hi:
        v = nextafter(v, fmt, -1)
    while v < lo:
        v = nextafter(v, fmt, 1)
    return v


def to_format(points, box: Box, fmt: FloatFormat) -> list[list[Rational]]:
    """Exact points rounded to ``fmt`` and kept inside the box."""
    return [[_clip(round_to_format(v, fmt), lo, hi, fmt) for v, (lo, hi) in zip(x, box.exact_bounds)] for x in points]


def grid_points(box: Box, n: int, rng: random.Random) -> list[list[Rational]]:
    """Points whose coordinates are ends, midpoints or quarter points of the
    box's intervals: exactly where hardmax ties and maxout ties tend to be."""
    pts = []
    for _ in range(n):
        pts.append([lo + (hi - lo) * Q(rng.randint(0, 4), 4) for lo, hi in box.exact_bounds])
    return pts


def extreme_points(box: Box, n: int, rng: random.Random, fmt: FloatFormat) -> list[list[Rational]]:
    """Points mixing the box's ends with the tiniest floats of ``fmt`` (subnormal,
    smallest normal) and zero, where they lie in the box."""
    pts = []
    for _ in range(n):
        x = []
        for lo, hi in box.exact_bounds:
            cands = [lo, hi] + [v for v in (Q(0), fmt.min_subnormal, -fmt.min_subnormal, fmt.min_normal, -fmt.min_normal)
                                if lo <= v <= hi]
            x.append(rng.choice(cands))
        pts.append(x)
    return pts


@dataclass
class PointSet:
    """The inputs of a cross-validation: exact float values (read as sympy Rationals) and
    where they came from."""

    points: list[list[Rational]] = Public()
    sources: list[str]

    def counts(self) -> dict:
        out: dict = {}
        for s in self.sources:
            out[s] = out.get(s, 0) + 1
        return out


def make_points(model, box: Box, n: int, fmt: FloatFormat, *, seed: int = 0, special: bool = True,
                segments: int = 4, per_kind: int = 50) -> PointSet:
    """``n`` random points plus (``special``) boundary, tie, grid and extreme
    points, all floats of ``fmt`` inside ``box``; duplicates removed."""
    if box.dim != model.input_dim:
        raise InputError(f"expected a domain of dimension {model.input_dim}, got {box.dim}", path="domain")
    for i, (lo, hi) in enumerate(box.exact_bounds):   # the points are floats of fmt inside the box
        for j, end in enumerate((lo, hi)):
            if abs(end) > fmt.max_finite:
                raise InputError(f"expected a domain within the finite range of {fmt.name} (|bound| <= "
                                 f"{float(fmt.max_finite):.8g}), got a bound beyond it", path=f"domain.bounds[{i}][{j}]")
    rng = random.Random(seed)
    pts, srcs = [], []

    def add(points, source):
        for p in points:
            pts.append(p)
            srcs.append(source)

    add(random_points(box, n, rng, fmt), "random")
    if special:
        if getattr(model, "kind", None) in ("relu", "maxout", "cpwl1d"):
            for _ in range(segments):
                a, b = random_points(box, 2, rng, fmt)
                walk = segment_breakpoints(model, a, b, limit=per_kind)
                add(to_format(walk.boundaries[:per_kind], box, fmt), "near boundary")
                add(to_format(walk.ties[:per_kind], box, fmt), "near output tie")
        add(to_format(grid_points(box, per_kind, rng), box, fmt), "grid")
        add(to_format(extreme_points(box, per_kind, rng, fmt), box, fmt), "extreme")
    seen, P, S = set(), [], []
    for p, s in zip(pts, srcs):
        key = tuple(p)
        if key not in seen:
            seen.add(key)
            P.append(p)
            S.append(s)
    return PointSet(P, S)
