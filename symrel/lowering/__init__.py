"""Models lowered to one program each (the IR every analysis reads): maxout, ReLU,
CPWL of one variable, CPWL on a simplicial mesh, hardmax and softmax Transformers.

:func:`lower` dispatches on the model's kind (:mod:`symrel.model_kinds`): a new model kind
adds its ``x_to_program`` module here and names it in its kind module (:mod:`symrel.kinds`).
Layer: right above ``models`` (it imports only errors, the kind table, exact and models).
"""

from .cpwl_mesh_to_program import cpwl_mesh_to_program
from .cpwl1d_to_program import cpwl1d_to_program
from .maxout_to_program import maxout_to_program
from .program import (
    Affine,
    AttentionOp,
    Embed,
    FeedForwardOp,
    Head,
    Maxout,
    Program,
    ReadoutOp,
    Relu,
    Segment,
    Simplices,
    Stage,
)
from .registry import lower
from .relu_to_program import relu_to_program
from .transformer_to_program import transformer_to_program

__all__ = [n for n in dir() if not n.startswith("_")]
