"""Optional libraries, imported on demand with a one-line error naming the extra.

>>> require("math", "numeric").__name__
'math'
>>> require("no_such_module_xyz", "onnx")
Traceback (most recent call last):
...
symrel.interop.extras.MissingExtra: no_such_module_xyz is not installed; install the extra: pip install 'symrel[onnx]'
"""

from __future__ import annotations

import importlib

from ..errors import InputError


class MissingExtra(InputError):
    """An optional dependency is missing (the command line exits with code 2)."""


def require(module: str, extra: str):
    """Import ``module`` or raise :class:`MissingExtra` saying which extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(f"{module} is not installed; install the extra: pip install 'symrel[{extra}]'") from None
