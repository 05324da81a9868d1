"""What the two relation scripts share: factor a table, build its features, prove them,
and the control (a table entry changed by 1/10^6 must be refuted).

Not a proof script itself (its name starts with ``_``, so the runner skips it).
"""

from __future__ import annotations

from ...report import Instance


def relation_instance(name: str, relation, symmetric: bool) -> Instance:
    """Factor ``relation`` exactly (Gram LDL^T + four squares when ``symmetric``, else the
    rank factorisation), interpolate the factor rows by ReLU MLPs, prove every entry."""
    from ...relations import factor_relation, factors_to_features, prove_relation
    from ...relations.report import relation_summary

    factors = factor_relation(relation, symmetric)
    features = factors_to_features(relation, factors)
    proof = prove_relation(relation, features, symmetric=symmetric, ldl=factors.ldl if symmetric else None)
    s = relation_summary(relation, factors, features)
    facts = {"table": f"{s['table'][0]} x {s['table'][1]}", "rank": s["rank"], "feature dimension": s["dimension"],
             "ReLU neurons": s["neurons"], "parameters": s["parameters"]}
    if "squares_per_pivot" in s:
        facts["pivots by number of squares"] = ", ".join(f"{k}: {v}" for k, v in s["squares_per_pivot"].items())
    return Instance(name, proof, facts=facts)


def changed_entry_instance(name: str, relation, symmetric: bool, i: int = 0, j: int = 1) -> Instance:
    """A control: the features built for ``relation`` checked against the same table
    with entry (i, j) (and (j, i) when symmetric) changed by 1/10^6."""
    from ...exact import Q, rows
    from ...relations import Relation, prove_relation, relation_features

    features = relation_features(relation, symmetric)
    table = rows(relation.exact_R)
    table[i][j] += Q(1, 10**6)
    if symmetric:
        table[j][i] = table[i][j]
    changed = Relation(relation.exact_x, table, relation.exact_y)
    return Instance(name, prove_relation(changed, features, symmetric=symmetric),
                    facts={"changed": f"r[{i}][{j}] + 1/10^6"}, expect="refuted")
