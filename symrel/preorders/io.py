"""The ``preorder`` and ``retrieval`` kinds of the file format (docs/format.md, "Preorders").

A preorder lists its elements and the pairs ``x <= y``; reflexive pairs are
implied, transitivity is not, unless the file says ``"close": true``: then the
transitive closure is taken and the number of pairs it added is kept in
``added_by_closure``. Written files list every non-reflexive pair, in element
order, and never say ``close``.

>>> from symrel.fileformat import from_json, to_json
>>> P = from_json({"symrel": 1, "kind": "preorder", "elements": ["a", "b", "c"],
...                "leq": [["a", "b"], ["b", "c"]], "close": True})
>>> P.added_by_closure, to_json(P)["leq"]
(1, [['a', 'b'], ['a', 'c'], ['b', 'c']])
>>> from_json({"symrel": 1, "kind": "preorder", "elements": ["a"], "leq": [["a", "b"]]})
Traceback (most recent call last):
...
symrel.errors.InputError: leq[0][1]: unknown element 'b'; expected one of the 1 elements
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import format_rational
from ..fileformat.fields import expect_object, get, get_list, join
from ..fileformat.registry import kind_of, reader, writer
from .preorder import Preorder
from .task import RetrievalTask


def _names(values, path: str) -> list[str]:
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise InputError(f"expected an element name (a string), got {type(v).__name__}", path=f"{path}[{i}]")
    return values


def read_preorder_body(obj, path: str = "", default_elements: list[str] | None = None) -> Preorder:
    """A preorder from ``{"elements": [...], "leq": [[x, y], ...], "close": bool}``;
    ``elements`` may be left out when ``default_elements`` is given."""
    expect_object(obj, path, "a preorder")
    if default_elements is not None and "elements" not in obj:
        elements = list(default_elements)
    else:
        elements = _names(get_list(obj, "elements", path, "elements", min_len=1), join(path, "elements"))
    pairs = get_list(obj, "leq", path, "pairs [x, y] meaning x <= y")
    close = get(obj, "close", path, False)
    if not isinstance(close, bool):
        raise InputError("expected true or false", path=join(path, "close"))
    P = Preorder.from_pairs(elements, pairs, path=join(path, "leq"), elements_path=join(path, "elements"))
    return P.closure() if close else P


@reader("preorder")
def read_preorder(obj, path=""):
    return read_preorder_body(obj, path)


@writer(Preorder)
def write_preorder(P: Preorder) -> dict:
    missing = P.reflexivity_witness()
    if missing is not None:
        raise InputError(f"a preorder file implies x <= x, but {missing!r} <= {missing!r} is missing", path="leq")
    elements = P.elements
    _names(elements, "elements")
    index = {x: i for i, x in enumerate(elements)}
    G = P.graph
    leq = [[x, y] for x in elements for y in sorted(G.succ[x], key=index.__getitem__) if y != x]
    return {"symrel": 1, "kind": "preorder", "elements": elements, "leq": leq}


@reader("retrieval")
def read_retrieval(obj, path=""):
    keys = get(obj, "keys", path)
    queries = get(obj, "queries", path)
    expect_object(keys, join(path, "keys"), "keys {name: [numbers]}")
    expect_object(queries, join(path, "queries"), "queries {name: [numbers]}")
    raw = get(obj, "preorders", path)
    expect_object(raw, join(path, "preorders"), "preorders {query name: preorder}")
    preorders = {}
    for q, body in raw.items():
        p = join(join(path, "preorders"), q)
        if isinstance(body, dict) and ("symrel" in body or "kind" in body):
            if kind_of(body, p) != "preorder":
                raise InputError(f"expected kind 'preorder', got {body['kind']!r}", path=join(p, "kind"))
        preorders[q] = read_preorder_body(body, p, default_elements=list(keys))
    try:
        return RetrievalTask(keys, queries, preorders)
    except InputError as err:
        raise err.under(path) from None


@writer(RetrievalTask)
def write_retrieval(task: RetrievalTask) -> dict:
    def vectors(table):
        return {name: [format_rational(v) for v in x] for name, x in table.items()}

    preorders = {}
    for q, P in task.preorders.items():
        body = write_preorder(P)
        preorders[q] = {"elements": body["elements"], "leq": body["leq"]}
    return {"symrel": 1, "kind": "retrieval", "keys": vectors(task.exact_keys), "queries": vectors(task.exact_queries), "preorders": preorders}
