"""Exact convex polygons (and intervals) for cells of 1-D and 2-D inputs.

A cell of a 2-D input is a convex polygon, kept as its list of vertices with
rational coordinates; of a 1-D input, an interval, kept as its two end points
(a "polygon" with vertices ``(lo,)`` and ``(hi,)``). Clipping by a halfplane
``f <= 0`` is exact (Sutherland-Hodgman with rational intersection points).
An affine form takes its minimum over a polytope at a vertex, so whether
``{f < 0}`` meets the *open* cell is read off the vertices; a cell is full
dimensional iff its polygon has positive area (interval: positive length), and
then the average of its vertices is an interior point.

>>> from symrel.exact import rational as r
>>> sq = box_polygon([(r(0), r(1)), (r(0), r(1))])
>>> from symrel.exact.forms import AffineForm
>>> half = clip(sq, AffineForm(r(-1), {0: r(1), 1: r(1)}))          # x + y <= 1
>>> area2(half), [str(v) for v in interior_point(half)]
(Fraction(1, 1), ['1/3', '1/3'])
"""

from __future__ import annotations

from fractions import Fraction

from ..exact import Q, ceil, floor, to_float, to_fraction


def box_polygon(bounds):
    """The box as a polygon (2-D, counter-clockwise) or an interval (1-D)."""
    if len(bounds) == 1:
        (lo, hi), = bounds
        return [(lo,), (hi,)]
    (x0, x1), (y0, y1) = bounds
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def clip(poly, f):
    """The part of the polygon (or interval) where ``f <= 0``, exactly."""
    if not poly:
        return []
    if len(poly[0]) == 1:
        lo, hi = poly[0][0], poly[-1][0]
        a, c = f.coefficient(0), f.const
        if a > 0:
            hi = min(hi, -c / a)
        elif a < 0:
            lo = max(lo, -c / a)
        elif c > 0:
            return []
        return [(lo,), (hi,)] if lo <= hi else []
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp, fq = f.value_at(p), f.value_at(q)
        if fp <= 0:
            if not out or out[-1] != p:
                out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            pt = (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))
            if not out or out[-1] != pt:
                out.append(pt)
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out


def area2(poly) -> Fraction:
    """Twice the area (2-D) or the length (1-D), exactly, as a Fraction."""
    if len(poly) < 2:
        return Fraction(0)
    if len(poly[0]) == 1:
        return to_fraction(poly[-1][0] - poly[0][0])
    s = Q(0)
    n = len(poly)
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        s += x0 * y1 - x1 * y0
    return abs(to_fraction(s))


def interior_point(poly):
    """The average of the vertices: an interior point of a full-dimensional cell."""
    k = len(poly)
    return [sum((p[i] for p in poly), Q(0)) / k for i in range(len(poly[0]))]


def meets_open(poly, f) -> bool:
    """Whether ``f < 0`` somewhere in the interior of the full-dimensional polygon."""
    return any(f.value_at(p) < 0 for p in poly)


def bounding_box(poly, bits: int = 32):
    """``[(lo, hi)]`` containing every vertex, rounded outwards to multiples of
    ``2^-bits`` (a slightly larger box with short numbers: bounds over it stay valid
    and cost little)."""
    den = 1 << bits
    out = []
    for i in range(len(poly[0])):
        lo, hi = min(p[i] for p in poly), max(p[i] for p in poly)
        out.append((Q(floor(lo * den), den), Q(ceil(hi * den), den)))
    return out


def _strictly_inside(poly, pt) -> bool:
    if len(poly[0]) == 1:
        return poly[0][0] < pt[0] < poly[-1][0]
    n = len(poly)
    sign = 0
    for i in range(n):
        (x0, y0), (x1, y1) = poly[i], poly[(i + 1) % n]
        if (x0, y0) == (x1, y1):
            continue
        c = (x1 - x0) * (pt[1] - y0) - (y1 - y0) * (pt[0] - x0)
        if c == 0 or (sign and (c > 0) != (sign > 0)):
            return False
        sign = 1 if c > 0 else -1
    return True


def simple_interior_point(poly):
    """An interior point with small denominators when one is found near the float
    centroid (checked exactly), else the average of the vertices. Small witnesses
    keep every later exact evaluation cheap."""
    k = len(poly)
    centre = [sum(to_float(p[i]) for p in poly) / k for i in range(len(poly[0]))]
    for bits in (8, 16, 32, 52):
        den = 1 << bits
        pt = [Q(round(c * den), den) for c in centre]
        if _strictly_inside(poly, pt):
            return pt
    return interior_point(poly)
