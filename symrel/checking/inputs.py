"""The checker's own reader of the inputs a certificate embeds.

Each input is ``{"symrel": 1, "kind": ..., ...}`` (docs/format.md). The checker reads every
kind a certificate may embed with its own readers, the strict accessors of
:mod:`symrel.checking.read`, into its own plain data, one module per family, loaded when an
input of that family is read:

* maxout and ReLU nets, CPWL functions of one variable: :mod:`symrel.checking.semantics`;
* layered nets: :mod:`symrel.checking.layered_net`; boxes and polytopes: :mod:`symrel.checking.domains`;
* hardmax and softmax Transformers: :mod:`symrel.checking.transformers`;
* sequence Transformers (tracr audits): :mod:`symrel.checking.sequences`;
* CPWL functions on a mesh: :mod:`symrel.checking.meshes` (the mesh's conformity is checked
  by the library's mesh check, :mod:`symrel.models.mesh_check`);
* the plain tables of preorders, retrieval tasks, relations and relation features:
  :mod:`symrel.checking.tables`.

The file-format readers and the library's model classes (:mod:`symrel.fileformat`,
:mod:`symrel.models`) are not loaded (docs/trust.md lists what a check loads).

Every field is checked as the file-format readers check it: its type (a boolean is not a
number), the dimensions (each layer reads the previous layer's width, a read-out the last
width, a value per breakpoint), strictly increasing breakpoints, ``lower <= upper``. A
refusal names the JSON path. Cost: one pass over the numbers of the input.

>>> t = read_input({"symrel": 1, "kind": "preorder", "elements": ["a", "b"], "leq": [["a", "b"]]})
>>> t.leq("a", "b"), t.leq("b", "a"), t.leq("b", "b")
(True, False, True)
>>> layer = {"W": [[1], [-1]], "activation": "relu"}
>>> net = read_input({"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [layer]})
>>> from symrel.exact import rational
>>> net.kind, net.output_dim, [str(v) for v in net.evaluate_exact([rational(-2)])]
('relu', 2, ['0', '2'])
>>> read_input({"symrel": 1, "kind": "box", "bounds": [[1, 0]]}, "inputs.d.object")
Traceback (most recent call last):
...
symrel.checking.MalformedCertificate: inputs.d.object.bounds[0]: expected lower <= upper, got [1, 0]
"""

from __future__ import annotations

from importlib import import_module

from . import MalformedCertificate
from . import read
from .read import join

#: kinds of models a certificate may embed, and of domains
MODEL_KINDS = ("maxout", "relu", "cpwl1d", "cpwl", "transformer", "layered")
DOMAIN_KINDS = ("box", "polytope")


def vector(values, path: str, length: int | None = None) -> list:
    """A list of exact rationals; the fast bulk reader, and entry by entry only to name a refused one."""
    return read.rationals(values, path, length)


def matrix(values, path: str, cols: int | None = None, min_rows: int = 0) -> list:
    """Rows of exact rationals, each of ``cols`` entries (the first row's length when None)."""
    read.array(values, path)
    if len(values) < min_rows:
        raise MalformedCertificate(f"expected at least {min_rows} rows, got {len(values)}", path=path)
    out = []
    for i, row in enumerate(values):
        out.append(vector(row, f"{path}[{i}]", cols))
        if cols is None:
            cols = len(out[0])
    return out


def positive(value, path: str) -> int:
    n = read.integer(value, path)
    if n < 1:
        raise MalformedCertificate(f"expected an integer >= 1, got {n}", path=path)
    return n


def listed(obj: dict, key: str, path: str, min_len: int = 1) -> list:
    if key not in obj:
        raise MalformedCertificate(f"expected a key {key!r} (missing)", path=join(path, key))
    values = read.array(obj[key], join(path, key))
    if len(values) < min_len:
        raise MalformedCertificate(f"expected at least {min_len} entries, got {len(values)}", path=join(path, key))
    return values


def record_of(obj, path: str, allowed: tuple | None = None) -> dict:
    """``obj`` as a JSON object; with ``allowed``, one holding no key outside it (an unknown
    key is refused with its own path: the checker reads every key it accepts)."""
    if type(obj) is not dict:
        raise read.refuse(path, "an object", obj)
    if allowed is not None:
        for key in obj:
            if key not in allowed:
                raise MalformedCertificate(f"expected no key {key!r} here (the keys of this object: "
                                           f"{', '.join(sorted(allowed))})", path=join(path, key))
    return obj


def need(obj: dict, key: str, path: str):
    if key not in obj:
        raise MalformedCertificate(f"expected a key {key!r} (missing)", path=join(path, key))
    return obj[key]


#: the module (of this package) holding the checker's reader of each kind
_READER_MODULE = {**dict.fromkeys(("maxout", "relu", "cpwl1d"), ".semantics"), **dict.fromkeys(("box", "polytope"), ".domains"),
                  **dict.fromkeys(("preorder", "retrieval", "relation", "relation-features"), ".tables"),
                  "transformer": ".transformers", "sequence-transformer": ".sequences", "cpwl": ".meshes", "layered": ".layered_net"}

#: every kind a certificate may embed
KINDS = tuple(_READER_MODULE)

#: the keys an embedded object of each kind may hold at its top (docs/format.md; no other)
TOP_KEYS = {
    "maxout": ("input_dim", "layers", "readout"), "relu": ("input_dim", "layers"), "cpwl1d": ("x", "y", "extend"),
    "cpwl": ("input_dim", "vertices", "simplices", "values"), "layered": ("input_dim", "ops"),
    "transformer": ("input_dim", "width", "tokens", "embedding", "blocks", "readout"),
    "sequence-transformer": ("tokens", "bos", "causal", "token_embedding", "position_embedding", "layers",
                             "unembedding", "output", "output_labels", "notes"),
    "box": ("bounds",), "polytope": ("A", "b"), "preorder": ("elements", "leq", "close"),
    "retrieval": ("keys", "queries", "preorders"), "relation": ("x", "y", "r"), "relation-features": ("phi", "psi"),
}


def kind_of(obj, path: str) -> str:
    """The ``kind`` of a symrel object, after checking ``"symrel": 1`` (an integer, not ``true``)."""
    if type(obj) is not dict:
        raise read.refuse(path, "a symrel object (a JSON object)", obj)
    version = need(obj, "symrel", path)
    if type(version) is not int or version != 1:
        raise read.refuse(join(path, "symrel"), "format version 1 (a JSON integer)", version)
    return read.string(need(obj, "kind", path), join(path, "kind"))


def read_input(obj, path: str = "", kinds: tuple = KINDS):
    """An embedded input: a model or domain, or a plain table (module docstring)."""
    kind = kind_of(obj, path)
    if kind not in kinds:
        raise MalformedCertificate(f"expected kind {' or '.join(map(repr, kinds))}, got {kind!r}",
                                   path=join(path, "kind"))
    record_of(obj, path, ("symrel", "kind") + TOP_KEYS[kind])
    return import_module(_READER_MODULE[kind], __package__).READERS[kind](obj, path)
