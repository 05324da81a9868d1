"""The readers a certificate check trusts: models and domains, and plain tables of
preorders, retrieval tasks and relations.

The checker (:mod:`symrel.checking`) reads the inputs a certificate embeds with
this module alone. Models and domains go through the readers of
:mod:`symrel.fileformat.models_io` (their semantics live in :mod:`symrel.models`);
the three kinds whose usual readers build algorithm objects (a ``Preorder`` with
its closure and classes, a ``RetrievalTask`` with its utilities, a ``Relation``)
are read here into plain, immutable tables instead, with the same field checks
and error paths, so a check never imports the packages of the provers
(:mod:`symrel.preorders`, :mod:`symrel.relations`). The list of kinds is
explicit: nothing is discovered or loaded by name.

>>> t = read_input({"symrel": 1, "kind": "preorder", "elements": ["a", "b"], "leq": [["a", "b"]]})
>>> t.leq("a", "b"), t.leq("b", "a"), t.leq("b", "b")
(True, False, True)
>>> read_input({"symrel": 1, "kind": "preorder", "elements": ["a"], "leq": [["a", "c"]]})
Traceback (most recent call last):
...
symrel.errors.InputError: leq[0][1]: unknown element 'c'; expected one of the 1 elements
"""

from __future__ import annotations

from dataclasses import dataclass

from importlib import import_module

from ..errors import InputError
from .fields import expect_object, get, get_list, join, number_rows, numbers
from .registry import READERS, kind_of

#: kinds read by the readers of :mod:`symrel.fileformat.models_io`
MODEL_KINDS = ("maxout", "relu", "cpwl1d", "cpwl", "transformer")
DOMAIN_KINDS = ("box", "polytope")
#: read by :mod:`symrel.fileformat.sequence_io` (tracr-audit certificates)
SEQUENCE_KINDS = ("sequence-transformer",)


@dataclass(frozen=True)
class PreorderTable:
    """A relation on named elements as listed: ``x <= y`` iff ``x == y`` or ``[x, y]`` is a pair.
    No closure is taken (a file that asks for one with ``close`` is refused here)."""

    elements: tuple
    pairs: frozenset

    def leq(self, x, y) -> bool:
        return x == y or (x, y) in self.pairs


@dataclass(frozen=True)
class RetrievalTable:
    """Keys and queries with their feature vectors (in file order), one preorder per query."""

    keys: tuple  # ((name, vector), ...)
    queries: tuple
    preorders: dict


@dataclass(frozen=True)
class RelationTable:
    """``r[i][j]`` between ``x[i]`` and ``y[j]``; ``y`` is None for a relation on one set."""

    x: tuple
    y: tuple | None
    r: tuple


@dataclass(frozen=True)
class FeaturesTable:
    """Two models ``phi``, ``psi`` (a ``relation-features`` object)."""

    phi: object
    psi: object


def _names(values, path):
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise InputError(f"expected an element name (a string), got {type(v).__name__}", path=f"{path}[{i}]")
    if len(set(values)) != len(values):
        raise InputError("an element is listed twice", path=path)
    return tuple(values)


def _preorder(obj, path, default_elements=None) -> PreorderTable:
    expect_object(obj, path, "a preorder")
    if default_elements is not None and "elements" not in obj:
        elements = tuple(default_elements)
    else:
        elements = _names(get_list(obj, "elements", path, "elements", min_len=1), join(path, "elements"))
    if obj.get("close", False) is not False:
        raise InputError("a certificate embeds the written form, which lists every pair and never says close",
                         path=join(path, "close"))
    known = set(elements)
    pairs = set()
    for i, pair in enumerate(get_list(obj, "leq", path, "pairs [x, y] meaning x <= y")):
        where = f"{join(path, 'leq')}[{i}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise InputError("expected a pair [x, y]", path=where)
        for k, v in enumerate(pair):
            if not isinstance(v, str) or v not in known:
                raise InputError(f"unknown element {v!r}; expected one of the {len(elements)} elements", path=f"{where}[{k}]")
        pairs.add(tuple(pair))
    return PreorderTable(elements, frozenset(pairs))


def _vectors(obj, key, path):
    table = get(obj, key, path)
    expect_object(table, join(path, key), f"{key} {{name: [numbers]}}")
    out = tuple((name, tuple(numbers(v, join(join(path, key), name)))) for name, v in table.items())
    if not out:
        raise InputError("expected at least one entry", path=join(path, key))
    dims = {len(v) for _, v in out}
    if len(dims) != 1 or 0 in dims:
        raise InputError("expected vectors of one positive dimension", path=join(path, key))
    return out


def _retrieval(obj, path) -> RetrievalTable:
    keys, queries = _vectors(obj, "keys", path), _vectors(obj, "queries", path)
    raw = get(obj, "preorders", path)
    where = join(path, "preorders")
    expect_object(raw, where, "preorders {query name: preorder}")
    if set(raw) != {q for q, _ in queries}:
        raise InputError("expected one preorder per query", path=where)
    names = [k for k, _ in keys]
    preorders = {}
    for q, body in raw.items():
        p = join(where, q)
        if isinstance(body, dict) and ("symrel" in body or "kind" in body) and kind_of(body, p) != "preorder":
            raise InputError(f"expected kind 'preorder', got {body['kind']!r}", path=join(p, "kind"))
        table = _preorder(body, p, default_elements=names)
        if set(table.elements) != set(names):
            raise InputError("expected the keys as elements", path=join(p, "elements"))
        preorders[q] = table
    return RetrievalTable(keys, queries, preorders)


def _points(obj, key, path):
    pts = number_rows(get_list(obj, key, path, "points", min_len=1), join(path, key))
    if not pts[0]:
        raise InputError("expected points of positive dimension", path=join(path, key))
    return tuple(tuple(p) for p in pts)


def _relation(obj, path) -> RelationTable:
    x = _points(obj, "x", path)
    y = _points(obj, "y", path) if obj.get("y") is not None else None
    m = len(y if y is not None else x)
    r = number_rows(get_list(obj, "r", path, "rows"), join(path, "r"), rows=len(x), cols=m)
    return RelationTable(x, y, tuple(tuple(row) for row in r))


def _features(obj, path) -> FeaturesTable:
    phi = read_input(get(obj, "phi", path), path=join(path, "phi"), kinds=MODEL_KINDS)
    psi = read_input(get(obj, "psi", path), path=join(path, "psi"), kinds=MODEL_KINDS)
    if phi.output_dim != psi.output_dim:
        raise InputError("phi and psi need one output dimension", path=join(path, "psi"))
    return FeaturesTable(phi, psi)


_PLAIN = {"preorder": _preorder, "retrieval": _retrieval, "relation": _relation, "relation-features": _features}

#: the module (of this package) of the reader of each model, domain and sequence kind
_READER_MODULE = {**dict.fromkeys(MODEL_KINDS + DOMAIN_KINDS, ".models_io"), **dict.fromkeys(SEQUENCE_KINDS, ".sequence_io")}

#: every kind a certificate may embed
KINDS = MODEL_KINDS + DOMAIN_KINDS + SEQUENCE_KINDS + tuple(_PLAIN)


def read_input(obj, path: str = "", kinds: tuple = KINDS):
    """An embedded input: a model or domain object, or a plain table (module docstring)."""
    kind = kind_of(obj, path)
    if kind not in kinds:
        raise InputError(f"expected kind {' or '.join(map(repr, kinds))}, got {kind!r}", path=join(path, "kind"))
    if kind in _PLAIN:
        return _PLAIN[kind](obj, path)
    # the module of the kind's reader registers it when imported: the one kind read loads its module alone
    import_module(_READER_MODULE[kind], __package__)
    return READERS[kind](obj, path)
