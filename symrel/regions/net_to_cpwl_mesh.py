"""A ReLU or maxout net restricted to a polytope, as a CPWL function on a mesh (``cpwl``).

The exact open cells of the net over the domain (:func:`~symrel.regions.enumerate_cells`:
on each, the net is affine) are triangulated into a conforming simplicial mesh by
:func:`~symrel.regions.cells_to_simplices.cells_to_simplices`, in any dimension: cells
that do not meet face to face are cut by their neighbours' facet hyperplanes where
needed, and every piece gets the pulling triangulation of one global vertex order. The
values are the net's exact outputs at the vertices; the net is affine on each simplex, so
the mesh function equals the net on the whole domain. The
:class:`~symrel.models.CPWLMesh` check re-verifies that the mesh is conforming, and the
domain is checked to lie in the support (a missing simplex would leave a hole).

>>> from symrel.models import ReLUNet, DenseLayer, Box
>>> net = ReLUNet(2, [DenseLayer([[1, -1]], [0], "relu"), DenseLayer([[1]], [0], "none")])   # ReLU(x - y)
>>> f = net_to_cpwl_mesh(net, Box([[-1, 1], [-1, 1]]))
>>> len(f.simplices), all(f(x) == net(x) for x in ([0, 0], ["1/2", "-1/3"], [-1, 1], ["1/3", "1/5"]))
(2, True)

Cost: the cell enumeration, the triangulation (see its module), and the mesh check, which
compares the simplices pairwise where their bounding boxes meet (the simplices of a
pulling triangulation are long: about quadratic in their number).
"""

from __future__ import annotations

from ..errors import InputError, InternalError
from ..models import CPWLMesh
from .cells_to_simplices import MAX_SIMPLICES, cells_to_simplices


def net_to_cpwl_mesh(net, domain, *, executor=None, max_cells=None, max_simplices=MAX_SIMPLICES,
                     progress: bool = False) -> CPWLMesh:
    """The CPWL mesh function equal to ``net`` on ``domain`` (a bounded box or polytope with
    non-empty interior, of the net's input dimension); past ``max_cells`` cells or
    ``max_simplices`` simplices an :class:`~symrel.errors.UndecidedError` names the limit;
    ``progress``: lines on standard error."""
    if net.input_dim != domain.dim:
        raise InputError(f"expected a domain of dimension {net.input_dim}, got {domain.dim}", path="domain")
    vertices, simplices = cells_to_simplices(net, domain, executor=executor, max_cells=max_cells,
                                             max_simplices=max_simplices, progress=progress)
    if progress:
        import sys

        print(f"checking the mesh: {len(simplices)} simplices, {len(vertices)} vertices", file=sys.stderr, flush=True)
    f = CPWLMesh(vertices, [list(s) for s in simplices], net.evaluate_points(vertices))
    try:          # a simplex left out would leave a hole, whose boundary facets cut the domain
        f.check_domain(domain)
    except InputError as err:          # pragma: no cover - a bug of the triangulation
        raise InternalError(f"the mesh of the net's cells does not cover the domain: {err}") from None
    return f
