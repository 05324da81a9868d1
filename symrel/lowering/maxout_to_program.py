"""A maxout net as a program: per layer the affine map onto all pieces of all units
(stacked unit by unit), then the max over each unit's pieces; the affine read-out last.

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0]), MaxoutUnit([[2]], [1])])])
>>> [op for op in maxout_to_program(net).stages[0].ops if not hasattr(op, "W")]
[Maxout(ranks=(2, 1))]
"""

from __future__ import annotations

from ..models import MaxoutNet
from .program import Affine, Maxout, Program, Stage


def maxout_to_program(net: MaxoutNet) -> Program:
    """The program of ``net``. Cost O(layers)."""
    stages = [Stage(f"layers[{k}]", [Affine(L._stacked.exact_W, L._stacked.exact_b), Maxout(tuple(L.ranks))])
              for k, L in enumerate(net.layers)]
    if net.readout is not None:
        stages.append(Stage("readout", [Affine(net.readout.exact_W, net.readout.exact_b)]))
    return Program("maxout", net.input_dim, net.output_dim, stages, source=net)
