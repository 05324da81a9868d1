"""Checker for ``claim.kind == "relation"`` certificates.

Re-derives everything from the embedded inputs (a ``relation`` and a
``relation-features`` object) with the exact layer alone:

* every entry: the nets are evaluated exactly at every point and
  ``<phi(x_i), psi(y_j)>`` is compared with ``r[i][j]``; the first mismatch is
  reported as ``entry (i, j)``;
* a symmetric claim needs ``psi = phi`` and a relation on one set;
* ``feature-values``: the recorded feature vectors equal the evaluated ones;
* ``table-row``: one step per row, in order, recording the table's values;
* ``table-psd``: ``L`` is unit lower triangular, ``D >= 0``, ``L diag(D) L^T = R``,
  and the column of a zero pivot is the unit vector (the canonical form).

Steps, in order: ``table-psd`` (when the claim says ``psd: true``; symmetric claims
only; optional in certificates written without ``psd``), ``feature-values``,
``table-row`` for rows 0, 1, .., n-1.

Shares no code with :mod:`symrel.relations.prove`.
"""

from __future__ import annotations

from ..exact import Q
from ..exact.sizes import check_product_bits, fan_in_bits, number_bits, weight
from . import CertificateError, at_step, beyond_limit, claim_checker, read

#: the most operations of the entry check, ``n m d + (n + m) (net parameters)`` for an n x m
#: table, d features: counted before the nets are evaluated
MAX_WORK = 20_000_000

#: the most rows of a table-psd step: checking ``L diag(D) L^T = r`` takes about n^3 / 6 products
MAX_LDL_ROWS = 200


def _numbers(values, where, length=None):
    return read.rationals(values, where, length)


def _relation_order(claim, inputs):
    rel = inputs.get("relation")
    n = len(rel.x) if hasattr(rel, "x") else 0
    psd = {True: ["table-psd"], False: []}.get(claim.get("psd"), ["table-psd?"])  # no "psd": written before it was recorded
    return psd + ["feature-values"] + ["table-row"] * n


@claim_checker("relation", rules={"table-psd", "feature-values", "table-row"}, order=_relation_order)
def check_relation(cert: dict, inputs: dict) -> None:
    claim = cert["claim"]
    relation, features = inputs.get("relation"), inputs.get("features")
    if not hasattr(relation, "r") or not hasattr(features, "phi"):
        raise CertificateError("expected a 'relation' and a 'features' (relation-features) object", path="inputs")
    symmetric = read.boolean(claim.get("symmetric"), "claim.symmetric")
    xs = [list(p) for p in relation.x]
    ys = xs if relation.y is None else [list(p) for p in relation.y]
    n, m = len(xs), len(ys)
    shape = [read.integer(v, f"claim.shape[{k}]") for k, v in enumerate(read.array(claim.get("shape"), "claim.shape", 2))]
    if shape != [n, m]:
        raise CertificateError(f"expected [{n}, {m}], got {shape}", path="claim.shape")
    if read.integer(claim.get("dimension"), "claim.dimension") != features.phi.output_dim:
        raise CertificateError(f"expected {features.phi.output_dim}, got {claim.get('dimension')}", path="claim.dimension")
    if symmetric and (features.phi != features.psi or relation.y is not None):
        raise CertificateError("a symmetric claim needs psi = phi and a relation on one set", path="claim.symmetric")
    if features.phi.input_dim != len(xs[0]) or features.psi.input_dim != len(ys[0]):
        raise CertificateError("the feature maps do not take the table's points", path="inputs.features")

    steps = cert["steps"]
    # the numbers of phi(x_i), psi(y_j) and their inner products, bounded before any is computed
    # (symrel.exact.sizes); operations on long numbers count by their size
    from .cell_replay import evaluation_bits

    bits = evaluation_bits(features.phi, number_bits([v for p in xs for v in p], where="inputs.relation.object.x")) \
        + evaluation_bits(features.psi, number_bits([v for p in ys for v in p], where="inputs.relation.object"))
    bits = check_product_bits(bits + fan_in_bits(features.phi.output_dim), where="inputs.features",
                              what="an inner product <phi(x_i), psi(y_j)>")
    ops = n * m * features.phi.output_dim + n * features.phi.num_parameters() + m * features.psi.num_parameters()
    ops *= weight(bits)
    if ops > MAX_WORK:
        raise beyond_limit("relation operations", ops, MAX_WORK, "inputs.relation.object.r")
    if steps[0]["rule"] == "table-psd" and n > MAX_LDL_ROWS:  # before any entry is evaluated
        raise beyond_limit("relation table-psd rows", n, MAX_LDL_ROWS, "steps[0].certificate.L")

    # every entry, recomputed by exact evaluation of the nets
    Phi = [features.phi.evaluate_exact(x) for x in xs]   # phi(x_i), one list per point
    Psi = [features.psi.evaluate_exact(y) for y in ys]
    G = [[sum((a * b for a, b in zip(u, v)), Q(0)) for v in Psi] for u in Phi]
    table = [list(r) for r in relation.r]
    for i in range(n):
        for j in range(m):
            if G[i][j] != table[i][j]:
                raise CertificateError(f"entry ({i}, {j}): <phi(x_{i}), psi(y_{j})> = {G[i][j]} but r[{i}][{j}] = {table[i][j]}",
                                       path=f"inputs.relation.object.r[{i}][{j}]")

    s = 0
    read.boolean(claim.get("psd", False), "claim.psd")
    if steps[0]["rule"] == "table-psd":
        if not symmetric:
            raise CertificateError("a table-psd step belongs to a symmetric claim", path="steps[0]")
        at_step(0)
        _check_ldl(steps[0]["certificate"], table, n, "steps[0].certificate")
        s = 1
    at_step(s)
    where, data = f"steps[{s}].certificate", steps[s]["certificate"]
    read.record(data, where, ("phi",) if symmetric else ("phi", "psi"))
    d = features.phi.output_dim
    if [_numbers(r, f"{where}.phi[{k}]", d) for k, r in enumerate(read.array(data["phi"], f"{where}.phi", n))] \
            != Phi:
        raise CertificateError("recorded phi(x_i) differ from the evaluated nets", path=f"{where}.phi")
    if "psi" in data and [_numbers(r, f"{where}.psi[{k}]", d) for k, r in enumerate(read.array(data["psi"], f"{where}.psi", m))] \
            != Psi:
        raise CertificateError("recorded psi(y_j) differ from the evaluated nets", path=f"{where}.psi")
    for i in range(n):
        k = s + 1 + i
        at_step(k)
        where, data = f"steps[{k}].certificate", steps[k]["certificate"]
        read.record(data, where, ("row", "values"))
        if read.integer(data["row"], f"{where}.row") != i:
            raise CertificateError(f"expected row {i} (rows in order) and its values", path=f"{where}.row")
        if _numbers(data["values"], f"{where}.values") != table[i]:
            raise CertificateError(f"recorded values differ from row {i} of r", path=f"{where}.values")


def _check_ldl(data, table, n, where):
    """``L`` unit lower triangular, ``D >= 0``, zero pivots' columns ``e_k``, ``L diag(D) L^T = r``
    (module docstring); about n^3 / 6 products, so at most :data:`MAX_LDL_ROWS` rows."""
    read.record(data, where, ("L", "D"))
    if n > MAX_LDL_ROWS:
        raise beyond_limit("relation table-psd rows", n, MAX_LDL_ROWS, f"{where}.L")
    L = [_numbers(r, f"{where}.L[{i}]", n) for i, r in enumerate(read.array(data["L"], f"{where}.L", n))]
    D = _numbers(data["D"], f"{where}.D", n)
    for i in range(n):
        for j in range(i, n):
            if L[i][j] != (Q(1) if i == j else Q(0)):
                raise CertificateError("L is not unit lower triangular here", path=f"{where}.L[{i}][{j}]")
    for k, d in enumerate(D):
        if d < 0:
            raise CertificateError(f"pivot {d} is negative", path=f"{where}.D[{k}]")
        # a zero pivot's column plays no part in L D L^T: it must be e_k, so that
        # every recorded number is checked
        for i in range(k + 1, n):
            if d == 0 and L[i][k]:
                raise CertificateError(f"column {k} of L belongs to a zero pivot and must be e_{k}", path=f"{where}.L[{i}][{k}]")
    # L diag(D) L^T: sums of products of three recorded numbers, bounded before any is taken
    bits = 2 * max((number_bits(row, where=f"{where}.L[{i}]") for i, row in enumerate(L)), default=0) \
        + number_bits(D, where=f"{where}.D") + fan_in_bits(n)
    check_product_bits(bits, where=f"{where}.L", what="an entry of L diag(D) L^T")
    if n ** 3 // 6 * weight(bits) > MAX_WORK:
        raise beyond_limit("relation operations", n ** 3 // 6 * weight(bits), MAX_WORK, f"{where}.L")
    LD = [[a * d for a, d in zip(row, D)] for row in L]
    for i in range(n):
        for j in range(n):  # L D L^T is symmetric and L lower triangular: the terms k <= j <= i
            want = sum((LD[i][k] * L[j][k] for k in range(j + 1)), Q(0)) if j <= i else table[j][i]
            if want != table[i][j]:
                raise CertificateError(f"(L diag(D) L^T)[{i}][{j}] differs from r[{i}][{j}]", path=f"{where}.L")


# -- what a checked certificate proves (symrel.checking.claims) ----------------------------
from .claims import claim_statement  # noqa: E402  (the hook below the checker)


@claim_statement("relation", keys=("symmetric", "shape", "dimension"), optional=("psd",),
                 inputs=("relation", "features"))
def statement(claim, inputs) -> str:
    """Every entry of the relation is the inner product of the feature vectors."""
    n, m = claim["shape"]
    out = (f"<phi(x_i), psi(y_j)> = r(x_i, y_j) for all {n} x {m} entries of the relation, with features in "
           f"R^{claim['dimension']}")
    if claim["symmetric"]:
        out += " and psi = phi (symmetric)"
    if claim.get("psd"):
        out += "; the table is positive semidefinite"
    return out
