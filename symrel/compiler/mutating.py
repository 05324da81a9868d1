"""Mutants of a compiled Transformer, for soundness tests of the prover.

A mutant changes one parameter (a weight or bias of a block, an embedding offset, a
read-out entry) by a tiny rational. Paths are those of the Transformer's JSON form
(FORMAT.md), e.g. ``blocks[0].feedforward.W1[3][2]``.

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> from symrel.compiler import compile_maxout
>>> t = compile_maxout(MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])]), Box([[-1, 1]])).transformer
>>> paths = parameter_paths(t)
>>> len(paths) == t.num_parameters() + t.tokens * t.width
True
>>> m = mutant(t, "readout.b[0]")
>>> [str(v) for v in m([0])]
['1/1000000']
"""

from __future__ import annotations

from ..fileformat import from_json, to_json

FEEDFORWARD = ("W1", "b1", "W2", "b2")
HEAD = ("WQ", "WK", "WV", "WO")


def _leaves(value, path: str):
    if isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    else:
        yield path, value


def parameter_paths(t, nonzero_only: bool = False) -> list[str]:
    """The path of every parameter of ``t`` (its JSON form), optionally only nonzero ones."""
    obj = to_json(t)
    fields = [("embedding.offsets", obj["embedding"]["offsets"])]
    for b, block in enumerate(obj["blocks"]):
        if block.get("feedforward"):
            fields += [(f"blocks[{b}].feedforward.{k}", block["feedforward"][k]) for k in FEEDFORWARD]
        if block.get("attention"):
            for h, head in enumerate(block["attention"]["heads"]):
                fields += [(f"blocks[{b}].attention.heads[{h}].{k}", head[k]) for k in HEAD]
    fields += [("readout.W", obj["readout"]["W"]), ("readout.b", obj["readout"]["b"])]
    return [p for name, value in fields for p, v in _leaves(value, name) if not nonzero_only or v not in (0, "0")]


def mutant(t, path: str, delta="1/1000000"):
    """A copy of ``t`` with the parameter at ``path`` increased by ``delta``."""
    from ..statements.tamper import altered

    return from_json(altered(to_json(t), path, delta))
