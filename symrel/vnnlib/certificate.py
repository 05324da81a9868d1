"""The certificate writer of the exact engine: the ``vnnlib-unsat`` certificate of a search.

Definition. When every node of every input disjunct's tree is closed, :func:`certificate`
writes the claim (the network's and the property's sha256, the property's file name without
its directory, the property itself as :func:`property_object`) and one step per input
disjunct (rule ``vnnlib-branch-and-bound``): its box and its tree in preorder
(:func:`tree_entries`), each node a leaf with its exact facts, a ReLU split or an input split
(docs/format.md). :mod:`symrel.checking.vnnlib` re-checks it with rational arithmetic.

Cost: linear in the tree (one entry per node) and in the network (written once).

>>> from symrel.exact import rational as q
>>> from symrel.vnnlib.node import InputSplit, Leaf, ReluSplit
>>> trees = {(0, ()): InputSplit(0, q("1/2")), (0, (0,)): Leaf({}), (0, (1,)): ReluSplit(0, 1),
...          (0, (1, 0)): Leaf({}), (0, (1, 1)): Leaf({})}
>>> tree_entries(trees, 0)                     # preorder: the first part, then the second
[{'split': 0, 'at': '1/2'}, {'leaf': {}}, {'relu': [0, 1]}, {'leaf': {}}, {'leaf': {}}]
"""

from __future__ import annotations

import os

from ..exact import format_rational
from .node import InputSplit, Leaf, ReluSplit

#: the claim kind of the certificates written here
CLAIM_KIND = "vnnlib-unsat"
#: the rule of each input disjunct's step
RULE = "vnnlib-branch-and-bound"


def property_object(prop) -> dict:
    """The property as the certificate's claim records it (docs/format.md)."""
    # Each distinct number object formatted once (an MNIST property: 1.2 million coefficients,
    # nearly all the one object ZERO), looked up by its id: hashing a rational costs a Fraction's
    # construction, and every number stays alive in ``prop`` while the ids are in use.
    written: dict = {}

    def fmt(v):
        got = written.get(id(v))
        if got is None:
            got = written[id(v)] = format_rational(v)
        return got

    def row(values):
        got = list(map(written.get, map(id, values)))   # in C, once every number was met
        return got if None not in got else [fmt(v) for v in values]

    def atom(a):
        return {"x": row(a.x), "y": row(a.y), "rhs": fmt(a.rhs)}

    return {"inputs": prop.n_inputs, "outputs": prop.n_outputs,
            "input_region": [[atom(a) for a in conj] for conj in prop.input_region],
            "unsafe": [[atom(a) for a in conj] for conj in prop.unsafe]}


def tree_entries(trees: dict, d: int) -> list:
    """The tree of input disjunct ``d`` in preorder, as the certificate lists it: ``trees``
    maps ``(d, path)`` to the node's entry (a :class:`~symrel.vnnlib.node.Leaf`,
    :class:`~symrel.vnnlib.node.ReluSplit` or :class:`~symrel.vnnlib.node.InputSplit`), and
    a split's part 0 (``z <= 0``, or ``x_i <= at``) comes before its part 1."""
    out, todo = [], [(d, ())]
    while todo:
        key = todo.pop()
        entry = trees[key]
        if isinstance(entry, Leaf):
            out.append({"leaf": entry.facts})
            continue
        if isinstance(entry, ReluSplit):
            out.append({"relu": [entry.layer, entry.neuron]})
        elif isinstance(entry, InputSplit) and entry.at is not None:
            out.append({"split": entry.input, "at": format_rational(entry.at)})
        elif isinstance(entry, InputSplit):
            raise TypeError(f"an input split without its point is not a tree entry: {entry!r}")
        else:
            raise TypeError(f"not a tree entry: {entry!r}")
        todo.append((d, key[1] + (1,)))
        todo.append((d, key[1] + (0,)))
    return out


def file_name(source) -> str:
    """The name of the property's file without its directory (certificates record no paths).

    >>> file_name("/data/acasxu/prop_3.vnnlib"), file_name("inline")
    ('prop_3.vnnlib', 'inline')
    """
    name = os.path.basename(str(source).replace("\\", "/"))
    name = "".join(c if c.isprintable() else "?" for c in name)
    return name if name not in ("", ".", "..") else "inline"


def certificate(net, prop, roots, trees) -> dict:
    """The ``vnnlib-unsat`` certificate (module docstring): ``roots``, per input disjunct its
    :class:`~symrel.vnnlib.node.Root`; ``trees``, the decided nodes (:func:`tree_entries`)."""
    from ..certificates.core import PROVED, Step
    from ..checking import stated  # the statement the checker derives from the data
    from ..fileformat import sha256_of
    from ..fileformat.models_io import write_relu

    obj = write_relu(net)
    steps = []
    for d in range(len(roots)):
        lo, hi, empty = roots[d]
        data = {"disjunct": d, "box": {"lower": [format_rational(v) for v in lo],
                                       "upper": [format_rational(v) for v in hi]}}
        data["tree"] = [{"empty": empty}] if empty is not None else tree_entries(trees, d)
        lemma = f"no input of input disjunct {d} meets the unsafe condition"
        steps.append(Step(lemma, "vnnlib-branch-and-bound", data, PROVED).to_json())  # RULE, spelled out for the rule registry's test
    sha = sha256_of(obj)
    claim = {"kind": CLAIM_KIND, "network_sha256": sha, "property_sha256": prop.sha256,
             "property_source": file_name(prop.source), "property": property_object(prop)}
    return stated({"symrel": 1, "kind": "certificate", "claim": claim,
                   "inputs": {"network": {"object": obj, "sha256": sha}}, "steps": steps})
