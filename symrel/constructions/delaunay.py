"""Scattered points in the plane and their values as a CPWL function: the exact Delaunay
triangulation (Bowyer-Watson), or a triangulation the caller gives.

Bowyer-Watson: start from a triangle far around the points; insert the points one by one;
the triangles whose circumcircle holds the new point strictly inside form a cavity,
star-shaped from the point, which is re-triangulated as the fan from the point to the
cavity's boundary edges. At the end the triangles touching the far triangle's corners
are removed. Every predicate is an exact sign: the orientation ``det[b - a, c - a]`` and
the in-circle determinant. The far corners are placed 10^6 times the points' extent away,
so the hull edges survive for points whose distance from the hull is not tiny against
that; the result is checked as a conforming mesh, and a support that came out non-convex
(a hull edge lost) is refused with an error.

>>> f = delaunay_mesh([[0, 0], [1, 0], [0, 1], [1, 1], ["1/2", "1/3"]], [[0], [0], [0], [0], [1]])
>>> len(f.simplices), f.support_is_convex(), [str(v) for v in f(["1/2", "1/3"])]
(4, True, ['1'])

Cost: O(n^2) exact predicates in the worst case (a linear scan for the cavity per point).
"""

from __future__ import annotations

from typing import Sequence

from ..errors import InputError
from ..exact import rational
from ..models.cpwl_mesh import CPWLMesh


def _orient(a, b, c):
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _in_circle(a, b, c, p) -> bool:
    """Whether p lies strictly inside the circumcircle of the counter-clockwise triangle abc."""
    rows = [(q[0] - p[0], q[1] - p[1]) for q in (a, b, c)]
    m = [(x, y, x * x + y * y) for x, y in rows]
    det = (m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
           - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
           + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]))
    return det > 0


def delaunay_triangles(points: Sequence[Sequence]) -> list[tuple[int, int, int]]:
    """The Delaunay triangles (counter-clockwise index triples) of distinct points of Q^2."""
    pts = [tuple(rational(v, path=f"points[{i}][{k}]") for k, v in enumerate(p)) for i, p in enumerate(points)]
    if len(pts) < 3 or any(len(p) != 2 for p in pts):
        raise InputError("expected at least 3 points of the plane", path="points")
    if len(set(pts)) != len(pts):
        raise InputError("two points coincide", path="points")
    lo = [min(p[k] for p in pts) for k in range(2)]
    hi = [max(p[k] for p in pts) for k in range(2)]
    span = max(hi[0] - lo[0], hi[1] - lo[1]) * 10**6
    cx, cy = (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2
    n = len(pts)
    allp = pts + [(cx - 2 * span, cy - span), (cx + 2 * span, cy - span), (cx, cy + 2 * span)]
    tris = {(n, n + 1, n + 2)}
    for i in range(n):
        p = allp[i]
        bad = [t for t in tris if _in_circle(allp[t[0]], allp[t[1]], allp[t[2]], p)]
        edges: dict[tuple, int] = {}
        for a, b, c in bad:
            for e in ((a, b), (b, c), (c, a)):
                key = tuple(sorted(e))
                edges[key] = edges.get(key, 0) + 1
        boundary = [e for t in bad for e in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0])) if edges[tuple(sorted(e))] == 1]
        tris.difference_update(bad)
        for a, b in boundary:
            if _orient(allp[a], allp[b], p) == 0:
                raise InputError(f"point {i} lies on the line of a cavity edge; the points are too degenerate for "
                                 "this construction: give a triangulation", path=f"points[{i}]")
            tris.add((a, b, i))
    return sorted(t for t in tris if max(t) < n)


def delaunay_mesh(points, values, simplices=None) -> CPWLMesh:
    """The CPWL function with ``values[i]`` at ``points[i]`` on the exact Delaunay
    triangulation of the points (or on ``simplices`` when given, any conforming
    triangulation of them, in any dimension)."""
    if simplices is None:
        simplices = delaunay_triangles(points)
        f = CPWLMesh(points, simplices, values)
        if not f.support_is_convex():
            raise InputError("the Delaunay construction lost a hull edge (points very close to the hull); "
                             "give a triangulation", path="points")
        return f
    return CPWLMesh(points, simplices, values)


