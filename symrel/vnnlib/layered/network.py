"""A layered net prepared for the search: each operator in integer form and in floats.

Definition. :func:`prepare` turns a :class:`~symrel.models.layered.LayeredNet` into an
:class:`ExactNet`, its operators in the integer forms of :mod:`~symrel.vnnlib.layered.ops` (``("affine",
IntAffine)``, ``("relu", width)``, ``("max", groups)``), and, where numpy and scipy are
installed, a :class:`FloatNet` of their float counterparts (proposals only). A
:class:`~symrel.models.MaxoutNet` or :class:`~symrel.models.ReLUNet` is converted first
(:func:`~symrel.models.layered.from_maxout_net`, :func:`~symrel.models.layered.from_relu_net`).

Cost: one pass over the stored entries (and, for the floats, one sparse matrix per affine
operator).

>>> from symrel.models.layered import LayeredNet, Relu, SparseAffine
>>> net = prepare(LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]]), Relu(2), SparseAffine([[(0, 1), (1, 1)]])]))
>>> [kind for kind, _ in net.ops], net.input_dim, net.output_dim, net.entries
(['affine', 'relu', 'affine'], 1, 1, 4)
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import InputError
from .ops.affine import int_affine


@dataclass(frozen=True)
class ExactNet:
    """The operators in integer form; ``widths[k]``: the width of the vector op ``k`` reads."""

    input_dim: int
    output_dim: int
    ops: tuple
    widths: tuple

    @property
    def entries(self) -> int:
        """Stored weights plus group members: the work of one pass over the net."""
        total = 0
        for kind, op in self.ops:
            if kind == "affine":
                total += sum(map(len, op.rows))
            elif kind == "max":
                total += sum(map(len, op))
        return total

    @property
    def size(self) -> int:
        """Stored weights, group members and vector widths: the work of one exact pass."""
        return self.entries + sum(self.widths)

    def chain_bits(self) -> int:
        """The bits one pass through the ops can add to a number: per affine op its common
        denominator, its largest integer weight or bias, and what a sum over its widths adds; per
        nonlinear op the slopes', bounds' and refinements' roundings (16 + 24 + 24 bits, and 2)."""
        total = 0
        for kind, op in self.ops:
            if kind == "affine":
                # the bits of the largest |v| (bit_length grows with |v|), the maximum taken in C
                w = max(map(abs, (v for row in op.rows for _, v in row)), default=0).bit_length()
                w = max(w, max(map(abs, op.b), default=0).bit_length())
                fan = max(len(op.rows), max(map(len, op.rows), default=0)) + 1
                total += op.D.bit_length() + w + fan.bit_length()
            else:
                total += 16 + 24 + 24 + 2
        return total

    def nonlinear(self):
        """The indices of the ReLU and max operators."""
        return [k for k, (kind, _) in enumerate(self.ops) if kind != "affine"]


def as_layered(net):
    """``net`` as a :class:`~symrel.models.layered.LayeredNet`: the kind's ``to_layered`` (a
    layered, maxout or ReLU net; symrel.model_kinds)."""
    from ...model_kinds import kind_of, supporting

    kind = kind_of(net)
    if kind is None or not kind.has("to_layered"):
        raise InputError(f"expected a model of kind {', '.join(supporting('to_layered'))}, got "
                         f"{kind.name if kind else type(net).__name__}", path="network")
    return kind.to_layered(net)


def prepare(net) -> ExactNet:
    """The :class:`ExactNet` of ``net`` (module docstring)."""
    net = as_layered(net)
    ops, widths, width = [], [], net.input_dim
    for k, op in enumerate(net.ops):
        widths.append(width)
        if op.op == "affine":
            ops.append(("affine", int_affine(op, f"network.ops[{k}]")))
        elif op.op == "relu":
            ops.append(("relu", op.input_dim))
        else:
            ops.append(("max", tuple(tuple(g) for g in op.groups)))
        width = op.output_dim
    return ExactNet(net.input_dim, net.output_dim, tuple(ops), tuple(widths))


class FloatNet:
    """The float counterparts of the operators (:mod:`~symrel.vnnlib.layered.ops`): proposals only."""

    def __init__(self, net):
        from .ops.affine import FloatAffine
        from .ops.max_groups import FloatMax

        net = as_layered(net)
        self.input_dim, self.output_dim = net.input_dim, net.output_dim
        self.ops = []
        for op in net.ops:
            if op.op == "affine":
                self.ops.append(FloatAffine(op))
            elif op.op == "relu":
                self.ops.append(None)
            else:
                self.ops.append(FloatMax(op))
        self.kinds = [op.op for op in net.ops]
