"""File-format kinds read by packages above the file format, by module name.

A ``Preorder``, a ``RetrievalTask`` or a ``Relation`` is built by a package above
:mod:`symrel.fileformat`, so the file format cannot import its reader. The package root
names the module that holds each such reader here; :mod:`symrel.fileformat.registry`
imports that module the first time a file of the kind is read.

This module imports nothing, so ``import symrel`` (and ``symrel --version``) can register
the kinds without loading sympy.

>>> register_kind_module("example-kind", "example.module")
>>> PLUGIN_KINDS.pop("example-kind")
'example.module'
"""

from __future__ import annotations

#: kind -> the module (above the file format) whose import registers its reader
PLUGIN_KINDS: dict[str, str] = {}
#: the packages of model-kind modules, one module per kind (:mod:`symrel.model_kinds`)
MODEL_KIND_PACKAGES: list[str] = []


def register_kind_module(kind: str, module: str) -> None:
    """Name ``module`` as the holder of the reader of ``kind`` (imported on first read).

    Registering the same pair again is allowed; a second module for one kind is refused.
    The file format's own kinds cannot be taken over: the registry refuses that when it
    reads this table.
    """
    if PLUGIN_KINDS.get(kind, module) != module:
        raise ValueError(f"kind {kind!r} is read by {PLUGIN_KINDS[kind]}, not {module}")
    PLUGIN_KINDS[kind] = module
