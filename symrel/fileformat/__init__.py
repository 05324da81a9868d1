"""The symrel file format (docs/format.md): strict JSON reading, canonical atomic writing.

>>> from symrel.models import CPWL1D
>>> text = dumps(CPWL1D([0, 1], ["1/2", 2]))
>>> loads_object(text) == CPWL1D([0, 1], ["1/2", 2])
True
"""

from __future__ import annotations

import os
from ..lazy_names import lazy_names

from ..errors import InputError

#: the names of the package defined in its submodules, and the submodule of each: imported
#: on first use (PEP 562), so that a reader of one kind loads neither the writers nor every
#: model kind (the checker reads its inputs with its own readers, :mod:`symrel.checking.inputs`)
_FROM = {
    **dict.fromkeys(["canonical_dumps", "sha256_of"], "canonical"),
    **dict.fromkeys(["loads", "read_json", "write_bytes_atomic", "write_json_atomic", "write_text_atomic"], "jsonio"),
    **dict.fromkeys(["Points", "Values"], "models_io"),
    **dict.fromkeys(["READERS", "WRITERS", "from_json", "kind_of", "reader", "to_json", "writer"], "registry"),
}

__getattr__, __dir__ = lazy_names(__name__, _FROM, globals())


MODEL_KINDS = ("maxout", "relu", "cpwl1d", "cpwl", "transformer")
DOMAIN_KINDS = ("box", "polytope")


def load(path: str | os.PathLike, *, kinds: tuple[str, ...] | None = None, exact_floats: bool = False):
    """Read a symrel file; every error names the file and the path inside it."""
    from .jsonio import read_json
    from .registry import from_json

    obj = read_json(path)
    try:
        return from_json(obj, kinds=kinds, exact_floats=exact_floats)
    except InputError as err:
        raise err.in_file(str(path)) from None


def load_model(path, *, exact_floats: bool = False):
    """Read a model file (maxout, relu, cpwl1d, cpwl, transformer, or a kind of :mod:`symrel.kinds`)."""
    from ..model_kinds import names

    return load(path, kinds=tuple(dict.fromkeys(MODEL_KINDS + names())), exact_floats=exact_floats)


def load_domain(path):
    """Read a domain file (box or polytope)."""
    return load(path, kinds=DOMAIN_KINDS)


def dumps(thing) -> str:
    """The canonical text of a symrel object."""
    from .canonical import canonical_dumps
    from .registry import to_json

    return canonical_dumps(to_json(thing))


def loads_object(text: str, *, kinds=None, exact_floats: bool = False):
    """Parse canonical (or any valid) symrel text into an object."""
    from .jsonio import loads
    from .registry import from_json

    return from_json(loads(text), kinds=kinds, exact_floats=exact_floats)


def save(thing, path: str | os.PathLike) -> None:
    """Write a symrel object in canonical form, atomically."""
    from .jsonio import write_text_atomic

    write_text_atomic(path, dumps(thing))


__all__ = sorted([*_FROM, "MODEL_KINDS", "DOMAIN_KINDS", "load", "load_model", "load_domain", "dumps", "loads_object",
                  "save"])
