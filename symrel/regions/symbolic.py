"""Symbolic view of a piecewise-affine model on a domain: sympy ``Piecewise``.

Maxout, ReLU and CPWL models have a closed form as nested ``Max`` (their own
``to_sympy``); a hardmax Transformer is affine on each cell of its argmax sets but
has no such closed form. Its symbolic view is therefore one ``Piecewise`` per
output: one piece per cell of the exact partition of the domain (ties as
equalities, so the value *on* a tie is the averaged one), the condition being the
cell's constraints.

>>> from symrel.models import Box
>>> from symrel.regions import sawtooth_transformer
>>> [expr] = piecewise_view(sawtooth_transformer(2, 1), Box([[0, 1]]))
>>> len(expr.args) >= 2, expr.subs("x1", 0), expr.subs("x1", 1)
(True, 0, 0)
"""

from __future__ import annotations

from ..exact import to_sympy
from ..models import input_symbols
from .enumerate_cells import enumerate_cells


def _sympy_of_form(form, xs):
    """The affine form ``c + sum_v a_v x_v`` as a sympy expression."""
    import sympy

    return sympy.Add(*[to_sympy(a) * xs[v] for v, a in sorted(form.coeffs.items())], to_sympy(form.const))


def _equation(e):
    import sympy

    return sympy.Eq(e, 0)


_REL = {"<=": lambda e: e <= 0, "<": lambda e: e < 0, "=": _equation}


def piecewise_view(model, domain, symbols=None, *, max_cells: int | None = None, executor=None) -> list:
    """The outputs of ``model`` on ``domain`` as sympy ``Piecewise`` expressions in
    ``x1..xd``, one piece per cell of the exact partition (ties included).

    Cost: one cell enumeration (see :func:`~symrel.regions.enumerate_cells`)."""
    import sympy

    xs = list(symbols if symbols is not None else input_symbols(model.input_dim))
    enum = enumerate_cells([model], domain, mode="exact", max_cells=max_cells, executor=executor)
    outputs = []
    for k in range(model.output_dim):
        pieces = []
        for cell in enum.cells:
            cond = sympy.And(*[_REL[rel](_sympy_of_form(form, xs)) for form, rel in cell.rows])
            pieces.append((_sympy_of_form(cell.outputs[0][k], xs), cond))
        outputs.append(sympy.Piecewise(*pieces))
    return outputs
