"""Cheap structural checks of a compilation (no proof: that is :mod:`symrel.prover`).

Checks that the Transformer has the shape the construction promises: 3 blocks per
maxout layer (feed-forward / attention / feed-forward), one hardmax head per unit,
the embedding writing x into X and the one-hot position and constant into P and C,
a read-out at the carrier, and gating bounds ``B >= 0``. Cost O(blocks + heads).

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> from symrel.compiler import compile_maxout
>>> comp = compile_maxout(MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])]), Box([[-1, 1]]))
>>> validate(comp)
[]
"""

from __future__ import annotations

from ..exact import Q, rows


def validate(comp) -> list[str]:
    """The structural problems of ``comp`` (an empty list when there are none)."""
    t, L, net = comp.transformer, comp.layout, comp.source
    problems = []
    if (t.width, t.tokens) != (L.width, L.tokens):
        problems.append(f"width/tokens {t.width}/{t.tokens} differ from the layout's {L.width}/{L.tokens}")
    if len(t.blocks) != 3 * net.depth:
        problems.append(f"expected {3 * net.depth} blocks (3 per maxout layer), got {len(t.blocks)}")
        return problems
    for gate, layer in zip(comp.gates, net.layers):
        b1, b2, b3 = (t.blocks[i] for i in gate.blocks)
        where = f"layer {gate.layer}"
        if gate.bound < 0:
            problems.append(f"{where}: gating bound B = {gate.bound} is negative")
        if b1.attention is not None or b1.feedforward is None:
            problems.append(f"{where}: block {gate.blocks[0]} should be feed-forward only")
        if b3.attention is not None or b3.feedforward is None:
            problems.append(f"{where}: block {gate.blocks[2]} should be feed-forward only")
        if b2.feedforward is not None or b2.attention is None:
            problems.append(f"{where}: block {gate.blocks[1]} should be attention only")
        elif b2.attention.rule != "hardmax" or len(b2.attention.heads) != layer.output_dim:
            problems.append(f"{where}: block {gate.blocks[1]} should have {layer.output_dim} hardmax heads")
    if t.embedding.input_rows != [L.X(i) for i in range(L.input_dim)]:
        problems.append("embedding: inputs should go into the slots X_0..X_(d-1)")
    offsets = rows(t.embedding.exact_offsets)  # m x T
    for tok in range(L.tokens):
        want = {L.P(tok), L.C}
        got = {r for r in range(L.width) if offsets[r][tok] != 0}
        if got != want or any(offsets[r][tok] != Q(1) for r in want):
            problems.append(f"embedding: token {tok} should carry P_{tok} = 1 and C = 1 only")
    if t.readout.token != 0:
        problems.append("read-out: should read the carrier token 0")
    return problems
