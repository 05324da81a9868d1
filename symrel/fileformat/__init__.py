"""The symrel file format (docs/format.md): strict JSON reading, canonical atomic writing.

>>> from symrel.models import CPWL1D
>>> text = dumps(CPWL1D([0, 1], ["1/2", 2]))
>>> loads_object(text) == CPWL1D([0, 1], ["1/2", 2])
True
"""

from __future__ import annotations

import os

from ..errors import InputError
from .jsonio import canonical_dumps, loads, read_json, sha256_of, write_bytes_atomic, write_json_atomic, write_text_atomic
from .models_io import Points, Values
from .registry import READERS, WRITERS, from_json, kind_of, reader, to_json, writer

MODEL_KINDS = ("maxout", "relu", "cpwl1d", "cpwl", "transformer")
DOMAIN_KINDS = ("box", "polytope")


def load(path: str | os.PathLike, *, kinds: tuple[str, ...] | None = None, exact_floats: bool = False):
    """Read a symrel file; every error names the file and the path inside it."""
    obj = read_json(path)
    try:
        return from_json(obj, kinds=kinds, exact_floats=exact_floats)
    except InputError as err:
        raise err.in_file(str(path)) from None


def load_model(path, *, exact_floats: bool = False):
    """Read a model file (maxout, relu, cpwl1d, cpwl or transformer)."""
    return load(path, kinds=MODEL_KINDS, exact_floats=exact_floats)


def load_domain(path):
    """Read a domain file (box or polytope)."""
    return load(path, kinds=DOMAIN_KINDS)


def dumps(thing) -> str:
    """The canonical text of a symrel object."""
    return canonical_dumps(to_json(thing))


def loads_object(text: str, *, kinds=None, exact_floats: bool = False):
    """Parse canonical (or any valid) symrel text into an object."""
    return from_json(loads(text), kinds=kinds, exact_floats=exact_floats)


def save(thing, path: str | os.PathLike) -> None:
    """Write a symrel object in canonical form, atomically."""
    write_text_atomic(path, dumps(thing))


__all__ = [n for n in dir() if not n.startswith("_")]
