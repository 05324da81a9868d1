"""Relation functions as inner products of feature maps (Paper B, docs/theory.md#relation-functions-as-inner-products-paper-b).

Pipeline for a finite table: :mod:`.table` (the relation) -> :mod:`.ldl`
(exact PSD test) / :mod:`.table_to_factors` (``R = P Q^T`` over Q, with
:mod:`.squares` for the pivots) -> :mod:`.factors_to_mlp` (ReLU nets phi, psi)
-> :mod:`.prove` (entrywise proof). :mod:`.continuous` handles kernels on a box.

>>> rel = Relation([[0], [1]], [[2, 1], [1, 1]])
>>> feats = relation_features(rel, symmetric=True)
>>> [[str(feats.value(x, y)) for y in rel.x] for x in rel.x]
[['2', '1'], ['1', '1']]
"""

from .factors_to_mlp import NotPSDError, factor_relation, factors_to_features, relation_features, require_symmetric
from .ldl import LDLCertificate, NotPSDWitness, ldl_psd, quadratic_form
from .prove import prove_relation
from .squares import integer_squares, rational_squares
from .table import Relation, RelationFeatures
from .table_to_factors import Factors, gram_factors, rank_factors

__all__ = [n for n in dir() if not n.startswith("_")]
