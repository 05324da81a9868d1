"""Exact models: affine maps, maxout and ReLU nets, CPWL functions, Transformers, domains."""

from .affine import AffineMap
from .base import Model, as_batch, as_point, input_symbols
from .cpwl import CPWL1D
from .cpwl_mesh import CPWLMesh
from .delaunay import delaunay_mesh, delaunay_triangles
from .freudenthal import freudenthal_mesh
from .cpwl_mesh_lattice import Lattice, cpwl_mesh_to_maxout, lattice_forms, lattice_to_maxout
from .cpwl_wang_sun import WangSunForm, wang_sun_forms, wang_sun_mismatch, wang_sun_to_maxout
from .max_to_small_maxes import max_as_small_maxes
from .cpwl_to_maxout import cpwl_to_maxout, lattice_sets
from .domain import Box, Domain, Polytope, polytope_box
from .maxout import MaxoutLayer, MaxoutNet, MaxoutUnit
from .relu import DenseLayer, ReLUNet
from .relu_to_maxout import relu_to_maxout
from .sequence import (
    SequenceAttention,
    SequenceHead,
    SequenceLayer,
    SequenceMLP,
    SequenceTransformer,
    Tie,
    all_sequences,
    count_sequences,
)
from .transformer import (
    Attention,
    AttentionHead,
    Block,
    Embedding,
    FeedForward,
    Readout,
    Transformer,
    argmax_set,
    hardmax,
)


def to_maxout(model) -> MaxoutNet:
    """Any model with a maxout form (maxout, ReLU, CPWL1D, CPWL on a mesh) as a maxout net.

    >>> to_maxout(CPWL1D([0, 1], [0, 1])).widths
    [1, 1]
    """
    from ..errors import InputError

    if isinstance(model, MaxoutNet):
        return model
    if isinstance(model, ReLUNet):
        return relu_to_maxout(model)
    if isinstance(model, CPWL1D):
        return cpwl_to_maxout(model)
    if isinstance(model, CPWLMesh):
        return cpwl_mesh_to_maxout(model)
    raise InputError(f"expected a maxout, relu, cpwl1d or cpwl model, got {getattr(model, 'kind', type(model).__name__)}", path="kind")


__all__ = [n for n in dir() if not n.startswith("_")]
