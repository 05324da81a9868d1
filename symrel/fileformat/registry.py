"""Readers and writers by kind: ``from_json(obj)`` and ``to_json(thing)``.

Each topic module registers its kinds (models here; preorders, relations and
certificates in their own modules), so the file format has one entry point:

>>> m = from_json({"symrel": 1, "kind": "cpwl1d", "x": [0, "1/2", 1], "y": [0, 1, 0]})
>>> to_json(m)["x"]
[0, '1/2', 1]
>>> from symrel.fileformat.jsonio import loads
>>> from_json(loads('{"symrel": 1, "kind": "box", "bounds": [[0, 0.5]]}'))
Traceback (most recent call last):
...
symrel.errors.InputError: bounds[0][1]: expected an exact rational (an integer or a string such as "1/2"), got the JSON float 0.5; write it as a string or pass --exact-floats
"""

from __future__ import annotations

import importlib
from typing import Callable

from ..errors import InputError
from ..exact import FloatLiteral, rational
from .fields import expect_object, get, get_str

READERS: dict[str, Callable] = {}
WRITERS: dict[type, Callable] = {}

# modules that register further kinds when imported
_PLUGINS = (
    "symrel.fileformat.models_io",
    "symrel.fileformat.sequence_io",
    "symrel.preorders.io",
    "symrel.relations.io",
    "symrel.certificates.io",
)
_loaded = False


def reader(kind: str):
    """Decorator: register ``fn(obj, path) -> thing`` as the reader of ``kind``."""

    def deco(fn):
        READERS[kind] = fn
        return fn

    return deco


def writer(cls: type):
    """Decorator: register ``fn(thing) -> dict`` as the writer of ``cls``."""

    def deco(fn):
        WRITERS[cls] = fn
        return fn

    return deco


def _load_plugins():
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in _PLUGINS:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as err:
            if not (err.name and name.startswith(err.name)):
                raise


def _exactify(obj):
    """Replace every JSON float by its exact binary value (``exact_floats``)."""
    if isinstance(obj, FloatLiteral):
        return rational(obj, exact_floats=True)
    if isinstance(obj, list):
        return [_exactify(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _exactify(v) for k, v in obj.items()}
    return obj


def kind_of(obj, path: str = "") -> str:
    """The ``kind`` of a symrel object, after checking ``"symrel": 1``."""
    expect_object(obj, path, "a symrel object")
    version = get(obj, "symrel", path)
    if isinstance(version, bool) or version != 1:
        raise InputError(f"expected format version 1, got {version!r}", path=f"{path}.symrel" if path else "symrel")
    return get_str(obj, "kind", path)


def from_json(obj, *, kinds: tuple[str, ...] | None = None, exact_floats: bool = False, path: str = ""):
    """Read a parsed symrel JSON object into the matching symrel object.

    ``kinds`` restricts what is accepted (an error names what was expected).
    """
    _load_plugins()
    kind = kind_of(obj, path)
    if kinds is not None and kind not in kinds:
        raise InputError(f"expected kind {' or '.join(map(repr, kinds))}, got {kind!r}", path=f"{path}.kind" if path else "kind")
    if kind not in READERS:
        raise InputError(f"unknown kind {kind!r}; known kinds: {', '.join(sorted(READERS))}", path=f"{path}.kind" if path else "kind")
    if exact_floats:
        obj = _exactify(obj)
    return READERS[kind](obj, path)


def to_json(thing) -> dict:
    """The canonical JSON object of a symrel object."""
    _load_plugins()
    for cls in type(thing).__mro__:
        if cls in WRITERS:
            return WRITERS[cls](thing)
    raise InputError(f"symrel cannot write objects of type {type(thing).__name__}")
