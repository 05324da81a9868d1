"""Names of a package loaded from their submodule on first use (PEP 562).

A package lists where each public name lives, ``{name: submodule}``, and gets its module
``__getattr__`` and ``__dir__`` from :func:`lazy_names`. Importing the package then costs
nothing; ``package.NAME`` imports the one submodule that defines it, once, and keeps the
name in the package. This is how checking a certificate loads only the modules it uses
(docs/trust.md).

>>> import json.encoder
>>> names = {}
>>> get, listed = lazy_names("json", {"JSONEncoder": "encoder"}, names)
>>> get("JSONEncoder") is json.encoder.JSONEncoder, "JSONEncoder" in names, listed()
(True, True, ['JSONEncoder'])
"""

from __future__ import annotations

from importlib import import_module


def lazy_names(package: str, table: dict[str, str], namespace: dict):
    """``(__getattr__, __dir__)`` for the package named ``package`` whose globals are
    ``namespace``: each name of ``table`` is imported from ``package.<table[name]>`` on first
    use and then kept in ``namespace``. Cost: one import per submodule, once."""

    def __getattr__(name: str):
        if name not in table:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{table[name]}"), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(table))

    __getattr__.__doc__ = f"``{package}.NAME``: imported from its submodule on first use, then kept here."
    return __getattr__, __dir__
