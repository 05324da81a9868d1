"""The ``cpwl1d`` kind: continuous piecewise-linear functions of one variable.

>>> from symrel.models import CPWL1D
>>> CPWL1D_KIND.describe(CPWL1D([0, 1, 2], [0, 1, 0]))
'a CPWL function of one variable (3 breakpoints)'
"""

from __future__ import annotations

from ..model_kinds import Lazy, ModelKind, register
from ..models.cpwl import CPWL1D


def describe(f: CPWL1D) -> str:
    """The function in a claim's words: its number of breakpoints."""
    return f"a CPWL function of one variable ({f.sizes()['breakpoints']} breakpoints)"


CPWL1D_KIND = register(ModelKind(
    name="cpwl1d", model=CPWL1D, summary="a CPWL function of one variable",
    read=Lazy("symrel.fileformat.models_io", "read_cpwl1d"),
    write=Lazy("symrel.fileformat.models_io", "write_cpwl1d"),
    lower=Lazy("symrel.lowering.cpwl1d_to_program", "cpwl1d_to_program"),
    forms=Lazy("symrel.prover.cpwl_to_forms", "cpwl_forms"),
    describe=describe,
    to_maxout=Lazy("symrel.constructions.cpwl_to_maxout", "cpwl_to_maxout"),
    trace=Lazy("symrel.interop.exact_trace", "maxout_form_trace"),
    continuous=True,
))
