"""Small Transformers that exercise the float pitfalls cross-validation looks for.

* :func:`near_tie_softmax` -- a selection head whose winning key beats the others
  by ``delta`` on top of a common score 2: at ``lambda = 40000`` the scaled scores
  overflow float16 (NaN after the max shift) and the margin ``2^-10`` vanishes in
  bfloat16 (all scores round to 2, the head averages the values: a wrong answer);
* :func:`tied_values_hardmax` -- a hardmax head whose scores tie at ``x = 0`` while
  the tied tokens carry different values, so ONNX's first-maximiser Hardmax and
  symrel's average differ exactly there.

>>> T, D = near_tie_softmax()
>>> [str(v) for v in T.with_rule("hardmax")(["1/2"])]
['1/2']
>>> t = tied_values_hardmax()
>>> [str(v) for v in t([0])], [str(v) for v in t(["1/2"])]
(['1/2'], ['3/2'])
"""

from __future__ import annotations

from ..exact import Q, rational, rows
from ..models import Attention, AttentionHead, Block, Embedding, Readout, Transformer
from ..softmax.examples import selection_transformer


def near_tie_softmax(lam=40000, delta="1/1024"):
    """:func:`symrel.softmax.examples.selection_transformer` with the common
    score 2 added to every key (the winner keeps its margin ``delta``), softmax
    at ``lam``; returns ``(transformer, box)``."""
    T, D = selection_transformer(delta=rational(delta, path="delta"))
    (head,) = T.blocks[0].attention.heads
    C = T.width - 2  # the constant slot of selection_transformer: [X | P_0..P_(n-1) | C | O]
    WK = [list(r) for r in rows(head.exact_WK)]
    WK[0][C] += 2
    new = AttentionHead(head.exact_WQ, WK, head.exact_WV, head.exact_WO)
    t = Transformer(T.input_dim, T.width, T.tokens, T.embedding, [Block(Attention([new], "softmax", lam), None)],
                    T.readout)
    return t, D


def tied_values_hardmax():
    """Two tokens with offsets ``(0, +1)`` and ``(0, -1)`` in slots (x, marker);
    the query is x, the key the marker, so the scores are ``x`` and ``-x``: the
    winner is token 0 for ``x > 0``, token 1 for ``x < 0``, a tie at 0. The
    value ``(marker + 1) / 2`` is added to x's slot and read out at token 0:
    ``x + 1`` (x > 0), ``x`` (x < 0); at the tie symrel averages (``1/2``)
    and ONNX's first maximiser takes token 0 (``1``)."""
    emb = Embedding([0], [[0, 1, 1], [0, -1, 1]], width=3, tokens=2)  # slots: x, marker, one
    head = AttentionHead([[1, 0, 0]], [[0, 1, 0]], [[0, 1, 1]], [[Q(1, 2)], [0], [0]])
    return Transformer(1, 3, 2, emb, [Block(Attention([head]), None)], Readout(0, [[1, 0, 0]], width=3, tokens=2))
