"""Slices of a network's input space: ``u -> net(x0 + P u)`` as a network of its own.

Fixing some inputs and varying others (a 2-D slice, a line) composes the first
layer with the affine map ``u -> x0 + P u``; the result is an ordinary network
on the slice coordinates, so every region count applies to it unchanged.

>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(3, [DenseLayer([[1, 2, 3]], [1])])
>>> s = restrict_to_affine_slice(net, [0, 1, 1], [[1, 0, 0], [0, 0, 1]])   # vary x1 and x3
>>> [str(v) for v in s([1, 2])], [str(v) for v in net([1, 1, 3])]
(['13'], ['13'])
"""

from __future__ import annotations

from ..errors import DimensionError, InputError
from ..exact import from_columns
from ..model_kinds import kind_of, supporting
from ..models import AffineMap, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from ..models.base import as_point


def restrict_to_affine_slice(net, base_point, directions):
    """The network ``u -> net(base_point + sum_k u_k directions[k])`` (ReLU or maxout)."""
    x0 = as_point(base_point, net.input_dim, path="base_point")
    if not isinstance(directions, (list, tuple)) or not directions:
        raise InputError("expected a non-empty list of direction vectors", path="directions")
    cols = [as_point(v, net.input_dim, path=f"directions[{k}]") for k, v in enumerate(directions)]
    P = from_columns(cols, net.input_dim)
    kind = kind_of(net)
    if kind is None or kind.restrict_to_slice is None:
        raise DimensionError(f"slices are made for {', '.join(supporting('restrict_to_slice'))} nets, "
                             f"got {getattr(net, 'kind', type(net).__name__)}")
    return kind.restrict_to_slice(net, AffineMap(P, [v for v in x0]))


def relu_slice(net: ReLUNet, inner: AffineMap) -> ReLUNet:
    """The ReLU net ``net`` after ``inner``: its first layer composed with it."""
    first = net.layers[0]
    aff = first.affine.compose(inner)
    return ReLUNet(inner.input_dim, [DenseLayer(aff.exact_W, aff.exact_b, first.activation)] + net.layers[1:])


def maxout_slice(net: MaxoutNet, inner: AffineMap) -> MaxoutNet:
    """The maxout net ``net`` after ``inner``: every piece of its first layer composed with it."""
    units = []
    for u in net.layers[0].units:
        aff = u.pieces.compose(inner)
        units.append(MaxoutUnit(aff.exact_W, aff.exact_b))
    return MaxoutNet(inner.input_dim, [MaxoutLayer(units)] + net.layers[1:], net.readout)
