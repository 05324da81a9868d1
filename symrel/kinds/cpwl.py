"""The ``cpwl`` kind: continuous piecewise-linear functions on a simplicial mesh, defined on
the mesh's support only (a domain must lie in it).

>>> from symrel.models import Box, CPWLMesh
>>> f = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], [2]])
>>> CPWL.describe(f)
'a CPWL function on a mesh of 2 simplices in R^2'
>>> [[str(v) for v in p] for p in mesh_points(f, Box([[0, 1], [0, 1]]))][-2:]
[['1/3', '1/3'], ['2/3', '2/3']]
"""

from __future__ import annotations

from ..model_kinds import Lazy, ModelKind, register
from ..models.cpwl_mesh import CPWLMesh


def describe(f: CPWLMesh) -> str:
    """The function in a claim's words: its simplices and dimension."""
    s = f.sizes()
    return f"a CPWL function on a mesh of {s['simplices']} simplices in R^{s['input_dim']}"


def info(f: CPWLMesh, budget=None) -> dict:
    """Its sizes, and those of its lattice and Wang-Sun forms with the Transformers compiled
    from them (only the Wang-Sun form is budgeted: :func:`~symrel.compiler.cpwl_form_sizes.cpwl_form_sizes`)."""
    from ..compiler.cpwl_form_sizes import cpwl_form_sizes

    return {**f.sizes(), **cpwl_form_sizes(f, budget=budget)}


def check_domain(f: CPWLMesh, domain) -> None:
    """Refuse a domain that leaves the mesh's support (:meth:`~symrel.models.CPWLMesh.check_domain`)."""
    f.check_domain(domain)


def mesh_points(f: CPWLMesh, domain) -> list:
    """Candidate counterexamples: the mesh's vertices in the domain, then the centroids of its
    simplices in the domain (where a changed vertex value shows). Cost O(simplices x d^2)."""
    pts = [v for v in f.exact_vertices if domain.contains(v)]
    for s in f.simplices:
        c = [sum(f.exact_vertices[i][k] for i in s) / len(s) for k in range(f.input_dim)]
        if domain.contains(c):
            pts.append(c)
    return pts


CPWL = register(ModelKind(
    name="cpwl", model=CPWLMesh, summary="a CPWL function on a simplicial mesh",
    read=Lazy("symrel.fileformat.models_io", "read_cpwl"),
    write=Lazy("symrel.fileformat.models_io", "write_cpwl"),
    lower=Lazy("symrel.lowering.cpwl_mesh_to_program", "cpwl_mesh_to_program"),
    forms=Lazy("symrel.prover.cpwl_mesh_to_forms", "cpwl_mesh_forms"),
    describe=describe,
    info=info,
    to_maxout=Lazy("symrel.constructions.cpwl_mesh_lattice", "cpwl_mesh_to_maxout"),
    trace=Lazy("symrel.interop.exact_trace", "maxout_form_trace"),
    continuous=True,
    support=True,
    check_domain=check_domain,
    candidate_points=mesh_points,
))
