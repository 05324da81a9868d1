"""Exact factors ``R = P Q^T`` -> ReLU feature nets phi, psi (docs/theory.md#relation-functions-as-inner-products-paper-b).

``phi`` interpolates ``x_i -> P[i]`` and ``psi`` interpolates ``y_j -> Q[j]``
exactly (:func:`symrel.constructions.interpolate.interpolating_relu_net`), so
``<phi(x_i), psi(y_j)> = (P Q^T)_ij = r(x_i, y_j)`` on the table. For a Gram
factorisation (``Q is P``, relation on one set) psi is phi itself.

>>> from symrel.relations.table import Relation
>>> rel = Relation([[0], [1], [2]], [[1, 0, 1], [0, 1, 0], [1, 0, 1]])
>>> feats = relation_features(rel, symmetric=True)
>>> feats.psi is feats.phi, [[str(feats.value(x, y)) for y in rel.x] for x in rel.x]
(True, [['1', '0', '1'], ['0', '1', '0'], ['1', '0', '1']])
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import inner
from ..constructions.interpolate import interpolating_relu_net
from .ldl import NotPSDWitness
from .table import Relation, RelationFeatures
from .table_to_factors import Factors, gram_factors, rank_factors


class NotPSDError(InputError):
    """The table was asked to be symmetric PSD and is not; ``witness`` says why."""

    def __init__(self, witness: NotPSDWitness):
        self.witness = witness
        super().__init__(f"the table is not positive semidefinite: {witness.reason}", path="r")


def factor_relation(relation: Relation, symmetric: bool = False) -> Factors | NotPSDWitness:
    """The exact factors of the table: a Gram factorisation when ``symmetric``
    (refuses a table that is not symmetric with an :class:`InputError` naming
    the entry), else the rank factorisation."""
    if symmetric:
        require_symmetric(relation)
        return gram_factors(relation.exact_R)
    return rank_factors(relation.exact_R)


def require_symmetric(relation: Relation) -> None:
    """An :class:`InputError` unless the relation is on one set with a symmetric table."""
    if not relation.one_set:
        raise InputError("a symmetric relation is on one set: omit y (or make it equal to x)", path="y")
    pair = relation.asymmetric_pair()
    if pair is not None:
        i, j = pair
        raise InputError(f"expected a symmetric table, but r[{i}][{j}] != r[{j}][{i}]", path=f"r[{i}][{j}]")


def factors_to_features(relation: Relation, factors: Factors) -> RelationFeatures:
    """The ReLU nets interpolating the factor rows at the relation's points."""
    xs, ys = relation.exact_points()
    phi = interpolating_relu_net(xs, inner(factors, "P"))
    if factors.symmetric and relation.one_set:
        return RelationFeatures(phi, phi)
    psi = interpolating_relu_net(ys, inner(factors, "Q"))
    return RelationFeatures(phi, psi)


def relation_features(relation: Relation, symmetric: bool = False) -> RelationFeatures:
    """phi, psi with ``<phi(x_i), psi(y_j)> = r(x_i, y_j)`` exactly; raises
    :class:`NotPSDError` (carrying the witness) for a symmetric table that is not PSD."""
    factors = factor_relation(relation, symmetric)
    if isinstance(factors, NotPSDWitness):
        raise NotPSDError(factors)
    return factors_to_features(relation, factors)
