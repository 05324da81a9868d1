"""Maxout layer -> three Transformer blocks (docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32, Paper A Thm 3.1).

For a layer of q units, unit i with pieces ``l_ij(v) = a_ij . v + c_ij`` (j = 1..k_i),
reading ``v`` from the slots X, with gating bound B (``|l_ij| <= B`` on the layer's input):

1. :func:`gating_block` (feed-forward): hidden unit
   ``u_ij = ReLU(a_ij . X + 2B P_j + (c_ij - B) C)``, update ``S_i += sum_j u_ij - B``.
   At token j, ``u_ij = l_ij + B``; at every other token ``u_ij = 0``; so token j holds
   ``S_i = l_ij`` and every other token (the carrier, and tokens beyond k_i) ``-B``.
2. :func:`max_block` (attention): head i has query C, key S_i, value S_i and writes O_i.
   Value = score, so hardmax returns ``max_t S_i(t) = max(-B, l_i1, ..) = h_i`` on every
   token, whatever the ties.
3. :func:`move_block` (feed-forward): the linear move ``X <- (O, 0)``, ``S <- 0``,
   ``O <- 0``, each change ``delta`` written ``ReLU(delta) - ReLU(-delta)``.

>>> from symrel.models import MaxoutLayer, MaxoutUnit
>>> from symrel.compiler.bases import Layout
>>> L = Layout(input_dim=1, x_width=1, tokens=3, units=1)
>>> b1, b2, b3 = layer_blocks(MaxoutLayer([MaxoutUnit([[1], [-1]])]), 1, L)
>>> b1.feedforward.hidden, len(b2.attention.heads), b3.feedforward.hidden
(2, 1, 6)
"""

from __future__ import annotations

from ..exact import Q, Rational, flat, rows
from ..models import Attention, AttentionHead, Block, FeedForward, MaxoutLayer
from .bases import Layout, SlotMatrix


def gating_block(layer: MaxoutLayer, B: Rational, layout: Layout) -> Block:
    """Block 1: every piece gated onto its own token through the position one-hot."""
    pieces = [(i, j, w, c) for i, unit in enumerate(layer.units)
              for j, (w, c) in enumerate(zip(rows(unit.pieces.exact_W), flat(unit.pieces.exact_b)))]
    m = layout.width
    W1, W2 = SlotMatrix(len(pieces), m), SlotMatrix(m, len(pieces))
    b2 = SlotMatrix(m, 1)
    for h, (i, j, w, c) in enumerate(pieces):
        for r, a in enumerate(w):
            if a:
                W1.set(h, layout.X(r), a)                  # a_ij . X
        W1.set(h, layout.P(j + 1), 2 * B)                  # + 2B P_j   (token j = piece j)
        W1.set(h, layout.C, c - B)                         # + (c_ij - B) C
        W2.set(layout.S(i), h, 1)                          # S_i += u_ij
    for i in range(layer.output_dim):
        b2.set(layout.S(i), 0, -B)                         # S_i -= B
    return Block(None, FeedForward(W1.build(), [Q(0)] * len(pieces), W2.build(), flat(b2.build())))


def max_block(layer: MaxoutLayer, layout: Layout) -> Block:
    """Block 2: one hardmax head per unit, query C, key = value = S_i, output O_i."""
    m = layout.width
    heads = []
    for i in range(layer.output_dim):
        WQ, WK, WV, WO = SlotMatrix(1, m), SlotMatrix(1, m), SlotMatrix(1, m), SlotMatrix(m, 1)
        WQ.set(0, layout.C, 1)
        WK.set(0, layout.S(i), 1)
        WV.set(0, layout.S(i), 1)
        WO.set(layout.O(i), 0, 1)
        heads.append(AttentionHead(WQ.build(), WK.build(), WV.build(), WO.build()))
    return Block(Attention(heads, "hardmax"), None)


def move_block(layer: MaxoutLayer, layout: Layout) -> Block:
    """Block 3: ``X <- (O, 0)``, ``S <- 0``, ``O <- 0`` as ``u = ReLU(u) - ReLU(-u)``.

    Only slots that can be nonzero are touched: X_r for r below the layer's input or
    output width, S_i and O_i for the layer's units."""
    q, n = layer.output_dim, layer.input_dim
    changes: list[tuple[int, dict[int, int]]] = []      # (slot, delta as {slot: coefficient})
    for r in range(max(n, q)):
        delta = {layout.X(r): -1}
        if r < q:
            delta[layout.O(r)] = 1
        changes.append((layout.X(r), delta))
    for i in range(q):
        changes.append((layout.S(i), {layout.S(i): -1}))
        changes.append((layout.O(i), {layout.O(i): -1}))
    m = layout.width
    W1, W2 = SlotMatrix(2 * len(changes), m), SlotMatrix(m, 2 * len(changes))
    for k, (slot, delta) in enumerate(changes):
        for sign, h in ((1, 2 * k), (-1, 2 * k + 1)):
            for col, a in delta.items():
                W1.set(h, col, sign * a)
            W2.set(slot, h, sign)
    return Block(None, FeedForward(W1.build(), [Q(0)] * (2 * len(changes)), W2.build(), [Q(0)] * m))


def layer_blocks(layer: MaxoutLayer, B: Rational, layout: Layout) -> list[Block]:
    """The three blocks of one maxout layer."""
    return [gating_block(layer, B, layout), max_block(layer, layout), move_block(layer, layout)]
