"""Checker for ``claim.kind == "relation"`` certificates.

Re-derives everything from the embedded inputs (a ``relation`` and a
``relation-features`` object) with the exact layer alone:

* every entry: the nets are evaluated exactly at every point and
  ``<phi(x_i), psi(y_j)>`` is compared with ``r[i][j]``; the first mismatch is
  reported as ``entry (i, j)``;
* a symmetric claim needs ``psi = phi`` and a relation on one set;
* ``feature-values``: the recorded feature vectors equal the evaluated ones;
* ``table-row``: rows are covered once each and record the table's values;
* ``table-psd``: ``L`` is unit lower triangular, ``D >= 0``, ``L diag(D) L^T = R``,
  and the column of a zero pivot is the unit vector (the canonical form).

Shares no code with :mod:`symrel.relations.prove`.
"""

from __future__ import annotations

from ..exact import Q, from_rationals, rational, rows
from . import CertificateError, claim_checker


def _numbers(values, where):
    try:
        return [rational(v, path=where) for v in values]
    except Exception as err:  # InputError: not a rational
        raise CertificateError(f"{where}: {err}") from None


@claim_checker("relation")
def check_relation(cert: dict, inputs: dict) -> None:
    claim = cert["claim"]
    relation, features = inputs.get("relation"), inputs.get("features")
    if getattr(relation, "kind", None) != "relation" or getattr(features, "kind", None) != "relation-features":
        raise CertificateError("inputs: expected a 'relation' and a 'features' (relation-features) object")
    symmetric = claim.get("symmetric") is True
    xs = relation.x
    ys = relation.x if relation.y is None else relation.y
    n, m = len(xs), len(ys)
    if claim.get("shape") != [n, m]:
        raise CertificateError(f"claim.shape: expected [{n}, {m}], got {claim.get('shape')}")
    if claim.get("dimension") != features.dimension:
        raise CertificateError(f"claim.dimension: expected {features.dimension}, got {claim.get('dimension')}")
    if symmetric and (features.phi != features.psi or ys != xs):
        raise CertificateError("claim.symmetric: needs psi = phi and a relation on one set")

    # every entry, recomputed by exact evaluation of the nets
    Phi = features.phi.evaluate_matrix(xs)
    Psi = features.psi.evaluate_matrix(ys)
    G = rows(Phi.transpose() * Psi)
    table = rows(relation.R)
    for i in range(n):
        for j in range(m):
            if G[i][j] != table[i][j]:
                raise CertificateError(
                    f"entry ({i}, {j}): <phi(x_{i}), psi(y_{j})> = {G[i][j]} but r[{i}][{j}] = {table[i][j]}"
                )

    seen_rows = set()
    for s, step in enumerate(cert["steps"]):
        where, rule, data = f"steps[{s}]", step.get("rule"), step.get("certificate", {})
        if step.get("status") != "proved":
            raise CertificateError(f"{where}: status is {step.get('status')!r}, not proved")
        if rule == "feature-values":
            if [_numbers(r, f"{where}.phi") for r in data["phi"]] != [list(c) for c in zip(*rows(Phi))]:
                raise CertificateError(f"{where}: recorded phi(x_i) differ from the evaluated nets")
            if "psi" in data and [_numbers(r, f"{where}.psi") for r in data["psi"]] != [list(c) for c in zip(*rows(Psi))]:
                raise CertificateError(f"{where}: recorded psi(y_j) differ from the evaluated nets")
        elif rule == "table-row":
            i = data["row"]
            if not isinstance(i, int) or not 0 <= i < n or i in seen_rows:
                raise CertificateError(f"{where}: row {i!r} is out of range or repeated")
            seen_rows.add(i)
            if _numbers(data["values"], f"{where}.values") != table[i]:
                raise CertificateError(f"{where}: recorded values differ from row {i} of r")
        elif rule == "table-psd":
            _check_ldl(data, relation.R, n, where)
        else:
            raise CertificateError(f"{where}: unknown rule {rule!r}")
    if seen_rows != set(range(n)):
        raise CertificateError(f"steps: rows {sorted(set(range(n)) - seen_rows)} of the table are not covered")


def _check_ldl(data, R, n, where):
    L = [_numbers(r, f"{where}.L") for r in data["L"]]
    D = _numbers(data["D"], f"{where}.D")
    if len(L) != n or any(len(r) != n for r in L) or len(D) != n:
        raise CertificateError(f"{where}: expected L of shape {n}x{n} and {n} pivots")
    for i in range(n):
        for j in range(i, n):
            if L[i][j] != (Q(1) if i == j else Q(0)):
                raise CertificateError(f"{where}: L is not unit lower triangular at ({i}, {j})")
    for k, d in enumerate(D):
        if d < 0:
            raise CertificateError(f"{where}: pivot D[{k}] = {d} is negative")
        # a zero pivot's column plays no part in L D L^T: it must be e_k, so that
        # every recorded number is checked
        if d == 0 and any(L[i][k] for i in range(k + 1, n)):
            raise CertificateError(f"{where}: column {k} of L belongs to a zero pivot and must be e_{k}")
    Lm = from_rationals(L, (n, n))
    LD = from_rationals([[L[i][k] * D[k] for k in range(n)] for i in range(n)], (n, n))
    if LD * Lm.transpose() != R:
        raise CertificateError(f"{where}: L diag(D) L^T differs from the table")
