"""Maxout units, layers and networks (docs/theory.md#conventions).

A maxout unit of rank k is ``h(x) = max_j (w_j . x + b_j)``; a layer is q units
reading the same input; a net composes layers and ends with an optional affine
read-out (the identity when absent). ReLU is the rank-2 unit ``max(0, z)``.
"""

from __future__ import annotations

import functools

from typing import Sequence

from ..errors import DimensionError, InputError
from ..exact import Matrix, Rational, vstack
from ..exact.scaled import ScaledBatch, integer_affine
from .affine import AffineMap
from .base import Model, chain_widths, check_dim, input_symbols, require_seq


class MaxoutUnit:
    """One maxout unit: its pieces are the rows of an affine map.

    >>> u = MaxoutUnit([[1], [-1]], [0, 0])      # |x|
    >>> str(u.evaluate([-3]))
    '3'
    """

    def __init__(self, W, b=None, *, input_dim: int | None = None, path: str = "unit", exact_floats: bool = False):
        self.pieces = AffineMap(W, b, input_dim=input_dim, path=path, exact_floats=exact_floats)
        if self.pieces.output_dim < 1:
            raise InputError("expected at least one piece", path=f"{path}.pieces")

    @classmethod
    def from_pieces(cls, pieces: Sequence[tuple[Sequence, object]], input_dim: int | None = None, path="unit",
                    exact_floats: bool = False):
        """A unit from ``[(w, b), ...]``."""
        return cls([list(w) for w, _ in pieces], [b for _, b in pieces], input_dim=input_dim, path=path,
                   exact_floats=exact_floats)

    @property
    def rank(self) -> int:
        return self.pieces.output_dim

    @property
    def input_dim(self) -> int:
        return self.pieces.input_dim

    def evaluate(self, x, *, exact_floats: bool = False):
        """The unit's value at ``x`` (a sympy Rational)."""
        return max(self.pieces.evaluate(x, exact_floats=exact_floats))

    def __eq__(self, other):
        return isinstance(other, MaxoutUnit) and self.pieces == other.pieces

    def __repr__(self):
        return f"MaxoutUnit(rank={self.rank}, input_dim={self.input_dim})"


class MaxoutLayer:
    """q maxout units reading the same input; output ``(h_1(x), ..., h_q(x))``.

    >>> layer = MaxoutLayer([MaxoutUnit([[1], [-1]]), MaxoutUnit([[1], [0]])])
    >>> [str(v) for v in layer.evaluate([-2])]
    ['2', '0']
    """

    def __init__(self, units: Sequence[MaxoutUnit], *, path: str = "layer"):
        require_seq(units, "units", f"{path}.units", min_len=1)
        self.units = list(units)
        dims = {u.input_dim for u in self.units}
        if len(dims) != 1:
            raise DimensionError(f"expected all units to read the same input size, got sizes {sorted(dims)}", path=path)
        self.input_dim = dims.pop()
        self.output_dim = len(self.units)
        self._ranks = [u.rank for u in self.units]

    @functools.cached_property
    def _stacked(self) -> AffineMap:
        """All pieces stacked: one matrix product evaluates the whole layer on a batch (made
        on first use: reading a net, as a certificate check does, never needs it)."""
        return AffineMap(vstack(*[u.pieces.exact_W for u in self.units]), vstack(*[u.pieces.exact_b for u in self.units]))

    @functools.cached_property
    def _integer_form(self):
        return integer_affine(self._stacked.exact_W, self._stacked.exact_b)

    @property
    def ranks(self) -> list[int]:
        return list(self._ranks)

    def apply_batch(self, X: Matrix) -> Matrix:
        """The layer on an ``input_dim x N`` batch: one product, then a max per unit."""
        return self.apply_scaled(ScaledBatch.from_matrix(X)).to_matrix()

    def apply_scaled(self, X: ScaledBatch) -> ScaledBatch:
        """The layer on a batch in common-denominator form (one integer product, then
        integer maxima: see :mod:`symrel.exact.scaled`)."""
        return X.affine(*self._integer_form).max_groups(self._ranks).reduced()

    def evaluate(self, x, *, exact_floats: bool = False) -> list:
        """The layer's outputs at ``x`` (sympy Rationals)."""
        from ..exact import flat, to_sympy, vector
        from .base import as_point

        return [to_sympy(v) for v in flat(self.apply_batch(vector(as_point(x, self.input_dim, exact_floats=exact_floats))))]

    def num_parameters(self) -> int:
        return sum(u.pieces.num_parameters() for u in self.units)

    def nonzeros(self) -> int:
        return sum(u.pieces.nonzeros() for u in self.units)

    def __eq__(self, other):
        return isinstance(other, MaxoutLayer) and self.units == other.units

    def __repr__(self):
        return f"MaxoutLayer(units={self.output_dim}, ranks={self._ranks})"


class MaxoutNet(Model):
    """A maxout network: maxout layers, then an affine read-out.

    >>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])], AffineMap([[2]], [1]))
    >>> [str(v) for v in net([-3])]
    ['7']
    >>> net.to_sympy()
    [2*Max(-x1, x1) + 1]
    """

    kind = "maxout"

    def __init__(self, input_dim: int, layers: Sequence[MaxoutLayer], readout: AffineMap | None = None, *, path: str = ""):
        p = f"{path}." if path else ""
        self.input_dim = check_dim(input_dim, "input_dim", f"{p}input_dim")
        require_seq(layers, "layers", f"{p}layers", min_len=1)
        self.layers = list(layers)
        width = chain_widths(self.input_dim, self.layers, "units reading {width} inputs", p)
        if readout is not None and readout.input_dim != width:
            raise DimensionError(f"expected a read-out taking {width} inputs, got {readout.input_dim}", path=f"{p}readout.W")
        self.readout = readout
        self.output_dim = readout.output_dim if readout is not None else width

    @property
    def widths(self) -> list[int]:
        return [layer.output_dim for layer in self.layers]

    @property
    def depth(self) -> int:
        return len(self.layers)

    def _evaluate_batch(self, X: Matrix) -> Matrix:
        S = ScaledBatch.from_matrix(X)
        for layer in self.layers:
            S = layer.apply_scaled(S)
        if self.readout is not None:
            S = S.affine(*integer_affine(self.readout.exact_W, self.readout.exact_b))
        return S.to_matrix()

    def hidden_batch(self, points, *, path: str = "inputs", exact_floats: bool = False) -> list[list[list]]:
        """The outputs of every layer (before the read-out) at N points (a list, an array, or
        an ``input_dim x N`` matrix, as :meth:`~symrel.models.base.Model.evaluate_batch`
        reads them): per layer, N lists of the layer's unit values (points x units), as
        sympy Rationals.

        Cost: one exact batch product per layer.

        >>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]]), MaxoutUnit([[1], [0]])])])
        >>> net.hidden_batch([[-3], ["1/2"]])
        [[[3, 0], [1/2, 1/2]]]
        """
        from ..exact import columns, to_public
        from .base import as_batch

        X = as_batch(points, self.input_dim, path=path, exact_floats=exact_floats)
        return [to_public(columns(H)) for H in self._hidden_batch(X)]

    def _hidden_batch(self, X: Matrix) -> list[Matrix]:
        """The ``units x N`` matrices over ``QQ`` of every layer on the batch ``X`` (``input_dim x N``)."""
        out = []
        for layer in self.layers:
            X = layer.apply_batch(X)
            out.append(X)
        return out

    def num_parameters(self) -> int:
        n = sum(layer.num_parameters() for layer in self.layers)
        return n + (self.readout.num_parameters() if self.readout is not None else 0)

    def nonzeros(self) -> int:
        n = sum(layer.nonzeros() for layer in self.layers)
        return n + (self.readout.nonzeros() if self.readout is not None else 0)

    def sizes(self) -> dict:
        """Sizes for reports: depth, widths, ranks, parameters, nonzeros."""
        return {
            "kind": self.kind,
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "depth": self.depth,
            "widths": self.widths,
            "max_rank": max(max(layer.ranks) for layer in self.layers),
            "parameters": self.num_parameters(),
            "nonzeros": self.nonzeros(),
        }

    def to_sympy(self, symbols=None):
        """The outputs as sympy expressions: nested ``Max`` of affine forms."""
        import sympy

        exprs = list(symbols if symbols is not None else input_symbols(self.input_dim))
        for layer in self.layers:
            exprs = [sympy.Max(*u.pieces.to_sympy(exprs)) for u in layer.units]
        if self.readout is not None:
            exprs = self.readout.to_sympy(exprs)
        return exprs

    def __eq__(self, other):
        return (
            isinstance(other, MaxoutNet)
            and self.input_dim == other.input_dim
            and self.layers == other.layers
            and self.readout == other.readout
        )

    def __repr__(self):
        return f"MaxoutNet(input_dim={self.input_dim}, widths={self.widths}, output_dim={self.output_dim})"
