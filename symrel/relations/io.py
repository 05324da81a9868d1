"""File kinds ``relation`` and ``relation-features`` (docs/format.md, "Relations").

``{"symrel": 1, "kind": "relation", "x": [[...], ...], "y": [[...], ...], "r": [[...], ...]}``:
``r[i][j]`` is the relation between point ``x[i]`` and point ``y[j]``, an exact
rational; omit ``y`` for a relation on one set (then r is square and ``r[i][j]``
relates ``x[i]`` and ``x[j]``). Every point of a set has the same dimension; a
point repeated within a set must carry an identical row (column) of r.

``{"symrel": 1, "kind": "relation-features", "phi": MODEL, "psi": MODEL}``: two
models (written as ``relu`` by symrel) with equal output dimension, realising
``(x, y) -> <phi(x), psi(y)>``; in the symmetric case psi equals phi.

>>> from symrel.fileformat import from_json, to_json
>>> rel = from_json({"symrel": 1, "kind": "relation", "x": [[0], ["1/2"]], "r": [[1, "1/2"], ["1/2", 1]]})
>>> rel.shape, to_json(rel)["r"]
((2, 2), [[1, '1/2'], ['1/2', 1]])
>>> from_json({"symrel": 1, "kind": "relation", "x": [[0]], "r": [[1, 2]]})
Traceback (most recent call last):
...
symrel.errors.DimensionError: r[0]: expected a row of 1 numbers (one per point of y), got 2
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import format_matrix, format_rational
from ..fileformat.fields import get, get_list, join, number_rows
from ..fileformat.registry import from_json, reader, to_json, writer
from .table import Relation, RelationFeatures

MODEL_KINDS = ("maxout", "relu", "cpwl1d", "transformer")


@reader("relation")
def read_relation(obj, path=""):
    x = number_rows(get_list(obj, "x", path, "points", min_len=1), join(path, "x"))
    y = None
    if obj.get("y") is not None:
        y = number_rows(get_list(obj, "y", path, "points", min_len=1), join(path, "y"))
    r = number_rows(get_list(obj, "r", path, "rows"), join(path, "r"))
    try:
        return Relation(x, r, y)
    except InputError as err:
        raise err.under(path) from None


@writer(Relation)
def write_relation(rel: Relation) -> dict:
    out = {"symrel": 1, "kind": "relation", "x": [[format_rational(v) for v in p] for p in rel.exact_x]}
    if rel.exact_y is not None:
        out["y"] = [[format_rational(v) for v in p] for p in rel.exact_y]
    out["r"] = format_matrix(rel.exact_R)
    return out


@reader("relation-features")
def read_relation_features(obj, path=""):
    phi = from_json(get(obj, "phi", path), kinds=MODEL_KINDS, path=join(path, "phi"))
    psi = from_json(get(obj, "psi", path), kinds=MODEL_KINDS, path=join(path, "psi"))
    try:
        return RelationFeatures(phi, psi)
    except InputError as err:
        raise err.under(path) from None


@writer(RelationFeatures)
def write_relation_features(f: RelationFeatures) -> dict:
    return {"symrel": 1, "kind": "relation-features", "phi": to_json(f.phi), "psi": to_json(f.psi)}
