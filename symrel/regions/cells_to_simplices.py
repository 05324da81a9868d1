"""A conforming simplicial mesh of the exact cells of a net, in any dimension.

The open cells of a ReLU or maxout net over a polytope D in R^d
(:func:`~symrel.regions.enumerate_cells`) are convex polytopes, on each of which the net
is affine, but they need not be *face-to-face*: a vertex of one cell can lie inside a
facet of its neighbour, and facets of neighbours on one hyperplane can cross. The
construction makes them face-to-face by cutting cells with hyperplanes of their
neighbours' facets, then triangulates every piece in a way on which neighbours agree:

1. *cells as vertex sets*: each cell, the bounding box of D clipped by its rows, with
   for every vertex the set of hyperplanes it lies on (its *tight set*). A polytope is
   clipped by a half-space by keeping the vertices on that side and adding the
   hyperplane's crossings of the edges. Two vertices u, w span an edge exactly when no
   third vertex lies on every hyperplane that u and w both lie on (the smallest face
   containing u and w has just these two vertices).
2. *where to cut* (for every two cells C, C' that touch, with contact ``K = C cap C'``):
   let G be the smallest face of C containing K; every facet hyperplane of C' (a row of
   C' whose hyperplane holds a facet; the other rows are redundant) with vertices of G
   strictly on both sides cuts C (so K becomes a union of faces of C's pieces); and
   every hyperplane cutting C with vertices of K strictly on both sides
   also cuts C' (so both sides subdivide K alike), repeated until nothing changes. The
   pieces of C are then the cells of the arrangement of its cutting hyperplanes inside
   C, and any two pieces of different cells meet in a common face: their intersection
   lies in a contact K, where both are faces of the one subdivision of K by the
   hyperplanes crossing K. Cells that meet face to face are not cut at all.
3. *pulling triangulation with one global vertex order*: a face is its set of vertex
   numbers; ``triangulate(G)`` cones the lowest-numbered vertex v of G over the
   triangulations of the facets of G not containing v (the facets of G are its subsets
   on one hyperplane of the piece, of affine dimension ``dim G - 1``), memoised on the
   vertex set. A face shared by two pieces has one vertex set, so it is triangulated
   the same way from both sides: the mesh is conforming, and it has no vertices but
   the pieces' corners.

Each simplex lies in the closure of one cell, where the net is affine, so the mesh
function with the net's exact values at the vertices equals the net on D;
:class:`~symrel.models.CPWLMesh` re-verifies the mesh (non-degenerate, conforming).

>>> from symrel.models import Box, DenseLayer, ReLUNet
>>> net = ReLUNet(4, [DenseLayer([[1, -1, 0, 0]], [0], "relu"), DenseLayer([[1]], [0], "none")])
>>> vertices, simplices = cells_to_simplices(net, Box([[-1, 1]] * 4))
>>> len(simplices), len(vertices)       # two prisms (a triangle times a square), 12 simplices each
(24, 16)

Cost: the cell enumeration; per cell, one clip per row (O(V^3) tight-set tests for V
vertices); per pair of cells with meeting bounding boxes, one contact (the cell clipped
by the other's rows); per cut, one split of each piece it crosses; and per face of the
pieces one facet search (O(rows x V)) and one exact rank. ``max_simplices`` bounds the
pieces and the simplices (an :class:`~symrel.errors.UndecidedError` names the limit).
"""

from __future__ import annotations

import itertools

from ..errors import InputError, UndecidedError
from ..exact import Q
from ..models import Box
from ..models.domain import polytope_box
from .enumerate_cells import enumerate_cells

MAX_SIMPLICES = 100_000


def cells_to_simplices(net, domain, *, executor=None, max_cells=None, max_simplices=MAX_SIMPLICES,
                       progress: bool = False, stats: dict | None = None):
    """``(vertices, simplices)``: points of Q^d and (d + 1)-tuples of their indices, a
    conforming mesh of the domain on whose every simplex ``net`` is affine (module
    docstring); ``progress``: lines on standard error for the cells, then the triangulation;
    ``stats``, when given, receives the counts of :func:`simplices_of_cells`."""
    box = list(domain.exact_bounds) if isinstance(domain, Box) else polytope_box(domain)[0]
    cells = enumerate_cells([net], domain, mode="open", executor=executor, max_cells=max_cells,
                            progress=progress).cells
    return simplices_of_cells([cell.rows for cell in cells], box, max_simplices=max_simplices, progress=progress,
                              stats=stats)


class _Planes:
    """The hyperplanes of the rows, each once: number -> ``(coefficients, constant)``
    scaled so that the first non-zero coefficient is 1."""

    def __init__(self, dim: int):
        self.dim = dim
        self.number: dict = {}
        self.rows: list = []

    def of(self, form):
        """``(number, side)``: the hyperplane of ``form = 0`` and the sign s with
        ``form <= 0`` equivalent to ``s h <= 0`` (h its scaled form)."""
        a = [form.coefficient(k) for k in range(self.dim)]
        lead = next(x for x in a if x)
        key = (tuple(x / lead for x in a), form.const / lead)
        n = self.number.setdefault(key, len(self.rows))
        if n == len(self.rows):
            self.rows.append(key)
        return n, (1 if lead > 0 else -1)

    def at(self, n: int, p) -> Q:
        a, c = self.rows[n]
        total = c
        for x, y in zip(a, p):
            if x:
                total += x * y
        return total


def _box_polytope(box, planes: _Planes):
    """The box as ``(points, tight sets)`` (its facets registered as hyperplanes)."""
    from ..exact.forms import AffineForm

    d = len(box)
    lower = [planes.of(AffineForm(-lo, {k: Q(1)}))[0] for k, (lo, _) in enumerate(box)]
    upper = [planes.of(AffineForm(-hi, {k: Q(1)}))[0] for k, (_, hi) in enumerate(box)]
    points, tight = [], []
    for corner in itertools.product((0, 1), repeat=d):
        points.append(tuple(box[k][c] for k, c in enumerate(corner)))
        tight.append(frozenset(upper[k] if c else lower[k] for k, c in enumerate(corner)))
    return points, tight


def _clip(poly, planes: _Planes, n: int, side: int):
    """``poly cap {side h_n <= 0}`` as ``(points, tight sets)``, or None when empty
    (step 1 of the module docstring)."""
    points, tight = poly
    vals = [side * planes.at(n, p) for p in points]
    if all(v <= 0 for v in vals):
        return points, [t | {n} if v == 0 else t for t, v in zip(tight, vals)]
    keep = [i for i, v in enumerate(vals) if v <= 0]
    if not keep:
        return None
    out_points = [points[i] for i in keep]
    out_tight = [tight[i] | {n} if vals[i] == 0 else tight[i] for i in keep]
    d = planes.dim
    for i in (i for i in keep if vals[i] < 0):
        for j in (j for j, v in enumerate(vals) if v > 0):
            common = tight[i] & tight[j]
            if len(common) < d - 1 or any(k != i and k != j and common <= t for k, t in enumerate(tight)):
                continue                   # not an edge
            s = vals[i] / (vals[i] - vals[j])
            out_points.append(tuple(x + s * (y - x) for x, y in zip(points[i], points[j])))
            out_tight.append(common | {n})
    return out_points, out_tight


def _sides(planes: _Planes, n: int, points) -> tuple[bool, bool]:
    """Whether some point lies strictly below, and some strictly above, hyperplane n."""
    below = above = False
    for p in points:
        v = planes.at(n, p)
        below, above = below or v < 0, above or v > 0
        if below and above:
            break
    return below, above


def _bounding(points):
    return [min(c) for c in zip(*points)], [max(c) for c in zip(*points)]


def _cuts(polys, walls, planes: _Planes, progress: bool = False, stats: dict | None = None) -> list[set]:
    """The hyperplanes cutting each cell (step 2 of the module docstring); ``walls[c]``:
    the hyperplanes of cell c's rows."""
    from ..progress import Progress

    boxes = [_bounding(p[0]) for p in polys]
    # a cell is the intersection of its facets' half-spaces; the other rows are redundant
    facets = [{n: side for n, side in own.items()
               if _affine_dim([p for p, t in zip(*poly) if n in t] or [None]) == planes.dim - 1}
              for poly, own in zip(polys, walls)]
    contacts = []                           # (c, c2, contact points)
    n_cells = len(polys)
    bar = Progress("pairs of cells compared", total=n_cells * (n_cells - 1) // 2, enabled=progress, unit="pair")
    for c, c2 in itertools.combinations(range(len(polys)), 2):
        bar.update()
        (lo, hi), (lo2, hi2) = boxes[c], boxes[c2]
        if any(a > b2 or a2 > b for a, b, a2, b2 in zip(lo, hi, lo2, hi2)):
            continue
        K = polys[c]
        for n, side in facets[c2].items():
            K = _clip(K, planes, n, side)
            if K is None:
                break
        if K is not None:
            contacts.append((c, c2, K[0]))
    bar.close()
    cuts: list[set] = [set() for _ in polys]
    for c, c2, K in contacts:
        for a, b in ((c, c2), (c2, c)):
            points, tight = polys[a]
            on = [n for n in walls[a] if all(planes.at(n, p) == 0 for p in K)]
            face = [p for p, t in zip(points, tight) if all(n in t for n in on)]   # the smallest face holding K
            for n in facets[b]:
                if n not in walls[a] and all(_sides(planes, n, face)):
                    cuts[a].add(n)
    crossing: dict = {}
    changed = True
    while changed:
        changed = False
        for c, c2, K in contacts:
            for a, b in ((c, c2), (c2, c)):
                for n in list(cuts[a] - cuts[b]):
                    key = (c, c2, n)
                    if key not in crossing:
                        crossing[key] = all(_sides(planes, n, K))
                    if crossing[key]:
                        cuts[b].add(n)
                        changed = True
    if stats is not None:
        stats.update(contacts=len(contacts), cuts=sum(len(c) for c in cuts))
    return cuts


def _affine_dim(points) -> int:
    """The dimension of the affine hull of the points (exact elimination; -1 for ``[None]``,
    no points)."""
    if points[0] is None:
        return -1
    base = points[0]
    rows = [[y - x for x, y in zip(base, p)] for p in points[1:]]
    rank, col = 0, 0
    width = len(base)
    while rank < len(rows) and col < width:
        pivot = next((r for r in range(rank, len(rows)) if rows[r][col]), None)
        if pivot is None:
            col += 1
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        head = rows[rank]
        for r in range(rank + 1, len(rows)):
            if rows[r][col]:
                m = rows[r][col] / head[col]
                rows[r] = [x - m * y for x, y in zip(rows[r], head)]
        rank += 1
        col += 1
    return rank


class _Pulling:
    """The pulling triangulation of faces given by vertex numbers (step 3), memoised."""

    def __init__(self, number: dict):
        self.number = number                 # point -> vertex number, growing as pieces are added
        self.points: list = []
        self.memo: dict = {}

    def simplices(self, face: frozenset, dim: int, tight: dict) -> list[tuple]:
        """The simplices of face (vertex numbers, affine dimension dim); ``tight``: vertex
        number -> the hyperplanes of the piece it lies on."""
        done = self.memo.get(face)
        if done is not None:
            return done
        if dim == 0:
            out = [tuple(face)]
        else:
            v = min(face)
            everywhere = frozenset.intersection(*(tight[u] for u in face))
            facets = set()
            for n in sorted(frozenset.union(*(tight[u] for u in face)) - everywhere):
                F = frozenset(u for u in face if n in tight[u])
                if v in F or F in facets or len(F) < dim:
                    continue
                if len(self.points) < len(self.number):
                    self.points = list(self.number)
                if _affine_dim([self.points[u] for u in F]) == dim - 1:
                    facets.add(F)
            out = [(v,) + s for F in sorted(facets, key=sorted) for s in self.simplices(F, dim - 1, tight)]
        self.memo[face] = out
        return out


def simplices_of_cells(cells, box, *, max_simplices=MAX_SIMPLICES, progress: bool = False,
                       stats: dict | None = None):
    """``(vertices, simplices)`` for convex polytopes ``cells`` (each a list of rows
    ``form rel 0``, read as ``form <= 0``) with disjoint non-empty interiors whose union
    is convex and lies in ``box``: steps 1 to 3 of the module docstring. ``stats``, when
    given, receives ``cells``, ``contacts`` (pairs of cells that touch), ``cuts`` (cell and
    hyperplane pairs) and ``pieces``."""
    from ..progress import Progress

    d = len(box)
    planes = _Planes(d)
    start = _box_polytope(box, planes)

    def over(count, what):
        if max_simplices is not None and count > max_simplices:
            raise UndecidedError(f"simplex limit of {max_simplices} simplices reached ({what}); the mesh of the "
                                 f"{len(cells)} cells was not built")

    polys, walls = [], []
    for c, rows in enumerate(cells):
        poly, own = start, {}
        for row in rows:
            if row.form.is_constant():
                continue
            n, side = planes.of(row.form)
            own[n] = side
            poly = _clip(poly, planes, n, side)
            if poly is None:
                raise InputError(f"cell {c} is empty", path="cells")
        polys.append(poly)
        walls.append(own)
    cuts = _cuts(polys, walls, planes, progress, stats)
    bar = Progress("cells cut and triangulated", total=len(cells), enabled=progress, unit="cell")
    pieces, simplices = [], []
    number: dict[tuple, int] = {}
    pulling = _Pulling(number)
    for poly, cut in zip(polys, cuts):
        parts = [poly]
        for n in sorted(cut):
            split = []
            for part in parts:
                below, above = _sides(planes, n, part[0])
                if below and above:
                    split += [_clip(part, planes, n, -1), _clip(part, planes, n, 1)]
                else:
                    split.append(part)
            parts = split
            over(len(pieces) + len(parts), f"{len(pieces) + len(parts)} pieces of the cells")
        pieces += parts
        for points, tight in parts:
            for p in points:
                number.setdefault(p, len(number))
            ids = {number[p]: t for p, t in zip(points, tight)}
            simplices += pulling.simplices(frozenset(ids), d, ids)
            over(len(simplices), f"{len(simplices)} simplices after {len(pieces)} pieces")
        bar.update(pieces=len(pieces), simplices=len(simplices))
    bar.close()
    if stats is not None:
        stats.update(cells=len(cells), pieces=len(pieces))
    return [list(p) for p in number], simplices
