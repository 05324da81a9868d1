"""Exact models, their semantics: affine maps, maxout and ReLU nets, CPWL functions,
Transformers (hardmax and on sequences), domains; the data classes and exact evaluation.

Constructions that build one model from another (the maxout forms, meshes, interpolation,
random models) are :mod:`symrel.constructions`, above the checker.

The names below are imported from their module on first use (PEP 562), so that a module
that needs one model kind (the checker of one claim kind, say) loads that kind alone.

>>> from symrel.models import MaxoutNet
>>> MaxoutNet.__module__
'symrel.models.maxout'
"""

from ..lazy_names import lazy_names

#: the public names of the package and the submodule each comes from
_FROM = {
    "AffineMap": "affine",
    **dict.fromkeys(["Model", "as_batch", "as_point", "input_symbols"], "base"),
    "CPWL1D": "cpwl",
    "CPWLMesh": "cpwl_mesh",
    **dict.fromkeys(["Box", "Domain", "Polytope", "polytope_box"], "domain"),
    **dict.fromkeys(["MaxoutLayer", "MaxoutNet", "MaxoutUnit"], "maxout"),
    **dict.fromkeys(["LayeredNet", "MaxGroups", "Relu", "SparseAffine", "from_maxout_net", "from_relu_net"], "layered"),
    **dict.fromkeys(["DenseLayer", "ReLUNet"], "relu"),
    **dict.fromkeys(["SequenceAttention", "SequenceHead", "SequenceLayer", "SequenceMLP", "SequenceTransformer",
                     "Tie", "all_sequences", "count_sequences"], "sequence"),
    **dict.fromkeys(["Attention", "AttentionHead", "Block", "Embedding", "FeedForward", "Readout", "Transformer",
                     "argmax_set", "hardmax"], "transformer"),
}

__all__ = sorted(_FROM)

__getattr__, __dir__ = lazy_names(__name__, _FROM, globals())
