"""The ``layered`` kind: nets as a sequence of operators (sparse affine maps, ReLU, max over
groups), the form of convolutional nets and of anything too large for dense matrices.

>>> from symrel.models import LayeredNet, Relu, SparseAffine
>>> LAYERED.describe(LayeredNet(2, [SparseAffine([[(0, 1), (1, -1)]]), Relu(1)]))
'a layered net (affine 2 -> 1 (2 entries), relu 1)'
"""

from __future__ import annotations

from ..model_kinds import Lazy, ModelKind, register
from ..models.layered import LayeredNet


def describe(net: LayeredNet) -> str:
    """The net in a claim's words: its operators."""
    return f"a layered net ({', '.join(op.describe() for op in net.ops)})"


LAYERED = register(ModelKind(
    name="layered", model=LayeredNet, summary="a layered net (sparse affine, ReLU and max operators)",
    read=Lazy("symrel.fileformat.models_io", "read_layered"),
    write=Lazy("symrel.fileformat.models_io", "write_layered"),
    lower=Lazy("symrel.lowering.layered_to_program", "layered_to_program"),
    describe=describe,
    to_layered=lambda net: net,
    continuous=True,
))
