"""Proof objects shared by every prover (see :mod:`symrel.certificates.core`), and the
registry of rule names (:mod:`symrel.certificates.rules`).

The names below are imported from :mod:`symrel.certificates.core` on first use (PEP 562),
so that the checker, which reads the rule names alone, does not load the proof objects.

>>> from symrel.certificates import PROVED
>>> PROVED
'proved'
"""

from importlib import import_module

__all__ = ["OPEN", "PROVED", "REFUTED", "STATUSES", "Proof", "Step"]


def __getattr__(name: str):
    """``symrel.certificates.NAME``: imported from :mod:`symrel.certificates.core` on first use."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(".core", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
