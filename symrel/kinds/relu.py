"""The ``relu`` kind: ReLU nets (dense layers, ReLU or no activation).

>>> from symrel.models import ReLUNet, DenseLayer
>>> RELU.describe(ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")]))
'a ReLU net (widths [2, 1])'
"""

from __future__ import annotations

from ..model_kinds import Lazy, ModelKind, register
from ..models.relu import ReLUNet


def describe(net: ReLUNet) -> str:
    """The net in a claim's words: its widths."""
    return f"a ReLU net (widths {net.sizes()['widths']})"


RELU = register(ModelKind(
    name="relu", model=ReLUNet, summary="a ReLU net",
    read=Lazy("symrel.fileformat.models_io", "read_relu"),
    write=Lazy("symrel.fileformat.models_io", "write_relu"),
    lower=Lazy("symrel.lowering.relu_to_program", "relu_to_program"),
    forms=Lazy("symrel.prover.relu_to_forms", "relu_net_forms"),
    describe=describe,
    to_layered=Lazy("symrel.models.layered", "from_relu_net"),
    to_maxout=Lazy("symrel.constructions.relu_to_maxout", "relu_to_maxout"),
    trace=Lazy("symrel.interop.exact_trace", "layers_trace"),
    restrict_to_slice=Lazy("symrel.regions.slices", "relu_slice"),
    continuous=True,
))
