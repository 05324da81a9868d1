"""A conforming tetrahedral mesh of the exact cells of a net with three inputs.

The open cells of a ReLU or maxout net over a polytope D in R^3
(:func:`~symrel.regions.enumerate_cells`) are convex polytopes, on each of which the net
is affine, but two neighbouring cells need not meet in a common face: the facet of one
can be cut, on the other side of its plane, into the facets of several cells (a unit of
a later layer bends on one side of the plane and not on the other), and the pieces of
a plane can even cross. The construction:

1. *facets*: for every cell C and every plane H of its rows, ``C cap H`` as an exact
   polygon in H (the box of D clipped by C's rows, restricted to H), kept when it has
   positive area;
2. *pieces* (the common refinement): a facet F of C on H is cut by the cells on the
   other side of H: each piece is ``F cap C'`` for a cell C' with a facet on H from the
   other side, kept when it has positive area; together they tile F (checked: their
   areas add up to F's). A facet with no cell beyond it lies on the boundary of D and is
   one piece. A piece belongs to the two cells it separates, and is computed once;
3. every corner of every piece is a mesh vertex. The boundary of a piece is cut at every
   mesh vertex lying on it, and the piece is fanned from a corner whose two edges are not
   cut (else from its centroid); two pieces meeting along part of an edge cut it at the
   same points, so their triangles match;
4. every cell is the cone from its centroid (an interior point) over the triangles of
   its pieces.

Each tetrahedron lies in the closure of one cell, where the net is affine, so the mesh
function with the net's exact values at the vertices equals the net on D;
:class:`~symrel.models.CPWLMesh` re-verifies the mesh (non-degenerate, conforming,
including the common-face test of :mod:`symrel.models.mesh_check`).

>>> from symrel.models import Box, DenseLayer, ReLUNet
>>> net = ReLUNet(3, [DenseLayer([[1, -1, 0]], [0], "relu"), DenseLayer([[1]], [0], "none")])
>>> vertices, tetrahedra = cells_to_tetrahedra(net, Box([[-1, 1]] * 3))
>>> len(tetrahedra), len(vertices)
(16, 10)

Cost: the cell enumeration, then O(cells x rows^2) polygon clips for the facets, O(pairs
of facets on a plane) clips for the pieces and O(piece edges x vertices on the plane)
exact tests.
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import Q
from ..exact.forms import AffineForm
from ..models import Box
from ..models.domain import polytope_box
from . import polygons
from .enumerate_cells import enumerate_cells


class Plane:
    """The plane ``h(x) = 0`` with ``h = x_j + n . x + c`` (its first coefficient 1), and
    the chart ``(x_k0, x_k1)`` of the two other coordinates."""

    def __init__(self, key, dim: int = 3):
        const, lin = key
        self.key = key
        self.j = lin[0][0]
        self.kept = [k for k in range(dim) if k != self.j]
        rest = dict(lin[1:])
        # x_j = -(c + sum_(k kept) n_k x_k), in the chart's variables 0 and 1
        self.x_j = AffineForm(-const, {t: -rest[k] for t, k in enumerate(self.kept) if k in rest})
        self.images = {self.j: self.x_j, **{k: AffineForm.var(t) for t, k in enumerate(self.kept)}}
        self.form = AffineForm(const, dict(lin))

    def restrict(self, f: AffineForm) -> AffineForm:
        """f on the plane, in the chart's variables."""
        return f.substitute(self.images)

    def lift(self, p) -> tuple:
        """The point of R^3 with chart coordinates p."""
        x = [None] * (len(self.kept) + 1)
        for t, k in enumerate(self.kept):
            x[k] = p[t]
        x[self.j] = self.x_j.value_at(p)
        return tuple(x)


def plane_of(f: AffineForm):
    """``(key, side)``: the canonical key of the plane ``f = 0`` (the form divided by its
    first coefficient) and the side of ``f < 0`` (-1 where the keyed form is negative)."""
    v, a = min(f.coeffs.items())
    g = f.scaled(1 / a)
    return (g.const, tuple(sorted(g.coeffs.items()))), (-1 if a > 0 else 1)


def _clip_all(poly, plane: Plane, rows):
    for row in rows:
        f = plane.restrict(row.form)
        poly = polygons.clip(poly, f)
        if not poly:
            break
    return poly


def _corners(poly):
    """The polygon without vertices lying on the segment of their neighbours (true corners only)."""
    out = []
    n = len(poly)
    for i, p in enumerate(poly):
        a, b = poly[i - 1], poly[(i + 1) % n]
        if (p[0] - a[0]) * (b[1] - a[1]) != (p[1] - a[1]) * (b[0] - a[0]):
            out.append(p)
    return out


def _on_open_segment(p, q, v) -> bool:
    """Whether v lies strictly between p and q (exact, any dimension)."""
    d = [b - a for a, b in zip(p, q)]
    w = [b - a for a, b in zip(p, v)]
    t = sum((x * y for x, y in zip(d, w)), Q(0))
    n = sum((x * x for x in d), Q(0))
    if not 0 < t < n:
        return False
    return all(x * n == t * y for x, y in zip(w, d))      # w = (t / n) d


def cells_to_tetrahedra(net, domain, *, executor=None, max_cells=None):
    """``(vertices, tetrahedra)``: points of Q^3 and 4-tuples of their indices, a
    conforming mesh of D on whose every tetrahedron ``net`` is affine (module docstring)."""
    if domain.dim != 3:
        raise InputError(f"expected a domain of dimension 3, got {domain.dim}", path="domain")
    box = list(domain.exact_bounds) if isinstance(domain, Box) else polytope_box(domain)[0]
    cells = enumerate_cells([net], domain, mode="open", executor=executor, max_cells=max_cells).cells
    return tetrahedra_of_cells([cell.rows for cell in cells], box)


def tetrahedra_of_cells(cells, box):
    """``(vertices, tetrahedra)`` for convex polytopes ``cells`` (each a list of rows
    ``form rel 0``, read as ``form <= 0``) with disjoint interiors whose union is convex
    and lies in ``box``: steps 1 to 4 of the module docstring."""
    planes: dict = {}
    facets: dict = {}            # plane key -> [(cell, side, polygon in the chart)]
    for c, rows in enumerate(cells):
        seen = set()
        for row in rows:
            if row.form.is_constant():
                continue
            key, side = plane_of(row.form)
            if key in seen:
                continue
            seen.add(key)
            plane = planes.setdefault(key, Plane(key))
            start = polygons.box_polygon([box[k] for k in plane.kept])
            poly = _clip_all(start, plane, rows)
            if len(poly) >= 3 and polygons.area2(poly) > 0:
                facets.setdefault(key, []).append((c, side, poly))
    pieces = []                  # (plane key, cells it bounds, polygon in the chart)
    for key, fs in facets.items():
        plane = planes[key]
        sides = {s: [f for f in fs if f[1] == s] for s in (-1, 1)}
        for s in (-1, 1):
            if not sides[-s]:     # nothing beyond: the boundary of D
                pieces += [(key, (c,), poly) for c, _, poly in sides[s]]
        if not (sides[-1] and sides[1]):
            continue
        covered = {c: polygons.area2([]) for c, _, _ in fs}
        for c, _, poly in sides[-1]:
            for c2, _, _ in sides[1]:
                part = _clip_all(poly, plane, cells[c2])
                if len(part) >= 3 and polygons.area2(part) > 0:
                    pieces.append((key, (c, c2), part))
                    covered[c] += polygons.area2(part)
                    covered[c2] += polygons.area2(part)
        for c, _, poly in fs:
            if covered[c] != polygons.area2(poly):   # pragma: no cover - the cells would not tile D
                raise InputError(f"internal error: the cells beyond a facet of cell {c} do not tile it", path="domain")
    number: dict[tuple, int] = {}
    lifted = []
    for key, owners, poly in pieces:
        corners = [planes[key].lift(p) for p in _corners(poly)]
        for p in corners:
            number.setdefault(p, len(number))
        lifted.append((key, owners, corners))
    on_plane = {key: [v for v in number if plane.form.value_at(v) == 0] for key, plane in planes.items()}
    triangles: dict[int, list] = {c: [] for c in range(len(cells))}
    for key, owners, corners in lifted:
        ring, cut = [], []
        n = len(corners)
        for i, p in enumerate(corners):
            q = corners[(i + 1) % n]
            inner = [v for v in on_plane[key] if _on_open_segment(p, q, v)]
            inner.sort(key=lambda v: sum(((a - b) ** 2 for a, b in zip(v, p)), Q(0)))
            ring += [(i, p)] + [(i, v) for v in inner]
            cut.append(bool(inner))
        # the apex: a corner whose two edges are not cut (they become sides of the fan, not
        # bases), else the centroid of the piece (every edge a base)
        at = next((i for i in range(n) if not cut[i] and not cut[i - 1]), None)
        if at is None:
            apex = tuple(sum((p[k] for p in corners), Q(0)) / n for k in range(3))
            number.setdefault(apex, len(number))
            skip = ()
        else:
            apex, skip = corners[at], (at, (at - 1) % n)
        fan = []
        for t, (edge, p) in enumerate(ring):
            q = ring[(t + 1) % len(ring)][1]
            if edge not in skip:
                fan.append((number[apex], number[p], number[q]))
        for c in owners:
            triangles[c] += fan
    tetrahedra = []
    points = list(number)
    for c in range(len(cells)):
        corners = {v for tri in triangles[c] for v in tri}
        if not corners:
            continue
        centre = tuple(sum((points[v][k] for v in corners), Q(0)) / len(corners) for k in range(3))
        apex = number.setdefault(centre, len(number))
        tetrahedra += [(apex,) + tri for tri in triangles[c]]
    return [list(p) for p in number], tetrahedra
