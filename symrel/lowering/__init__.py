"""Models lowered to one program each (the IR every analysis reads): maxout, ReLU,
CPWL of one variable, CPWL on a simplicial mesh, hardmax and softmax Transformers.

:func:`lower` dispatches on the model's class through :data:`LOWERINGS`; a new model
kind adds its ``x_to_program`` module and one :func:`register_lowering` line here.
Layer: right above ``models`` (it imports only errors, exact and models).
"""

from ..models import CPWL1D, CPWLMesh, MaxoutNet, ReLUNet, Transformer
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
from .registry import LOWERINGS, lower, register_lowering
from .relu_to_program import relu_to_program
from .transformer_to_program import transformer_to_program

register_lowering(MaxoutNet, maxout_to_program)
register_lowering(ReLUNet, relu_to_program)
register_lowering(CPWL1D, cpwl1d_to_program)
register_lowering(CPWLMesh, cpwl_mesh_to_program)
register_lowering(Transformer, transformer_to_program)

__all__ = [n for n in dir() if not n.startswith("_")]
