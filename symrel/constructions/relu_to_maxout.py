"""ReLU net -> maxout net (Paper A, Cor 3.3): each ReLU is the rank-2 unit ``max(0, z)``.

A layer without activation is an affine map; it is folded into the layer that
follows it (or into the read-out when it is last), so the maxout net has one
layer per ReLU layer.

>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(1, [DenseLayer([[2], [2]], [0, -1]), DenseLayer([[1, -2]], [0], "none")])
>>> m = relu_to_maxout(net)
>>> m.widths, m.layers[0].ranks
([2], [2, 2])
>>> all(m([x]) == net([x]) for x in ("-1", "1/3", "2/3", "2"))
True
"""

from __future__ import annotations

from ..exact import Q, flat, rows
from ..models.affine import AffineMap
from ..models.maxout import MaxoutLayer, MaxoutNet, MaxoutUnit
from ..models.relu import ReLUNet


def relu_to_maxout(net: ReLUNet) -> MaxoutNet:
    """The maxout net equal to ``net`` everywhere on R^d."""
    layers: list[MaxoutLayer] = []
    pending: AffineMap | None = None  # affine layers not yet absorbed
    for layer in net.layers:
        aff = layer.affine if pending is None else layer.affine.compose(pending)
        if layer.activation == "none":
            pending = aff
            continue
        pending = None
        zero_row = [Q(0)] * aff.input_dim
        units = [
            MaxoutUnit([zero_row, list(w)], [Q(0), c], input_dim=aff.input_dim)
            for w, c in zip(rows(aff.exact_W), flat(aff.exact_b))
        ]
        layers.append(MaxoutLayer(units))
    if not layers:
        # a purely affine net: one layer of rank-1 units, identity read-out
        units = [MaxoutUnit([list(w)], [c], input_dim=pending.input_dim) for w, c in zip(rows(pending.exact_W), flat(pending.exact_b))]
        return MaxoutNet(net.input_dim, [MaxoutLayer(units)])
    return MaxoutNet(net.input_dim, layers, pending)


