"""Symbolic execution of a ReLU net: one lemma per dense layer.

Each ReLU is settled by ``relu-fixed-sign`` (an exact bound on D) or becomes the max
node ``max(0, z)`` (a rank-2 maxout unit, Paper A Cor 3.3).

>>> from symrel.models import ReLUNet, DenseLayer
>>> from symrel.prover.nodes import Registry
>>> from symrel.prover.execution import Context
>>> from symrel.exact import Q
>>> net = ReLUNet(1, [DenseLayer([[1], [1]], [2, 0]), DenseLayer([[1, 1]], [0], "none")])
>>> [o.to_json() for o in relu_net_forms(net, Context(Registry([(Q(-1), Q(1))]), None, "a"))]
[[2, [[0, 1], [1, 1]]]]
"""

from __future__ import annotations

from ..exact import flat, matrix_image, sparse_rows
from ..lowering import lower
from ..models import ReLUNet
from ..certificates import PROVED
from .execution import Context, count_rules, relu_records
from ..exact.forms import AffineForm


def relu_net_forms(net: ReLUNet, ctx: Context) -> list[AffineForm]:
    """The outputs of ``net`` as forms over the registry's variables (steps added to ctx),
    read off its program (:mod:`symrel.lowering.relu_to_program`)."""
    reg = ctx.registry
    program = lower(net)
    cur = [AffineForm.var(i) for i in range(program.input_dim)]
    for li, stage in enumerate(program.stages):
        affine, relu = stage.ops[0], len(stage.ops) > 1
        activation = "relu" if relu else "none"
        reg.model = ctx.name
        pre = matrix_image(sparse_rows(affine.W), cur, flat(affine.b))
        if relu:
            cur, records = relu_records(pre, ctx)
            counts = count_rules(records)
            note = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
            scaled = any(r[0] == "node" and "scale" in r[1] for r in records)
            rule = "relu-fixed-sign+max-scale-shift" if scaled else "relu-fixed-sign"
            cert = {"layer": li, "units": records}
        else:
            cur, note, rule, cert = pre, "", "linear-identity", {"layer": li}
        cert["nodes"] = reg.drain_new()
        cert["outputs"] = [f.to_json() for f in cur]
        ctx.add_step(f"For all x in D, layer {li + 1} of model {ctx.name.upper()} ({activation}) "
                     f"gives the forms recorded", rule, cert, PROVED,
                     f"ReLU signs (+ fixed positive, - fixed zero, node = max(0, z)): {note}" if note else "")
    return cur
