"""Exact cells and linear regions of piecewise-linear models (docs/theory.md#linear-regions-theorem-44 and docs/theory.md#proofs-and-certificates).

* :func:`count_regions` — activation or linear regions over a polytope domain;
* :func:`certify_regions` — the same counts with a certificate (claim ``regions``);
* :func:`decide_equivalence` — the complete procedure ``a = b on D`` with a
  certificate of every cell, or an exact counterexample;
* :func:`enumerate_cells` — the underlying exact search over ReLU signs, maxout
  winners and hardmax argmax sets (ties as equalities);
* :func:`sawtooth_transformer` — the depth family of docs/theory.md#linear-regions-theorem-44;
* :func:`piecewise_view` — a model on a domain as sympy ``Piecewise``, one piece
  per exact cell (the symbolic view of a hardmax Transformer).
"""

from .certify import certify_regions
from .count import RegionCount, count_regions, merge_linear_regions
from .enumerate_cells import Cell, Enumeration, enumerate_cells
from .equivalence import decide_equivalence
from .net_to_cpwl_mesh import net_to_cpwl_mesh
from .sawtooth import depth_table, sawtooth_transformer
from .slices import restrict_to_affine_slice
from .symbolic import piecewise_view

__all__ = [
    "Cell",
    "certify_regions",
    "Enumeration",
    "RegionCount",
    "count_regions",
    "decide_equivalence",
    "depth_table",
    "enumerate_cells",
    "merge_linear_regions",
    "net_to_cpwl_mesh",
    "piecewise_view",
    "restrict_to_affine_slice",
    "sawtooth_transformer",
]
