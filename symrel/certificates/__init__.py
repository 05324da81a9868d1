"""Proof objects shared by every prover (see :mod:`symrel.certificates.core`), and the
registry of rule names (:mod:`symrel.certificates.rules`).

The names below are imported from :mod:`symrel.certificates.core` on first use (PEP 562),
so that the checker, which reads the rule names alone, does not load the proof objects.

>>> from symrel.certificates import PROVED
>>> PROVED
'proved'
"""

from ..lazy_names import lazy_names

__all__ = ["OPEN", "PROVED", "REFUTED", "STATUSES", "Proof", "Step"]

__getattr__, __dir__ = lazy_names(__name__, dict.fromkeys(__all__, "core"), globals())
