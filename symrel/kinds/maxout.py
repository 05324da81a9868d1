"""The ``maxout`` kind: maxout nets with an optional affine read-out.

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit
>>> MAXOUT.describe(MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])]))
'a maxout net (widths [1], rank <= 2)'
"""

from __future__ import annotations

from ..model_kinds import Lazy, ModelKind, register
from ..models.maxout import MaxoutNet


def describe(net: MaxoutNet) -> str:
    """The net in a claim's words: its widths and largest rank."""
    s = net.sizes()
    return f"a maxout net (widths {s['widths']}, rank <= {s['max_rank']})"


MAXOUT = register(ModelKind(
    name="maxout", model=MaxoutNet, summary="a maxout net",
    read=Lazy("symrel.fileformat.models_io", "read_maxout"),
    write=Lazy("symrel.fileformat.models_io", "write_maxout"),
    lower=Lazy("symrel.lowering.maxout_to_program", "maxout_to_program"),
    forms=Lazy("symrel.prover.maxout_to_forms", "maxout_forms"),
    describe=describe,
    to_maxout=lambda net: net,
    to_layered=Lazy("symrel.models.layered", "from_maxout_net"),
    trace=Lazy("symrel.interop.exact_trace", "layers_trace"),
    restrict_to_slice=Lazy("symrel.regions.slices", "maxout_slice"),
    continuous=True,
))
