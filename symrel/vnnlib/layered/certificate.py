"""The ``vnnlib-unsat`` certificate of a layered net (docs/format.md, "vnnlib-unsat").

Definition. :func:`certificate` writes, for the trees the search closed, the certificate the
trusted checker reads (:mod:`symrel.checking.vnnlib_layered`): the claim (the property, the
sha256 of the property file and of the net's canonical JSON), the net embedded as input
``network`` (kind ``layered``), and one step ``vnnlib-branch-and-bound`` per input disjunct
with its box and its tree in preorder (the entries of :mod:`~symrel.vnnlib.layered.node`, each followed by the
trees of its parts).

Cost: linear in the tree and the net.
"""

from __future__ import annotations

from ...exact import format_rational
from .node import InputSplit, MaxSplit, ReluSplit, UnsafeSplit

#: the claim kind and the rule of each input disjunct's step
CLAIM_KIND = "vnnlib-unsat"
RULE = "vnnlib-branch-and-bound"


def _parts(entry) -> int:
    if isinstance(entry, (InputSplit, ReluSplit)):
        return 2
    if isinstance(entry, MaxSplit):
        return entry.pieces
    if isinstance(entry, UnsafeSplit):
        return entry.count
    return 0


def tree_json(trees: dict, d: int) -> list:
    """The preorder list of the tree of input disjunct ``d`` (``trees``: ``{(d, path): entry}``)."""
    out, todo = [], [()]
    while todo:
        path = todo.pop()
        entry = trees[(d, path)]
        out.append(entry.to_json())
        todo.extend(path + (p,) for p in reversed(range(_parts(entry))))
    return out


def certificate(net, prop, roots, trees) -> dict:
    """The certificate (module docstring); ``roots[d] = (lo, hi, empty input or None)``."""
    from ...certificates.core import PROVED, Step
    from ...checking import stated
    from ...fileformat import sha256_of
    from ...fileformat.models_io import write_layered
    from ..engine import _file_name, property_object
    from .network import as_layered

    obj = write_layered(as_layered(net))
    steps = []
    for d in range(len(roots)):
        lo, hi, empty = roots[d]
        data = {"disjunct": d, "box": {"lower": [format_rational(v) for v in lo],
                                       "upper": [format_rational(v) for v in hi]}}
        data["tree"] = [{"empty": empty}] if empty is not None else tree_json(trees, d)
        lemma = f"no input of input disjunct {d} meets the unsafe condition"
        steps.append(Step(lemma, "vnnlib-branch-and-bound", data, PROVED).to_json())  # RULE, spelled out for the rule registry's test
    sha = sha256_of(obj)
    claim = {"kind": CLAIM_KIND, "network_sha256": sha, "property_sha256": prop.sha256,
             "property_source": _file_name(prop.source), "property": property_object(prop)}
    return stated({"symrel": 1, "kind": "certificate", "claim": claim,
                   "inputs": {"network": {"object": obj, "sha256": sha}}, "steps": steps})

