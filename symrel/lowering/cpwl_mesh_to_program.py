"""A CPWL function on a simplicial mesh as a program: one
:class:`~symrel.lowering.program.Simplices` stage (which simplex holds x, then its affine
piece, from the exact barycentric view of :class:`~symrel.models.CPWLMesh`), and, for the
consumers that do not branch on simplices (the float back-ends), the program of its
lattice form ``max_t min_(j in S_t) l_j`` (:func:`symrel.constructions.lattice_forms`), built on
first use: it costs far more than the rest.

>>> from symrel.models import CPWLMesh
>>> f = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], ["1/2"]])
>>> p = cpwl_mesh_to_program(f)
>>> op = p.stages[0].ops[0]
>>> p.kind, len(op.barycentric), [str(v) for v in op.pieces[1][0][0]], p.lattice_program().kind
('cpwl', 2, ['-1/2', '-1/2'], 'maxout')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .program import Program, Simplices, Stage

if TYPE_CHECKING:  # the full name, which the API pages link to (symrel.checking has its own CPWLMesh)
    import symrel.models.cpwl_mesh


def cpwl_mesh_to_program(f: symrel.models.cpwl_mesh.CPWLMesh) -> Program:
    """The program of ``f``. Cost O(n d^2) for n simplices (their inverses are the mesh's)."""
    op = Simplices([g.inverse for g in f.exact_geometry], f.exact_pieces())
    return Program("cpwl", f.input_dim, f.output_dim, [Stage("simplices", [op])], source=f,
                   build_lattice=lambda: _lattice_program(f))


def _lattice_program(f: symrel.models.cpwl_mesh.CPWLMesh) -> Program:
    """The program of ``f``'s lattice form (the construction and the exact LP behind it are
    imported here, on first use: a program that never needs its lattice form loads neither)."""
    from ..constructions import lattice_forms, lattice_to_maxout
    from .maxout_to_program import maxout_to_program

    return maxout_to_program(lattice_to_maxout(lattice_forms(f), f.input_dim))
