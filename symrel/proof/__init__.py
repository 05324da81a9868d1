"""Proof objects shared by every prover (see :mod:`symrel.proof.core`)."""

from .core import OPEN, PROVED, REFUTED, STATUSES, Proof, Step

__all__ = ["OPEN", "PROVED", "REFUTED", "STATUSES", "Proof", "Step"]
