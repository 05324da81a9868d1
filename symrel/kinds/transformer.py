"""The ``transformer`` kind: hardmax (and softmax) Transformers on a fixed number of tokens.

A hardmax Transformer need not be continuous (at ties of its attention scores), so the
kind is not marked continuous.

>>> from symrel.models import Transformer
>>> TRANSFORMER.continuous, TRANSFORMER.has("to_maxout")
(False, False)
"""

from __future__ import annotations

from ..model_kinds import Lazy, ModelKind, register
from ..models.transformer import Transformer


def describe(t: Transformer) -> str:
    """The Transformer in a claim's words (not ``sizes()``: counting its nonzeros took 0.3 s
    of an open claim's end)."""
    return f"a hardmax Transformer ({t.tokens} tokens, width {t.width}, {len(t.blocks)} blocks)"


TRANSFORMER = register(ModelKind(
    name="transformer", model=Transformer, summary="a Transformer",
    read=Lazy("symrel.fileformat.models_io", "read_transformer"),
    write=Lazy("symrel.fileformat.models_io", "write_transformer"),
    lower=Lazy("symrel.lowering.transformer_to_program", "transformer_to_program"),
    forms=Lazy("symrel.prover.transformer_to_forms", "transformer_forms"),
    describe=describe,
    trace=Lazy("symrel.interop.exact_trace", "transformer_trace"),
))
