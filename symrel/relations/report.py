"""Markdown report of a relation -> features construction (neurons vs table size).

>>> from symrel.relations.table import Relation
>>> from symrel.relations.factors_to_mlp import factor_relation, factors_to_features
>>> rel = Relation([[0], [1], [2]], [[1, 1, 0], [1, 2, 1], [0, 1, 1]])
>>> fac = factor_relation(rel, symmetric=True)
>>> summary = relation_summary(rel, fac, factors_to_features(rel, fac))
>>> summary["table_entries"], summary["rank"], summary["neurons"]
(9, 2, 2)
"""

from __future__ import annotations

from .table import Relation, RelationFeatures
from .table_to_factors import Factors


def relation_summary(relation: Relation, factors: Factors, features: RelationFeatures) -> dict:
    """Sizes that matter: table entries, rank, feature dimension, ReLU counts."""
    n, m = relation.shape
    shared = features.psi is features.phi
    out = {
        "table": [n, m],
        "table_entries": n * m,
        "rank": factors.rank,
        "method": factors.method,
        "dimension": factors.dimension,
        "phi_relus": features.phi.num_relus,
        "psi_relus": features.psi.num_relus,
        "neurons": features.phi.num_relus + (0 if shared else features.psi.num_relus),
        "parameters": features.phi.num_parameters() + (0 if shared else features.psi.num_parameters()),
        "symmetric": shared,
    }
    if factors.squares_per_pivot is not None:
        counts = factors.squares_per_pivot
        out["squares_per_pivot"] = {str(s): counts.count(s) for s in sorted(set(counts))}
    return out


def relation_report(relation: Relation, factors: Factors, features: RelationFeatures, proof) -> str:
    """The report: construction, sizes against the table, and the proof's steps."""
    s = relation_summary(relation, factors, features)
    n, m = s["table"]
    lines = [
        "# Relation as an inner product of ReLU features\n",
        f"Claim: {proof.claim}. **Result: {proof.result}** ({proof.summary()}).\n",
        "Construction (symrel construction realising Paper B's finite-table statement, docs/theory.md#relation-functions-as-inner-products-paper-b): "
        + (
            "exact LDL^T of the table, each pivot a sum of rational squares (Lagrange), so R = Phi Phi^T over Q; "
            "phi interpolates the rows of Phi exactly (one hidden ReLU layer), psi = phi.\n"
            if s["symmetric"]
            else "exact rank factorisation R = P Q^T from the reduced row echelon form; phi and psi interpolate "
            "the rows of P and Q exactly (one hidden ReLU layer each).\n"
        ),
        "| quantity | value |",
        "|---|---|",
        f"| table | {n} x {m} = {s['table_entries']} entries |",
        f"| rank | {s['rank']} |",
        f"| feature dimension | {s['dimension']} |",
        f"| hidden ReLUs of phi | {s['phi_relus']} |",
        f"| hidden ReLUs of psi | {s['psi_relus']}" + (" (psi = phi)" if s["symmetric"] else "") + " |",
        f"| neurons in total | {s['neurons']} (table entries per neuron: {s['table_entries'] / max(s['neurons'], 1):.1f}) |",
        f"| parameters in total | {s['parameters']} |",
    ]
    if "squares_per_pivot" in s:
        per = ", ".join(f"{count} pivots with {k} squares" for k, count in s["squares_per_pivot"].items())
        lines.append(f"| squares per pivot | {per} |")
    lines.append("")
    lines.append(
        "Each net has at most (number of distinct points - 1) hidden ReLUs, whatever the feature dimension, "
        "so the neuron count grows linearly in the table side while the table has n m entries.\n"
    )
    lines.append("## Steps\n")
    for i, step in enumerate(proof.steps, 1):
        lines.append(f"{i}. {step.lemma} - rule `{step.rule}`, {step.status}." + (f" {step.note}" if step.note else ""))
    return "\n".join(lines) + "\n"
