"""Proof that features realise a relation table, entry by entry.

Claim: ``<phi(x_i), psi(y_j)> = r(x_i, y_j)`` for every i, j (and, in the
symmetric case, ``psi = phi`` and the table is PSD). Steps:

1. ``table-psd`` (symmetric claims, optional): the LDL^T certificate ``L, D``.
2. ``feature-values``: the exact values ``phi(x_i)`` (and ``psi(y_j)``), computed
   by evaluating the nets.
3. ``table-row`` i, one per row: ``<phi(x_i), psi(y_j)> = r[i][j]`` for all j.

The first entry that fails refutes the claim: the proof records the entry, both
values, and the pair ``(x_i, y_j)`` as its counterexample (x's coordinates first).
:mod:`symrel.checking.relations` re-verifies every number from the embedded inputs.

>>> from symrel.relations.table import Relation
>>> from symrel.relations.factors_to_mlp import relation_features
>>> rel = Relation([[0], [1]], [[2, 1], [1, 1]])
>>> prove_relation(rel, relation_features(rel, symmetric=True), symmetric=True).summary()
'proved: 3 steps (3 proved, 0 open, 0 refuted)'
"""

from __future__ import annotations

from ..exact import format_matrix, format_rational, rows
from ..certificates import PROVED, REFUTED, Proof, Step
from .ldl import LDLCertificate
from .table import Relation, RelationFeatures

CONSTRUCTION = "symrel construction realising Paper B's inner-product features on a finite table"


def feature_matrices(relation: Relation, features: RelationFeatures):
    """``(Phi, Psi)``: the feature vectors as columns, ``k x n`` and ``k x m``."""
    xs, ys = relation.exact_points()
    Phi = features.phi.evaluate_matrix(xs)
    Psi = Phi if features.psi is features.phi and relation.one_set else features.psi.evaluate_matrix(ys)
    return Phi, Psi


def prove_relation(
    relation: Relation,
    features: RelationFeatures,
    *,
    symmetric: bool = False,
    ldl: LDLCertificate | None = None,
) -> Proof:
    """Check ``<phi(x_i), psi(y_j)> = r[i][j]`` for every entry exactly.

    Cost: one batch evaluation of each net and one product ``Phi^T Psi``."""
    n, m = relation.shape
    proof = Proof(
        claim=f"<phi(x_i), psi(y_j)> = r(x_i, y_j) for all {n} x {m} entries"
        + (" with psi = phi (symmetric)" if symmetric else ""),
        construction=CONSTRUCTION,
        claim_data={"kind": "relation", "symmetric": symmetric, "shape": [n, m], "dimension": features.dimension,
                    "psd": ldl is not None},
        inputs={"relation": relation, "features": features},
    )
    if symmetric and features.psi != features.phi:
        proof.add(Step("psi = phi", "same-net", {}, REFUTED, note="a symmetric claim needs one feature map"))
        return proof
    if ldl is not None:
        proof.add(Step("the table is positive semidefinite: R = L diag(D) L^T, D >= 0", "table-psd",
                       {"L": [[format_rational(v) for v in r] for r in ldl.L], "D": [format_rational(d) for d in ldl.D]},
                       PROVED))
    Phi, Psi = feature_matrices(relation, features)
    values = {"phi": format_matrix(Phi.transpose())}
    if not symmetric:
        values["psi"] = format_matrix(Psi.transpose())
    proof.add(Step("the feature values at the table's points", "feature-values", values, PROVED))
    G = rows(Phi.transpose() * Psi)
    table = rows(relation.exact_R)
    for i in range(n):
        j = next((j for j in range(m) if G[i][j] != table[i][j]), None)
        if j is None:
            proof.add(Step(f"<phi(x_{i}), psi(y_j)> = r[{i}][j] for every j", "table-row",
                           {"row": i, "values": [format_rational(v) for v in table[i]]}, PROVED))
            continue
        note = f"entry ({i}, {j}): <phi(x_{i}), psi(y_{j})> = {format_rational(G[i][j])} but r[{i}][{j}] = {format_rational(table[i][j])}"
        proof.add(Step(f"<phi(x_{i}), psi(y_j)> = r[{i}][j] for every j", "table-row",
                       {"row": i, "column": j, "value": format_rational(G[i][j]), "expected": format_rational(table[i][j])},
                       REFUTED, note=note))
        proof.refute(list(relation.exact_x[i]) + list(relation.exact_points()[1][j]), note=note)
        proof.extra["failing_entry"] = (i, j)
        return proof
    return proof
