"""ReLU networks: dense layers with activation ``relu`` or ``none``."""

from __future__ import annotations

import functools

from typing import Sequence

from ..errors import DimensionError, InputError
from ..exact import Matrix, Q, from_rationals, rows
from ..exact.scaled import ScaledBatch, integer_affine
from .affine import AffineMap
from .base import Model, chain_widths, check_dim, input_symbols, require_seq

ACTIVATIONS = ("relu", "none")


class DenseLayer:
    """``x -> act(W x + b)`` with ``act`` in ``("relu", "none")``."""

    def __init__(self, W, b=None, activation: str = "relu", *, input_dim: int | None = None, path: str = "layer",
                 exact_floats: bool = False):
        if activation not in ACTIVATIONS:
            raise InputError(f'expected activation "relu" or "none", got {activation!r}', path=f"{path}.activation")
        self.affine = AffineMap(W, b, input_dim=input_dim, path=path, exact_floats=exact_floats)
        self.activation = activation
        self.input_dim, self.output_dim = self.affine.input_dim, self.affine.output_dim

    @functools.cached_property
    def _integer_form(self):
        """``W, b`` in common-denominator integer form (made on first use)."""
        return integer_affine(self.affine.exact_W, self.affine.exact_b)

    def apply_batch(self, X: Matrix) -> Matrix:
        Y = self.affine._evaluate_batch(X)
        if self.activation == "relu":
            zero = Q(0)
            Y = from_rationals([[v if v > zero else zero for v in r] for r in rows(Y)], Y.shape)
        return Y

    def apply_scaled(self, X: ScaledBatch) -> ScaledBatch:
        """The layer on a batch in common-denominator form (:mod:`symrel.exact.scaled`)."""
        Y = X.affine(*self._integer_form)
        return (Y.relu() if self.activation == "relu" else Y).reduced()

    def __eq__(self, other):
        return isinstance(other, DenseLayer) and self.activation == other.activation and self.affine == other.affine

    def __repr__(self):
        return f"DenseLayer({self.input_dim} -> {self.output_dim}, {self.activation})"


class ReLUNet(Model):
    """A feed-forward ReLU network.

    >>> net = ReLUNet(1, [DenseLayer([[2], [2]], [0, -1]), DenseLayer([[1, -2]], [0], "none")])
    >>> [str(net([x])[0]) for x in ("0", "1/4", "1/2", "3/4", "1")]
    ['0', '1/2', '1', '1/2', '0']
    """

    kind = "relu"

    def __init__(self, input_dim: int, layers: Sequence[DenseLayer], *, path: str = ""):
        p = f"{path}." if path else ""
        self.input_dim = check_dim(input_dim, "input_dim", f"{p}input_dim")
        require_seq(layers, "layers", f"{p}layers", min_len=1)
        self.layers = list(layers)
        self.output_dim = chain_widths(self.input_dim, self.layers, "W with {width} columns", p, ".W")

    @property
    def widths(self) -> list[int]:
        return [layer.output_dim for layer in self.layers]

    @property
    def num_relus(self) -> int:
        return sum(layer.output_dim for layer in self.layers if layer.activation == "relu")

    def _evaluate_batch(self, X: Matrix) -> Matrix:
        S = ScaledBatch.from_matrix(X)
        for layer in self.layers:
            S = layer.apply_scaled(S)
        return S.to_matrix()

    def num_parameters(self) -> int:
        return sum(layer.affine.num_parameters() for layer in self.layers)

    def nonzeros(self) -> int:
        return sum(layer.affine.nonzeros() for layer in self.layers)

    def sizes(self) -> dict:
        return {
            "kind": self.kind,
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "depth": len(self.layers),
            "widths": self.widths,
            "relus": self.num_relus,
            "parameters": self.num_parameters(),
            "nonzeros": self.nonzeros(),
        }

    def to_sympy(self, symbols=None):
        """The outputs as sympy expressions (``Max(0, ...)`` for each ReLU)."""
        import sympy

        exprs = list(symbols if symbols is not None else input_symbols(self.input_dim))
        for layer in self.layers:
            exprs = layer.affine.to_sympy(exprs)
            if layer.activation == "relu":
                exprs = [sympy.Max(0, e) for e in exprs]
        return exprs

    def __eq__(self, other):
        return isinstance(other, ReLUNet) and self.input_dim == other.input_dim and self.layers == other.layers

    def __repr__(self):
        return f"ReLUNet(input_dim={self.input_dim}, widths={self.widths})"
