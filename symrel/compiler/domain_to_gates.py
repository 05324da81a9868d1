"""Domain -> gating bounds: the exact B of every maxout layer (docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32).

A polytope domain is first replaced by its exact bounding box
(:func:`symrel.models.domain.polytope_box`).

Block 1 of layer l gates piece j of unit i onto token j with
``ReLU(l_ij + 2B P_j - B)``, which is right exactly when ``|l_ij| <= B`` on the layer's
input set. The input set of layer 1 is the domain's box; the input set of layer l+1 is
(contained in) the box of the exact ranges of layer l's units, obtained by interval
propagation: a piece ``a.v + c`` over a box has the exact range of
:func:`symrel.exact.affine_range_on_box`, and a unit ``max_j l_j`` lies in
``[max_j lo_j, max_j hi_j]``. ``B_l`` is the largest ``|lo|, |hi|`` over the pieces of
layer l, plus the margin. Cost: O(parameters of the net).

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[2], [-1]], [0, 1])])])
>>> [str(g.bound) for g in gating_bounds(net, Box([[-1, 1]]))]
['2']
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..exact import Public, Q, Rational, affine_range_on_box, flat, rational, rows
from ..models import Box, Domain, MaxoutNet, Polytope
from ..models.domain import polytope_box


@dataclass
class Gate:
    """The gating bound of one maxout layer: ``bound`` = B (margin included), the exact
    ``piece_bound`` max |l_ij| over the layer's input box, the indices of the layer's
    three blocks, and the exact ranges of its units (the next layer's input box). The
    numbers read as sympy Rationals (:mod:`symrel.exact.public`)."""

    layer: int
    bound: Rational = Public()
    piece_bound: Rational = Public()
    blocks: tuple[int, int, int]
    unit_ranges: list[tuple[Rational, Rational]] = Public()

    def to_json(self) -> dict:
        from ..exact import format_rational as f

        return {"layer": self.layer, "B": f(self.bound), "piece_bound": f(self.piece_bound),
                "blocks": list(self.blocks), "unit_ranges": [[f(lo), f(hi)] for lo, hi in self.unit_ranges]}


def domain_box(domain: Domain) -> list[tuple[Rational, Rational]]:
    """The box the gating bounds are computed on: a box domain itself, or the exact
    bounding box of a bounded polytope (:func:`symrel.models.domain.polytope_box`)."""
    if isinstance(domain, Box):
        return list(domain.exact_bounds)
    if isinstance(domain, Polytope):
        return polytope_box(domain)[0]
    raise InputError(f"expected a box or polytope domain, got {domain.kind}", path="domain.kind")


def unit_ranges(layer, box) -> tuple[list[tuple[Rational, Rational]], Rational]:
    """The exact ranges of every unit of ``layer`` over ``box`` and max |piece| over it."""
    ranges, biggest = [], Q(0)
    for unit in layer.units:
        los, his = [], []
        for w, c in zip(rows(unit.pieces.exact_W), flat(unit.pieces.exact_b)):
            lo, hi = affine_range_on_box(w, c, box)
            los.append(lo)
            his.append(hi)
            biggest = max(biggest, -lo, hi)
        ranges.append((max(los), max(his)))
    return ranges, biggest


def gating_bounds(net: MaxoutNet, domain: Domain, margin=0, bounds=None) -> list[Gate]:
    """The gate of every layer of ``net`` on ``domain``; ``margin`` enlarges every B.

    ``bounds`` (one rational per layer) overrides the computed B: it is meant for
    tests that build deliberately broken constructions (B too small).
    """
    margin = rational(margin, path="margin")
    if margin < 0:
        raise InputError(f"expected a margin >= 0, got {margin}", path="margin")
    if bounds is not None and len(bounds) != net.depth:
        raise InputError(f"expected {net.depth} gating bounds, one per layer, got {len(bounds)}", path="bounds")
    box = domain_box(domain)
    if len(box) != net.input_dim:
        raise InputError(f"expected a domain of dimension {net.input_dim}, got {len(box)}", path="domain.bounds")
    gates = []
    for li, layer in enumerate(net.layers):
        ranges, biggest = unit_ranges(layer, box)
        B = biggest + margin if bounds is None else rational(bounds[li], path=f"bounds[{li}]")
        gates.append(Gate(li, B, biggest, (3 * li, 3 * li + 1, 3 * li + 2), ranges))
        box = ranges
    return gates
