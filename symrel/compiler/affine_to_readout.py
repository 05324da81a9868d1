"""Affine read-out of the maxout net -> Transformer read-out at the carrier token.

After the last block 3 the slots X of every token hold the last layer's outputs, so
the net's read-out ``W h + b`` becomes ``W' . Z[:, 0] + b`` with W placed on the X slots
(the identity read-out when the net has none).

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit
>>> from symrel.compiler.bases import Layout
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])])
>>> r = readout(net, Layout(input_dim=1, x_width=1, tokens=3, units=1))
>>> r.token, r.W.row(0)
(0, Matrix([[1, 0, 0, 0, 0, 0, 0]]))
"""

from __future__ import annotations

from ..exact import Q, flat, identity, rows
from ..models import MaxoutNet, Readout
from .bases import Layout, SlotMatrix


def readout(net: MaxoutNet, layout: Layout) -> Readout:
    """The Transformer read-out equal to the net's read-out applied to the slots X."""
    q = net.widths[-1]
    W, b = (net.readout.exact_W, flat(net.readout.exact_b)) if net.readout is not None else (identity(q), [Q(0)] * q)
    out = SlotMatrix(W.shape[0], layout.width)
    for k, row in enumerate(rows(W)):
        for r, a in enumerate(row):
            if a:
                out.set(k, layout.X(r), a)
    return Readout(0, out.build(), b, width=layout.width, tokens=layout.tokens)
