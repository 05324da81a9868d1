"""Exact audits of tracr-compiled Transformers (THEORY.md section 8).

tracr is an optional extra (``pip install 'symrel[tracr]'``); every function imports
it on demand and raises :class:`~symrel.interop.extras.MissingExtra` without it.
"""

from .importing import INSTALL, from_tracr, require_tracr

__all__ = ["INSTALL", "from_tracr", "require_tracr"]

from .audit import audit_tracr  # noqa: E402
from .coldness import Coldness, certified_coldness  # noqa: E402

__all__ += ["audit_tracr", "Coldness", "certified_coldness"]
