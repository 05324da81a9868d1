"""symrel: an exact-arithmetic proof assistant for the approximation theory of
neural networks and attention.

>>> from symrel import MaxoutNet, MaxoutLayer, MaxoutUnit
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
>>> [str(v) for v in net(["-3/4"])]
['3/4']

The names below are loaded when first used (PEP 562), so that ``import symrel`` (and
``symrel --version``) does not import sympy until a number or a model is needed.
"""

from importlib import import_module

from ._version import __version__
from .kind_plugins import MODEL_KIND_PACKAGES, register_kind_module

# The file-format kinds read by packages above the file format: their modules are
# imported when a file of the kind is first read.
for _kind, _module in (("preorder", "symrel.preorders.io"), ("retrieval", "symrel.preorders.io"),
                       ("relation", "symrel.relations.io"), ("relation-features", "symrel.relations.io")):
    register_kind_module(_kind, _module)
del _kind, _module
MODEL_KIND_PACKAGES.append("symrel.kinds")   # a module per model kind (symrel.model_kinds finds them by name)

#: the public names of the package and the submodule each comes from
_FROM = {
    **dict.fromkeys(["DimensionError", "InputError", "LimitError", "SymrelError", "UndecidedError"], "errors"),
    "rational": "exact", **dict.fromkeys(["verify", "Verdict", "bounds", "OutputBounds"], "verification"),
    **dict.fromkeys(["CPWL1D", "AffineMap", "Attention", "AttentionHead", "Block", "Box", "DenseLayer",
                     "Embedding", "FeedForward", "MaxoutLayer", "MaxoutNet", "MaxoutUnit", "Polytope",
                     "Readout", "ReLUNet", "Transformer", "hardmax"], "models"),
    **dict.fromkeys(["cpwl_to_maxout", "relu_to_maxout", "to_maxout"], "constructions"),
}

__all__ = ["__version__", *_FROM]


def __getattr__(name: str):
    """``symrel.NAME``: imported from its submodule on first use, then kept here; a
    subpackage (``symrel.exact``) is imported on first use too."""
    if name in _FROM:
        value = getattr(import_module(f".{_FROM[name]}", __name__), name)
    else:
        try:
            value = import_module(f".{name}", __name__)
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
