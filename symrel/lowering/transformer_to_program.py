"""A Transformer as a program: the embedding, then per block its attention and its
feed-forward sublayer (each a stage, when present), then the read-out.

>>> from symrel.compiler import compile_maxout
>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> t = compile_maxout(MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])]), Box([[-1, 1]])).transformer
>>> p = transformer_to_program(t)
>>> [s.name for s in p.stages][:3], p.blocks == len(t.blocks)
(['embedding', 'blocks[0].feedforward', 'blocks[1].attention'], True)
"""

from __future__ import annotations

from ..exact import Q, from_rationals
from ..models import Transformer
from .program import AttentionOp, Embed, FeedForwardOp, Head, Program, ReadoutOp, Stage


def transformer_to_program(t: Transformer) -> Program:
    """The program of ``t``. Cost O(parameters) (the matrices are shared)."""
    m, T, d = t.width, t.tokens, t.input_dim
    E = [[Q(0)] * d for _ in range(m)]
    for i, r in enumerate(t.embedding.input_rows):
        E[r][i] += 1
    stages = [Stage("embedding", [Embed(from_rationals(E, (m, d)), t.embedding.exact_offsets,
                                        tuple(t.embedding.input_rows))])]
    for i, block in enumerate(t.blocks):
        if block.attention is not None:
            att = block.attention
            heads = [Head(*h.exact_matrices()) for h in att.heads]
            stages.append(Stage(f"blocks[{i}].attention", [AttentionOp(heads, att.rule, att.exact_scale)], block=i))
        if block.feedforward is not None:
            stages.append(Stage(f"blocks[{i}].feedforward", [FeedForwardOp(*block.feedforward.exact_matrices())], block=i))
    stages.append(Stage("readout", [ReadoutOp(t.readout.token, t.readout.exact_W, t.readout.exact_b)]))
    return Program("transformer", d, t.output_dim, stages, tokens=T, width=m, blocks=len(t.blocks), source=t)
