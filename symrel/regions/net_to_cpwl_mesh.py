"""A ReLU or maxout net restricted to a polytope, as a CPWL function on a mesh (``cpwl``).

The exact open cells of the net over the domain (:func:`~symrel.regions.enumerate_cells`:
on each, the net is affine) are convex polygons (intervals in 1-D), cut out of the
domain's polygon by exact clipping. Every corner of every cell is a vertex of the mesh.
Each cell is triangulated as a fan from its centroid (an interior point) to its boundary,
where the boundary is subdivided at *every* mesh vertex lying on it, so a corner of a
neighbouring cell in the middle of an edge is a vertex of both fans: neighbouring cells
cut their common edge at the same points, and the mesh is conforming (the
:class:`~symrel.models.CPWLMesh` check re-verifies it). The values are the net's exact
outputs at the vertices; the net is affine on each triangle, so the mesh function equals
the net on the whole domain.

>>> from symrel.models import ReLUNet, DenseLayer, Box
>>> net = ReLUNet(2, [DenseLayer([[1, -1]], [0], "relu"), DenseLayer([[1]], [0], "none")])   # ReLU(x - y)
>>> f = net_to_cpwl_mesh(net, Box([[-1, 1], [-1, 1]]))
>>> len(f.simplices), all(f(x) == net(x) for x in ([0, 0], ["1/2", "-1/3"], [-1, 1], ["1/3", "1/5"]))
(6, True)

Domains of dimension 1, 2 or 3; in three dimensions the facets of neighbouring cells
need not match, and :mod:`.cells_to_tetrahedra` triangulates their common refinement. In
four or more the faces of every dimension would need it: refused with an error.
Cost: the cell enumeration, then O(cells x edges x vertices) exact tests.
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import Q
from ..models import CPWLMesh
from . import polygons
from .cells_to_tetrahedra import cells_to_tetrahedra
from .enumerate_cells import enumerate_cells
from .polygon_search import domain_polygon


def _on_open_segment(p, q, v) -> bool:
    """Whether v lies strictly between p and q on the segment pq (exact)."""
    cross = (q[0] - p[0]) * (v[1] - p[1]) - (q[1] - p[1]) * (v[0] - p[0])
    if cross:
        return False
    t = (v[0] - p[0]) * (q[0] - p[0]) + (v[1] - p[1]) * (q[1] - p[1])
    return 0 < t < (q[0] - p[0]) ** 2 + (q[1] - p[1]) ** 2


def net_to_cpwl_mesh(net, domain, *, executor=None, max_cells=None) -> CPWLMesh:
    """The CPWL mesh function equal to ``net`` on ``domain`` (a 1-D, 2-D or 3-D box or polytope)."""
    if net.input_dim != domain.dim:
        raise InputError(f"expected a domain of dimension {net.input_dim}, got {domain.dim}", path="domain")
    if domain.dim == 3:
        vertices, simplices = cells_to_tetrahedra(net, domain, executor=executor, max_cells=max_cells)
        return CPWLMesh(vertices, [list(t) for t in simplices], net.evaluate_points(vertices))
    if domain.dim > 3:
        raise InputError(f"symrel triangulates the cells of nets with 1, 2 or 3 inputs; this one has {domain.dim}",
                         path="domain")
    start = domain_polygon(domain)
    if start is None or polygons.area2(start) == 0:
        raise InputError("expected a bounded domain with non-empty interior", path="domain")
    cells = enumerate_cells([net], domain, mode="open", executor=executor, max_cells=max_cells).cells
    shapes = []
    for cell in cells:
        poly = start
        for f, _ in cell.rows:
            poly = polygons.clip(poly, f)
        if polygons.area2(poly) > 0:
            shapes.append(poly)
    number: dict[tuple, int] = {}
    for poly in shapes:
        for p in poly:
            number.setdefault(tuple(p), len(number))
    if domain.dim == 1:
        points = sorted(number)
        simplices = [[i, i + 1] for i in range(len(points) - 1)]
        vertices = [list(p) for p in points]
        return CPWLMesh(vertices, simplices, net.evaluate_points(vertices))
    corners = list(number)
    simplices = []
    for poly in shapes:
        boundary = []
        for i, p in enumerate(poly):
            q = poly[(i + 1) % len(poly)]
            boundary.append(p)
            inner = [v for v in corners if _on_open_segment(p, q, v)]
            inner.sort(key=lambda v: (v[0] - p[0]) ** 2 + (v[1] - p[1]) ** 2)
            boundary += inner
        centre = tuple(sum((p[k] for p in poly), Q(0)) / len(poly) for k in range(2))
        c = number.setdefault(centre, len(number))
        for i, p in enumerate(boundary):
            simplices.append([c, number[tuple(p)], number[tuple(boundary[(i + 1) % len(boundary)])]])
    vertices = [list(p) for p in number]
    return CPWLMesh(vertices, simplices, net.evaluate_points(vertices))
