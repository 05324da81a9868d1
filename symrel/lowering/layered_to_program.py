"""A layered net as a program: each sparse affine operator a (dense) affine map, each ReLU a
ReLU, each max over groups the affine selection of the groups' members (stacked group by
group) followed by the max over each group.

The program is dense: it serves the analyses that enumerate regions or run float back-ends,
which only take nets small enough for dense matrices.

>>> from symrel.models import LayeredNet, MaxGroups, Relu, SparseAffine
>>> net = LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]]), MaxGroups([[1, 0]])])
>>> [type(op).__name__ for op in layered_to_program(net).stages[1].ops]
['Affine', 'Maxout']
"""

from __future__ import annotations

from ..exact import Q, from_rationals
from ..models.layered import LayeredNet, MaxGroups, SparseAffine
from .program import Affine, Maxout, Program, Relu, Stage


def _matrix(rows, width):
    dense = [[Q(0)] * width for _ in rows]
    for i, row in enumerate(rows):
        for j, v in row:
            dense[i][j] = v
    return from_rationals(dense, (len(rows), width))


def layered_to_program(net: LayeredNet) -> Program:
    """The program of ``net``. Cost: the size of its dense matrices."""
    stages = []
    for k, op in enumerate(net.ops):
        if isinstance(op, SparseAffine):
            ops = [Affine(_matrix(op.rows, op.input_dim), from_rationals([[v] for v in op.b], (op.output_dim, 1)))]
        elif isinstance(op, MaxGroups):
            members = [[(j, Q(1))] for g in op.groups for j in g]
            ops = [Affine(_matrix(members, op.input_dim), from_rationals([[Q(0)]] * len(members), (len(members), 1))),
                   Maxout(tuple(len(g) for g in op.groups))]
        else:
            ops = [Relu()]
        stages.append(Stage(f"ops[{k}]", ops))
    return Program("layered", net.input_dim, net.output_dim, stages, source=net)
