"""The checker's reading of the plain tables a certificate embeds: preorders, retrieval tasks,
relations and relation features (:mod:`symrel.checking.inputs` dispatches here).

Their usual readers build the objects of the provers' packages (a ``Preorder`` with its
closure and classes, a ``RetrievalTask``, a ``Relation``); a check reads them into the
plain, immutable tables below instead, so it never imports :mod:`symrel.preorders` or
:mod:`symrel.relations`. No closure is taken: a preorder is its listed pairs.

>>> t = READERS["preorder"]({"symrel": 1, "kind": "preorder", "elements": ["a", "b"], "leq": [["a", "c"]]}, "p")
Traceback (most recent call last):
...
symrel.checking.MalformedCertificate: p.leq[0][1]: unknown element the string 'c'; expected one of the 2 elements
"""

from __future__ import annotations

from dataclasses import dataclass

from . import MalformedCertificate
from . import read
from .inputs import MODEL_KINDS, kind_of, listed, matrix, need, read_input, record_of, vector
from .read import join

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
        read.string(v, f"{path}[{i}]")
    if len(set(values)) != len(values):
        raise MalformedCertificate("an element is listed twice", path=path)
    return tuple(values)


def _preorder(obj, path, default_elements=None) -> PreorderTable:
    record_of(obj, path, ("symrel", "kind", "elements", "leq", "close"))
    if default_elements is not None and "elements" not in obj:
        elements = tuple(default_elements)
    else:
        elements = _names(listed(obj, "elements", path), join(path, "elements"))
    if obj.get("close", False) is not False:
        raise MalformedCertificate("a certificate embeds the written form, which lists every pair and never says close",
                                   path=join(path, "close"))
    known = set(elements)
    pairs = set()
    for i, pair in enumerate(listed(obj, "leq", path, min_len=0)):
        where = f"{join(path, 'leq')}[{i}]"
        read.array(pair, where, 2)
        for k, v in enumerate(pair):
            if type(v) is not str or v not in known:
                raise MalformedCertificate(f"unknown element {read.describe(v)}; expected one of the {len(elements)} "
                                           "elements", path=f"{where}[{k}]")
        pairs.add(tuple(pair))
    return PreorderTable(elements, frozenset(pairs))


def _vectors(obj, key, path):
    where = join(path, key)
    table = record_of(need(obj, key, path), where)
    out = tuple((name, tuple(vector(v, join(where, name)))) for name, v in table.items())
    if not out:
        raise MalformedCertificate("expected at least one entry", path=where)
    dims = {len(v) for _, v in out}
    if len(dims) != 1 or 0 in dims:
        raise MalformedCertificate("expected vectors of one positive dimension", path=where)
    return out


def _retrieval(obj, path) -> RetrievalTable:
    keys, queries = _vectors(obj, "keys", path), _vectors(obj, "queries", path)
    where = join(path, "preorders")
    raw = record_of(need(obj, "preorders", path), where)
    if set(raw) != {q for q, _ in queries}:
        raise MalformedCertificate("expected one preorder per query", path=where)
    names = [k for k, _ in keys]
    preorders = {}
    for q, body in raw.items():
        p = join(where, q)
        if type(body) is dict and ("symrel" in body or "kind" in body) and kind_of(body, p) != "preorder":
            raise MalformedCertificate(f"expected kind 'preorder', got {body['kind']!r}", path=join(p, "kind"))
        table = _preorder(body, p, default_elements=names)
        if set(table.elements) != set(names):
            raise MalformedCertificate("expected the keys as elements", path=join(p, "elements"))
        preorders[q] = table
    return RetrievalTable(keys, queries, preorders)


def _points(obj, key, path):
    pts = matrix(listed(obj, key, path), join(path, key))
    if not pts[0]:
        raise MalformedCertificate("expected points of positive dimension", path=join(path, key))
    return tuple(tuple(p) for p in pts)


def _relation(obj, path) -> RelationTable:
    x = _points(obj, "x", path)
    y = _points(obj, "y", path) if obj.get("y") is not None else None
    m = len(y if y is not None else x)
    r = matrix(listed(obj, "r", path, min_len=0), join(path, "r"), cols=m)
    if len(r) != len(x):
        raise MalformedCertificate(f"expected {len(x)} rows, got {len(r)}", path=join(path, "r"))
    return RelationTable(x, y, tuple(tuple(row) for row in r))


def _features(obj, path) -> FeaturesTable:
    phi = read_input(need(obj, "phi", path), join(path, "phi"), kinds=MODEL_KINDS)
    psi = read_input(need(obj, "psi", path), join(path, "psi"), kinds=MODEL_KINDS)
    if phi.output_dim != psi.output_dim:
        raise MalformedCertificate("phi and psi need one output dimension", path=join(path, "psi"))
    return FeaturesTable(phi, psi)


READERS = {"preorder": _preorder, "retrieval": _retrieval, "relation": _relation, "relation-features": _features}
