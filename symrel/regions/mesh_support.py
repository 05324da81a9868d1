"""The domain inside the support of a CPWL mesh function, with Farkas vectors.

The decisions of a mesh function (:class:`~symrel.regions.program_to_decisions.SimplexStage`)
cover the domain D only when D lies in the function's support (the union of its
simplices). It does when, for every boundary facet (a facet no other simplex shares),
D lies in the closed half-space ``lambda >= 0`` of the barycentric coordinate of the
facet's opposite vertex (:meth:`symrel.models.CPWLMesh.check_domain`: their intersection
lies in the support). Each half-space is certified by a Farkas vector showing that
``{x : A x <= b, lambda(x) < 0}`` is empty, over the rows ``a_r . x - b_r <= 0`` of the
domain then the row ``lambda(x) < 0``; :mod:`symrel.checking.regions` checks them.

>>> from symrel.models import Box, CPWLMesh
>>> f = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], [2]])
>>> cert = support_certificate(f, Box([[0, 1], [0, 1]]))
>>> len(cert), cert[0]
(4, [0, 1, [[1, '1/2'], [4, '1/2']]])

Cost: one exact LP in d variables per boundary facet.
"""

from __future__ import annotations

from ..errors import InputError
from ..exact.forms import AffineForm, Row
from ..model_kinds import kind_of
from .cell_json import farkas_json
from .cell_lp import cell_lp, domain_rows


def support_certificate(f, domain) -> list:
    """``[simplex, i, farkas]`` for each boundary facet of f, in the order of
    :meth:`~symrel.models.CPWLMesh.boundary_facets`; an InputError naming the facet when
    the domain leaves its half-space."""
    f.check_domain(domain)
    base = domain_rows(domain, "exact")
    out = []
    for a, c, k, i in f.support_halfspaces():
        rows = base + [Row(AffineForm.from_dense(a, c), "<")]
        point, farkas = cell_lp(rows, list(range(len(rows))), {}, f.input_dim)
        if point is not None:   # pragma: no cover - check_domain refuses this first
            raise InputError(f"the domain leaves the half-space of the boundary facet of simplex {k} opposite vertex "
                             f"{f.simplices[k][i]}", path="domain")
        out.append([k, i, farkas_json(farkas)])
    return out


def supports(models, domain) -> list | None:
    """For each model, its support certificate (None for a model that is not a mesh);
    None when no model is a mesh (nothing recorded)."""
    on_support = [(kind := kind_of(m)) is not None and kind.support for m in models]
    if not any(on_support):
        return None
    return [support_certificate(m, domain) if s else None for m, s in zip(models, on_support)]
