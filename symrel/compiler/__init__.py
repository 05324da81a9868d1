"""Maxout -> hardmax Transformer compiler (docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32).

:func:`compile_maxout` / :func:`compile_model` build the Transformer,
:func:`validate` runs cheap structural checks of a compilation; equality with the
source on the domain is proved by :func:`symrel.prover.prove_equivalence`.
"""

from .bases import Layout, SlotMatrix
from .compiling import CONSTRUCTION, Compilation, compile_maxout, compile_model, layout_of
from .domain_to_gates import Gate, domain_box, gating_bounds
from .validating import validate

__all__ = [n for n in dir() if not n.startswith("_")]
