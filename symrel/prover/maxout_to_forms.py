"""Symbolic execution of a maxout net: one lemma per layer.

Lemma of layer l: for all x in D, unit i of layer l equals ``max_j l_ij(v)`` with the
pieces taken over the previous layer's variables, in normal form (equal pieces merged,
pieces dominated on D dropped by an exact bound): rule ``maxout-unit-normal-form``
(with ``max-scale-shift`` when a unit is ``c y + k`` for an earlier node y).

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit
>>> from symrel.prover.nodes import Registry
>>> from symrel.prover.execution import Context
>>> from symrel.exact import Q
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1], [0]], [0, 0, -5])])])
>>> outs = maxout_forms(net, Context(Registry([(Q(-1), Q(1))]), None, "a"))
>>> [o.to_json() for o in outs]
[[0, [[1, 1]]]]
"""

from __future__ import annotations

from ..exact import flat, matrix_image, sparse_rows
from ..lowering import Maxout, Program, lower
from ..models import MaxoutNet
from ..certificates import PROVED
from .execution import Context
from ..exact.forms import AffineForm


def _unit_name(f: AffineForm) -> str:
    """``y7`` for a variable, ``affine`` for a unit that is affine on D (one piece left)."""
    if not f.const and len(f.coeffs) == 1 and list(f.coeffs.values()) == [1]:
        return f"y{next(iter(f.coeffs))}"
    return "affine"


def maxout_forms(net: MaxoutNet, ctx: Context, inputs: list[AffineForm] | None = None) -> list[AffineForm]:
    """The outputs of ``net`` as forms over the registry's variables (steps added to ctx)."""
    return maxout_program_forms(lower(net), ctx, inputs)


def maxout_program_forms(program: Program, ctx: Context, inputs: list[AffineForm] | None = None) -> list[AffineForm]:
    """The outputs of a maxout net's program (:mod:`symrel.lowering.maxout_to_program`)."""
    reg = ctx.registry
    cur = inputs if inputs is not None else [AffineForm.var(i) for i in range(program.input_dim)]
    layers = [st for st in program.stages if isinstance(st.ops[-1], Maxout)]
    for li, stage in enumerate(layers):
        affine, maxout = stage.ops
        reg.model = ctx.name
        pieces = matrix_image(sparse_rows(affine.W), cur, flat(affine.b))
        units, outs, start = [], [], 0
        for rank in maxout.ranks:
            y, facts = reg.max_of(pieces[start:start + rank])
            start += rank
            outs.append(y)
            units.append(facts)
        dropped = sum(len(u["dropped"]) for u in units)
        names = ", ".join(_unit_name(y) for y in outs)
        scaled = sum("scale" in u for u in units)
        ctx.add_step(
            f"For all x in D, the {len(maxout.ranks)} maxout units of layer {li + 1} of model "
            f"{ctx.name.upper()} equal the max of their pieces over the previous layer, in normal form",
            "maxout-unit-normal-form+max-scale-shift" if scaled else "maxout-unit-normal-form",
            {"layer": li, "units": units, "nodes": reg.drain_new()},
            PROVED,
            f"units = ({names})" + (f"; {dropped} piece(s) dominated on D dropped by exact bounds" if dropped else "")
            + (f"; {scaled} unit(s) a scaled or shifted copy of an earlier node" if scaled else ""),
        )
        cur = outs
    if len(layers) == len(program.stages):
        return cur
    readout, = program.stages[-1].ops
    outs = matrix_image(sparse_rows(readout.W), cur, flat(readout.b))
    ctx.add_step(f"The affine read-out of model {ctx.name.upper()} gives its outputs as affine forms",
                 "linear-identity", {"layer": "readout", "outputs": [o.to_json() for o in outs]}, PROVED)
    return outs
