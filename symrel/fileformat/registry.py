"""Readers and writers by kind: ``from_json(obj)`` and ``to_json(thing)``.

The file format's own kinds (models, domains, points, sequence models, certificates) are
read by its own modules, listed in :data:`KIND_MODULES`. The kinds whose readers build the
objects of a package above the file format (a ``Preorder``, a ``RetrievalTask``, a
``Relation``) are registered by name in :mod:`symrel.kind_plugins` (the package root,
``symrel/__init__.py``, registers the preorder and relation kinds so, without loading
anything); the module is imported when a file of that kind is first read. The file format itself never names a module above it. One entry point:

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

from .. import kind_plugins
from ..errors import InputError
from ..exact import FloatLiteral, rational
from .fields import expect_object, get, get_str

READERS: dict[str, Callable] = {}
#: the writers, by the dotted name of the class they write (``symrel.models.maxout.MaxoutNet``): naming
#: the class registers its writer without importing its module
WRITERS: dict[str, Callable] = {}

#: Every kind of the file format and the module holding its reader (and the writer of its
#: type). The file format's own kinds are written out here; :func:`register_kind_module`
#: adds those of the packages above. Reading a kind imports its module only, so reading a
#: box or a model never imports the preorder or relation algorithms; writing an object
#: whose writer is not registered yet imports them all. (A certificate check reads its
#: inputs with its own readers, :mod:`symrel.checking.inputs`, which use none of this.)
KIND_MODULES = {
    "box": "symrel.fileformat.models_io",
    "certificate": "symrel.fileformat.registry",
    "cpwl": "symrel.fileformat.models_io",
    "cpwl1d": "symrel.fileformat.models_io",
    "layered": "symrel.fileformat.models_io",
    "maxout": "symrel.fileformat.models_io",
    "points": "symrel.fileformat.models_io",
    "polytope": "symrel.fileformat.models_io",
    "relu": "symrel.fileformat.models_io",
    "sequence-transformer": "symrel.fileformat.sequence_io",
    "transformer": "symrel.fileformat.models_io",
    "values": "symrel.fileformat.models_io",
}
_loaded = False


def register_kind_module(kind: str, module: str) -> None:
    """Name ``module`` (a module of a package above the file format) as the holder of the
    reader of ``kind``: it is imported when a file of that kind is first read (and its
    import registers the reader with :func:`reader`). A kind of the file format's own
    cannot be taken over."""
    kind_plugins.register_kind_module(kind, module)
    _merge_plugin_kinds()


def _merge_plugin_kinds() -> None:
    """Bring the kinds named in :data:`symrel.kind_plugins.PLUGIN_KINDS` into :data:`KIND_MODULES`."""
    for kind, module in kind_plugins.PLUGIN_KINDS.items():
        if KIND_MODULES.setdefault(kind, module) != module:
            kind_plugins.PLUGIN_KINDS.pop(kind)
            raise ValueError(f"kind {kind!r} is read by {KIND_MODULES[kind]}, not {module}")


_merge_plugin_kinds()


def reader(kind: str):
    """Decorator: register ``fn(obj, path) -> thing`` as the reader of ``kind``."""

    def deco(fn):
        READERS[kind] = fn
        return fn

    return deco


def _class_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def writer(cls: type | str):
    """Decorator: register ``fn(thing) -> dict`` as the writer of ``cls`` (a class, or its
    dotted name ``module.Class``)."""

    def deco(fn):
        WRITERS[cls if isinstance(cls, str) else _class_name(cls)] = fn
        return fn

    return deco


def _import(name: str) -> None:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as err:
        if not (err.name and name.startswith(err.name)):
            raise


def _load_plugins():
    """Import the module of every kind (for writing, and for listing every reader)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    _merge_plugin_kinds()
    for name in dict.fromkeys(KIND_MODULES.values()):
        _import(name)


def _load_kind(kind: str) -> None:
    if kind not in KIND_MODULES:
        _merge_plugin_kinds()
    if kind not in READERS and kind in KIND_MODULES:
        _import(KIND_MODULES[kind])
    if kind not in READERS:
        _model_kind_io(kind)


def _model_kind_io(name) -> None:
    """Register the reader and writer named by a kind module (:mod:`symrel.model_kinds`)."""
    from ..model_kinds import get

    if (kind := get(name) if isinstance(name, str) else None) and kind.read and kind.write:
        READERS.setdefault(name, kind.read)
        WRITERS.setdefault(_class_name(kind.model), kind.write)


@reader("certificate")
def read_certificate(obj, path=""):
    """Certificates are kept as plain JSON; :func:`symrel.checking.check_certificate` reads them."""
    return obj


def _exactify(obj, path: str = ""):
    """Replace every JSON float by its exact binary value (``exact_floats``); a float that has
    none (``1e400``) is refused naming its path."""
    if isinstance(obj, FloatLiteral):
        return rational(obj, exact_floats=True, path=path or "value")
    if isinstance(obj, list):
        return [_exactify(v, f"{path}[{i}]") for i, v in enumerate(obj)]
    if isinstance(obj, dict):
        return {k: _exactify(v, f"{path}.{k}" if path else k) for k, v in obj.items()}
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
    kind = kind_of(obj, path)
    _load_kind(kind)
    if kinds is not None and kind not in kinds:
        raise InputError(f"expected kind {' or '.join(map(repr, kinds))}, got {kind!r}", path=f"{path}.kind" if path else "kind")
    if kind not in READERS:
        raise InputError(f"unknown kind {kind!r}; known kinds: {', '.join(sorted(KIND_MODULES))}", path=f"{path}.kind" if path else "kind")
    if exact_floats:
        obj = _exactify(obj, path)
    return READERS[kind](obj, path)


def to_json(thing) -> dict:
    """The canonical JSON object of a symrel object."""
    for _ in range(2):  # the writers registered so far, then every module of KIND_MODULES and the thing's model kind
        for cls in type(thing).__mro__:
            if _class_name(cls) in WRITERS:
                return WRITERS[_class_name(cls)](thing)
        _load_plugins()
        _model_kind_io(getattr(thing, "kind", None))
    raise InputError(f"symrel cannot write objects of type {type(thing).__name__}")
