"""Input -> embedding: ``X = x`` (zero padded), ``P = e_t``, ``C = 1``, ``S = O = 0``.

>>> from symrel.compiler.bases import Layout
>>> emb = embedding(Layout(input_dim=1, x_width=1, tokens=2, units=1))
>>> from symrel.exact import format_matrix
>>> format_matrix(emb.embed([5]).transpose())
[[5, 1, 0, 1, 0, 0], [5, 0, 1, 1, 0, 0]]
"""

from __future__ import annotations

from ..models import Embedding
from .bases import Layout, SlotMatrix


def embedding(layout: Layout) -> Embedding:
    """The embedding of the layout: input i into slot ``X_i``; token t gets ``P_t`` and ``C``."""
    offsets = SlotMatrix(layout.tokens, layout.width)  # T rows of m numbers (docs/format.md)
    for t in range(layout.tokens):
        offsets.set(t, layout.P(t), 1)
        offsets.set(t, layout.C, 1)
    return Embedding([layout.X(i) for i in range(layout.input_dim)], offsets.build(),
                     width=layout.width, tokens=layout.tokens)
