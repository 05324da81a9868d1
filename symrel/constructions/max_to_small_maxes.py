"""A maximum of many affine functions as a signed sum of maxima of at most n + 1 of them.

Let ``l_i(x) = a_i . x + c_i`` (i = 1 .. m) be affine on R^n, and let T be a triangulation
of the slope points ``a_i`` (vertices among them) that is *upper-regular*: for every
simplex s of T, the affine function ``A_s`` on slope space interpolating the heights
``c_i`` at the vertices of s satisfies ``A_s(a_j) >= c_j`` for every j (T is the
projection of the upper convex hull of the lifted points ``(a_i, c_i)``, refined). Then

    max_i l_i(x) = sum over the interior faces F of T of (-1)^(k - dim F) max_(i in F) l_i(x)

on all of R^n, where k is the affine dimension of the slope points (a face is interior
when it lies in no boundary facet of T). Why: fix x; the heights ``h_i = l_i(x)`` differ
from ``c_i`` by a linear function of ``a_i``, so T is upper-regular for them too, and the
function H that interpolates them on T is concave with maximum ``M = max_i h_i``. Each
face F has ``max_F h = max_F H``. Count, for a threshold t, the interior faces with
``max_F H >= t``, with signs: for ``t > M`` none; for ``t <= M`` the faces with
``max_F H < t`` lie in the open set ``conv \\ {H >= t}``, a convex body minus a non-empty
convex set, which retracts radially onto its boundary part; so their signed count is 0,
and all interior faces together count 1 (the Euler characteristic of a k-ball with
compact support, times ``(-1)^k``). Integrating over t gives the identity. A slope point
that is not a vertex of T lies in some simplex s with ``c_j <= A_s(a_j)``, so its
function is below the maximum of that simplex's: leaving it out changes nothing.

Each face has at most k + 1 <= n + 1 vertices, so this is the step of Wang and Sun's
theorem (every CPWL function on R^n is a linear combination of maxima of n + 1 affine
functions) that takes a large maximum apart. T is built by Bowyer-Watson on the lifted
points (upper hull), starting from a simplex whose corners lie at height minus infinity
(symbolic: heights are pairs ``(multiple of -infinity, value)`` compared
lexicographically); a lifted point on or below the current hull is left out (it is a
convex combination of others with heights at least its own). The result is then
*checked* (:func:`check_upper_triangulation`): every simplex non-degenerate and
upper-regular against every point, every facet shared by two simplices on opposite
sides or lying on a hull facet, and one point of the first simplex covered once.

>>> from symrel.exact import Q
>>> pieces = [([Q(-1)], Q(0)), ([Q(0)], Q(0)), ([Q(1)], Q(-1)), ([Q(0)], Q(-5))]   # max(-x, 0, x - 1)
>>> terms = max_as_small_maxes(pieces)
>>> sorted(terms)
[(-1, (1,)), (1, (0, 1)), (1, (1, 2))]
>>> x = [Q(3)]
>>> sum(c * max(pieces[i][0][0] * x[0] + pieces[i][1] for i in F) for c, F in terms) == 2
True

Cost: O(m^2) exact barycentric solves in dimension k for m points (each insertion tests
every current simplex; meant for the small sets of one vertex star), O(|T| m) for the
check, and O(|T| 2^(k+1)) for the faces.
"""

from __future__ import annotations

import itertools
from typing import Sequence

from ..errors import InputError
from ..exact import Q, Rational
from ..models.simplex import Simplex

ZERO, ONE = Q(0), Q(1)


def _affine_basis(points: list[list[Rational]]) -> list[int]:
    """Coordinates whose projection is injective on the affine hull of the points (the
    pivot columns of the differences, by exact elimination)."""
    rows = [[p[j] - points[0][j] for j in range(len(points[0]))] for p in points[1:]]
    pivots, r = [], 0
    n = len(points[0])
    for col in range(n):
        piv = next((i for i in range(r, len(rows)) if rows[i][col] != 0), None)
        if piv is None:
            continue
        rows[r], rows[piv] = rows[piv], rows[r]
        for i in range(len(rows)):
            if i != r and rows[i][col] != 0:
                fac = rows[i][col] / rows[r][col]
                rows[i] = [a - fac * b for a, b in zip(rows[i], rows[r])]
        pivots.append(col)
        r += 1
    return pivots


def _height(bary, heights):
    """The interpolated symbolic height ``sum b_i h_i`` (pairs: -infinity multiple, value)."""
    inf, val = ZERO, ZERO
    for b, (hi, hv) in zip(bary, heights):
        inf += b * hi
        val += b * hv
    return inf, val


def upper_triangulation(points: Sequence[Sequence[Rational]], heights: Sequence[Rational], *, order=None) -> list[tuple[int, ...]]:
    """An upper-regular triangulation of the points (already projected to full dimension
    k = len(points[0])), as tuples of k + 1 indices (module docstring)."""
    m, k = len(points), len(points[0])
    lo = [min(p[j] for p in points) - 1 for j in range(k)]
    span = max(max(p[j] for p in points) - lo[j] for j in range(k)) + 1
    big = span * (k + 1) * 2
    corners = [list(lo)] + [[lo[j] + (big if j == i else ZERO) for j in range(k)] for i in range(k)]
    pts = [list(p) for p in points] + corners
    hts = [(ZERO, Q(h)) for h in heights] + [(-ONE, ZERO)] * (k + 1)
    simplices = {tuple(range(m, m + k + 1)): Simplex(corners)}
    for i in (order if order is not None else range(m)):
        p = pts[i]
        bad = []
        for key, s in simplices.items():
            if _height(s.barycentric(p), [hts[j] for j in key]) < hts[i]:
                bad.append(key)
        if not bad:
            continue                                   # on or below the hull: left out
        count: dict[tuple, int] = {}
        for key in bad:
            for face in itertools.combinations(key, k):
                count[face] = count.get(face, 0) + 1
        for key in bad:
            del simplices[key]
        for face, c in count.items():
            if c == 1:
                new = tuple(sorted(face + (i,)))
                s = Simplex([pts[j] for j in new])
                if s.inverse is None:
                    raise InputError(f"point {i} lies on the hyperplane of a face it would be joined to "
                                     "(a degenerate configuration for this insertion order)", path=f"points[{i}]")
                simplices[new] = s
    return sorted(key for key in simplices if max(key) < m)


def check_upper_triangulation(points, heights, simplices) -> str | None:
    """None if ``simplices`` is an upper-regular triangulation of the convex hull of the
    points (module docstring), else the first reason it is not."""
    m = len(points)
    if not simplices:
        return "no simplex"
    geo = {}
    for key in simplices:
        s = Simplex([points[j] for j in key])
        if s.inverse is None:
            return f"simplex {key} is degenerate"
        geo[key] = s
        hs = [heights[j] for j in key]
        for j in range(m):
            if sum((b * h for b, h in zip(s.barycentric(points[j]), hs)), ZERO) < heights[j]:
                return f"point {j} lies above the lifted simplex {key}"
    facets: dict[tuple, list] = {}
    for key in simplices:
        for i in range(len(key)):
            facets.setdefault(key[:i] + key[i + 1:], []).append((key, key[i]))
    for face, owners in facets.items():
        if len(owners) > 2:
            return f"facet {face} lies in {len(owners)} simplices"
        (key, opp), = owners[:1]
        pos = geo[key].inverse[key.index(opp)]          # the barycentric coordinate of the opposite vertex
        side = lambda x: sum((a * xi for a, xi in zip(pos, x)), pos[-1])
        if len(owners) == 2:
            if side(points[owners[1][1]]) >= 0:
                return f"the two simplices at facet {face} lie on the same side"
        elif any(side(points[j]) < 0 for j in range(m)):
            return f"boundary facet {face} is not a facet of the convex hull"
    first = next(iter(geo.values()))
    centre = [sum(c) / len(first.points) for c in zip(*first.points)]
    if sum(1 for s in geo.values() if s.contains(centre)) != 1:
        return "the simplices overlap"
    return None


def max_as_small_maxes(pieces: Sequence[tuple[Sequence[Rational], Rational]]) -> list[tuple[int, tuple[int, ...]]]:
    """``[(coefficient, face), ..]`` with ``max_i l_i = sum coefficient * max_(i in face) l_i``
    on R^n, every face of at most n + 1 indices into ``pieces`` (module docstring).
    Coefficients are +1 or -1; the triangulation is checked before it is used."""
    best: dict[tuple, int] = {}
    for i, (a, c) in enumerate(pieces):            # equal slopes: the larger constant wins
        key = tuple(a)
        if key not in best or pieces[best[key]][1] < c:
            best[key] = i
    idx = sorted(best.values())
    if len(idx) == 1:
        return [(1, (idx[0],))]
    full = [list(pieces[i][0]) for i in idx]
    basis = _affine_basis(full)
    pts = [[p[j] for j in basis] for p in full]
    hts = [pieces[i][1] for i in idx]
    k = len(basis)
    centre = [sum(p[j] for p in pts) / len(pts) for j in range(k)]
    far = sorted(range(len(pts)), key=lambda i: -sum((p - c) ** 2 for p, c in zip(pts[i], centre)))
    error = None
    for shift in range(len(pts)):                  # extreme points first; other orders if degenerate
        order = far[shift:] + far[:shift]
        try:
            tri = upper_triangulation(pts, hts, order=order)
        except InputError as err:
            error = err
            continue
        error = check_upper_triangulation(pts, hts, tri)
        if error is None:
            break
    else:
        raise InputError(f"no upper-regular triangulation of the slopes of {len(idx)} affine functions was found "
                         f"({error})", path="pieces")
    boundary = [face for face, c in _facet_counts(tri).items() if c == 1]
    terms = []
    seen = set()
    for key in tri:
        for r in range(1, k + 2):
            for face in itertools.combinations(key, r):
                if face in seen or any(set(face) <= set(b) for b in boundary):
                    continue
                seen.add(face)
                terms.append((-1 if (k - (r - 1)) % 2 else 1, tuple(idx[j] for j in face)))
    return terms


def _facet_counts(tri):
    count: dict[tuple, int] = {}
    for key in tri:
        for i in range(len(key)):
            face = key[:i] + key[i + 1:]
            count[face] = count.get(face, 0) + 1
    return count
