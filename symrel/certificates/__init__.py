"""Proof objects shared by every prover (see :mod:`symrel.certificates.core`)."""

from .core import OPEN, PROVED, REFUTED, STATUSES, Proof, Step

__all__ = ["OPEN", "PROVED", "REFUTED", "STATUSES", "Proof", "Step"]
