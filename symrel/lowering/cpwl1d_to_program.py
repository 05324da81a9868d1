"""A CPWL function of one variable as a program: one :class:`~symrel.lowering.program.Segment` stage
(which segment holds x, then its piece), and, for the consumers that do not branch on
segments, the program of its lattice form ``max_i min_(j in S_i) l_j``
(:func:`symrel.constructions.cpwl_to_maxout`, a two-layer maxout net).

>>> from symrel.models import CPWL1D
>>> p = cpwl1d_to_program(CPWL1D([0, 1, 2], [0, 1, 0]))
>>> p.kind, [str(a) for a, c in p.stages[0].ops[0].pieces], p.lattice.kind
('cpwl1d', ['1', '-1'], 'maxout')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .program import Program, Segment, Stage

if TYPE_CHECKING:  # the full name, which the API pages link to (symrel.checking has its own CPWL1D)
    import symrel.models.cpwl


def cpwl1d_to_program(f: symrel.models.cpwl.CPWL1D) -> Program:
    """The program of ``f``. Cost O(n^2) for the lattice form of n pieces."""
    # imported here: importing the lowering package (as every prover does) loads no construction
    from ..constructions import cpwl_to_maxout
    from .maxout_to_program import maxout_to_program

    return Program("cpwl1d", 1, 1, [Stage("segments", [Segment(list(f.exact_x), f.exact_pieces())])],
                   lattice=maxout_to_program(cpwl_to_maxout(f)), source=f)
