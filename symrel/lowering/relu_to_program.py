"""A ReLU net as a program: per dense layer an affine map, then a ReLU unless the
layer's activation is ``none``.

>>> from symrel.models import ReLUNet, DenseLayer
>>> p = relu_to_program(ReLUNet(2, [DenseLayer([[1, 1]], [0])]))
>>> p.kind, [type(op).__name__ for op in p.stages[0].ops]
('relu', ['Affine', 'Relu'])
"""

from __future__ import annotations

from ..models import ReLUNet
from .program import Affine, Program, Relu, Stage


def relu_to_program(net: ReLUNet) -> Program:
    """The program of ``net``. Cost O(layers)."""
    stages = [Stage(f"layers[{k}]", [Affine(L.affine.exact_W, L.affine.exact_b)] + ([Relu()] if L.activation == "relu" else []))
              for k, L in enumerate(net.layers)]
    return Program("relu", net.input_dim, net.output_dim, stages, source=net)
