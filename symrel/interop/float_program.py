"""The lowered program (:mod:`symrel.lowering`) as the float back-ends run it.

The back-ends (numpy, PyTorch, ONNX) run seven operations of the program, plus
:class:`GroupMax`: a maxout layer's units padded to one rank (a unit of lower rank
repeats its first piece, which leaves its max unchanged), so that the max is a reshape
and a reduction. A CPWL function runs as its lattice form (a maxout net).

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1], [0]]), MaxoutUnit([[2]])])])
>>> p = float_program(net)
>>> p.stages[0].ops[0].W.shape, p.stages[0].ops[1]
((6, 1), GroupMax(rank=3))
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exact import from_rationals, rows
from ..lowering import Affine, Maxout, Program, Stage, lower


@dataclass
class GroupMax:
    """The last axis, of size ``q * rank``, split into q consecutive groups of
    ``rank``; each group replaced by its maximum (a maxout layer)."""

    rank: int


def _padded(affine: Affine, maxout: Maxout) -> list:
    """``[Affine onto q * k pieces, GroupMax(k)]`` for the layer ``affine, maxout``
    (k its largest rank; no GroupMax when k = 1)."""
    k = max(maxout.ranks)
    W_rows, b_rows = rows(affine.W), rows(affine.b)
    Wp, bp, start = [], [], 0
    for r in maxout.ranks:
        unit_W, unit_b = W_rows[start:start + r], b_rows[start:start + r]
        Wp += unit_W + [unit_W[0]] * (k - r)
        bp += unit_b + [unit_b[0]] * (k - r)
        start += r
    ops = [Affine(from_rationals(Wp, (len(Wp), affine.W.shape[1])), from_rationals(bp, (len(bp), 1)))]
    if k > 1:
        ops.append(GroupMax(k))
    return ops


def float_program(model) -> Program:
    """The program of ``model`` (or a program) with every maxout layer padded to one
    rank and a CPWL function replaced by its lattice form."""
    program = model if isinstance(model, Program) else lower(model)
    if program.lattice_program() is not None:
        program = program.lattice_program()
    stages = []
    for st in program.stages:
        ops, i = [], 0
        while i < len(st.ops):
            op = st.ops[i]
            if isinstance(op, Affine) and i + 1 < len(st.ops) and isinstance(st.ops[i + 1], Maxout):
                ops += _padded(op, st.ops[i + 1])
                i += 2
            else:
                ops.append(op)
                i += 1
        stages.append(st._replace(ops=ops))
    return program.with_stages(stages)



