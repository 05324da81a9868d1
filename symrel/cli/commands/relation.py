"""``symrel relation R.json [--symmetric] -o FEATURES.json [--report R.md] [--certificate C.json] [--json]``.

Reads a ``relation`` table and writes ``relation-features``: two ReLU nets phi,
psi with ``<phi(x_i), psi(y_j)> = r(x_i, y_j)`` exactly, proved entry by entry.
With ``--symmetric`` the table must be symmetric on one set (else exit 2) and
positive semidefinite: then psi = phi; a table that is not PSD is refuted
(exit 1, no output file) with a witness z, ``z^T R z < 0``. The last line of
plain output is the feature dimension.
"""

from __future__ import annotations

import sys

from ...errors import SymrelError
from ...exact import format_rational
from ...fileformat import load, save, write_json_atomic, write_text_atomic
from ..common import add_json_flag, print_json


def register(sub):
    p = sub.add_parser("relation", help="exact ReLU features phi, psi realising a relation table")
    p.add_argument("relation", help="relation file (kind: relation)")
    p.add_argument("--symmetric", action="store_true", help="one feature map (psi = phi); needs a symmetric PSD table")
    p.add_argument("-o", "--output", required=True, help="relation-features file to write (atomically)")
    p.add_argument("--report", help="write a Markdown report (neurons against the table size)")
    p.add_argument("--certificate", help="write the certificate of the entrywise proof")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...proof.io import certificate_of
    from ...relations import NotPSDWitness, factor_relation, factors_to_features, prove_relation
    from ...relations.report import relation_report, relation_summary

    relation = load(args.relation, kinds=("relation",))
    try:
        factors = factor_relation(relation, symmetric=args.symmetric)
    except SymrelError as err:
        if hasattr(err, "in_file"):
            raise err.in_file(args.relation) from None
        raise
    if isinstance(factors, NotPSDWitness):
        return _refuted(args, factors)
    features = factors_to_features(relation, factors)
    proof = prove_relation(relation, features, symmetric=args.symmetric, ldl=factors.ldl)
    if not proof.proved:  # the construction is exact; reaching this is a bug, never a silent success
        raise SymrelError(f"internal error: the constructed features fail: {proof.obstacle}")
    summary = relation_summary(relation, factors, features)
    outputs = [(args.output, lambda p: save(features, p))]
    if args.report:
        outputs.append((args.report, lambda p: write_text_atomic(p, relation_report(relation, factors, features, proof))))
    if args.certificate:
        outputs.append((args.certificate, lambda p: write_json_atomic(p, certificate_of(proof))))
    for path, write in outputs:
        write(path)
    if args.json:
        print_json({"result": proof.result, "output": args.output, **summary})
    else:
        n, m = summary["table"]
        print(f"proved: <phi(x_i), psi(y_j)> = r(x_i, y_j) for all {n} x {m} entries ({summary['method']})")
        print(f"rank {summary['rank']}, hidden ReLUs phi {summary['phi_relus']}, psi {summary['psi_relus']}"
              + (" (psi = phi)" if summary["symmetric"] else ""))
        print(f"wrote {args.output}")
        print(summary["dimension"])
    return 0


def _refuted(args, witness) -> int:
    z = [format_rational(v) for v in witness.z]
    value = format_rational(witness.value)
    if args.json:
        print_json({"result": "refuted", "reason": f"not positive semidefinite: {witness.reason}",
                    "witness": {"z": z, "zRz": value}})
    else:
        print(f"refuted: the table is not positive semidefinite ({witness.reason})", file=sys.stderr)
        print(f"witness z = [{', '.join(map(str, z))}] with z^T R z = {value} < 0", file=sys.stderr)
    return 1
