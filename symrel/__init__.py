"""symrel: an exact-arithmetic proof assistant for the approximation theory of
neural networks and attention.

>>> from symrel import MaxoutNet, MaxoutLayer, MaxoutUnit
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
>>> [str(v) for v in net(["-3/4"])]
['3/4']
"""

from ._version import __version__

from .errors import DimensionError, InputError, LimitError, SymrelError, UndecidedError
from .exact import rational
from .models import (
    CPWL1D,
    AffineMap,
    Attention,
    AttentionHead,
    Block,
    Box,
    DenseLayer,
    Embedding,
    FeedForward,
    MaxoutLayer,
    MaxoutNet,
    MaxoutUnit,
    Polytope,
    Readout,
    ReLUNet,
    Transformer,
    cpwl_to_maxout,
    hardmax,
    relu_to_maxout,
    to_maxout,
)
