"""``symrel relation R.json [--symmetric] -o FEATURES.json [--report R.md] [--certificate C.json] [--json]``.

Reads a ``relation`` table and writes ``relation-features``: two ReLU nets phi,
psi with ``<phi(x_i), psi(y_j)> = r(x_i, y_j)`` exactly, proved entry by entry.
With ``--symmetric`` the table must be symmetric on one set (else exit 2) and
positive semidefinite: then psi = phi; a table that is not PSD is refuted
(exit 1, no output file) with a witness z, ``z^T R z < 0``. The last line of
plain output is the feature dimension.

``symrel relation R.json --check FEATURES.json [--symmetric]`` checks given
features against the table instead: exit 0 when every entry matches, exit 1
naming the first failing entry.
"""

from __future__ import annotations

import sys

from ...errors import SymrelError
from ...exact import format_rational
from ...fileformat import load, save, write_json_atomic
from ..common import add_json_flag, print_json, shown
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("relation", help=SUMMARIES["relation"])
    p.add_argument("relation", help="relation file (kind: relation)")
    p.add_argument("--symmetric", action="store_true", help="one feature map (psi = phi); needs a symmetric PSD table")
    target = p.add_mutually_exclusive_group(required=True)
    target.add_argument("-o", "--output", help="relation-features file to write (atomically)")
    target.add_argument("--check", metavar="FEATURES", help="check a relation-features file against the table")
    p.add_argument("--report", help="write a report (neurons against the table size) in the format the extension names "
                   "(.md, .tex, .html; .json: the certificate)")
    p.add_argument("--certificate", help="write the certificate of the entrywise proof")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...certificates.io import certificate_of
    from ...checking import stated
    from ...relations import NotPSDWitness, factor_relation, factors_to_features, prove_relation
    from ...relations.report import relation_report, relation_summary

    if args.report:  # a name whose extension names no format is refused before the work
        from ...report import report_format

        report_format(args.report)
    relation = load(args.relation, kinds=("relation",))
    if args.check:
        return _check(args, relation)
    _require_folders(args.output, args.report, args.certificate)
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
        from ...report import write_markdown_report

        outputs.append((args.report, lambda p: write_markdown_report(
            p, relation_report(relation, factors, features, proof), "symrel relation", proof=proof)))
    if args.certificate:
        outputs.append((args.certificate, lambda p: write_json_atomic(p, stated(certificate_of(proof)))))
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
        print(f"feature dimension: {summary['dimension']}")
    return 0


def _require_folders(*paths) -> None:
    """Refuse before any work when an output could not be written, so that no
    output is written unless all of them are."""
    from pathlib import Path

    from ...errors import InputError

    for path in paths:
        if path and not (Path(path).parent if str(Path(path).parent) else Path(".")).is_dir():
            raise InputError("the folder of the output file does not exist", file=str(path))


def _check(args, relation) -> int:
    from ...relations import prove_relation, require_symmetric

    features = load(args.check, kinds=("relation-features",))
    if args.symmetric:
        try:
            require_symmetric(relation)
        except SymrelError as err:
            raise err.in_file(args.relation) from None
    if features.phi.input_dim != len(relation.exact_x[0]) or features.psi.input_dim != len(relation.exact_points()[1][0]):
        from ...errors import InputError

        raise InputError("expected phi (psi) to take points of the dimension of x (y)", path="phi.input_dim", file=args.check)
    proof = prove_relation(relation, features, symmetric=args.symmetric)
    if args.json:
        out = {"result": proof.result}
        if not proof.proved:
            out["reason"] = proof.obstacle if proof.counterexample is None else proof.counterexample_note
            if "failing_entry" in proof.extra:
                out["entry"] = list(proof.extra["failing_entry"])
        print_json(out)
    elif proof.proved:
        print(proof.summary())
    else:
        print(f"refuted: {proof.counterexample_note or proof.obstacle}", file=sys.stderr)
    return proof.exit_code


def _refuted(args, witness) -> int:
    z = [format_rational(v) for v in witness.z]
    value = format_rational(witness.value)
    if args.json:
        print_json({"result": "refuted", "reason": f"not positive semidefinite: {witness.reason}",
                    "witness": {"z": z, "zRz": value}})
    else:
        print(f"refuted: the table is not positive semidefinite ({witness.reason})", file=sys.stderr)
        print(f"witness z = [{', '.join(shown(v) for v in witness.z)}] with z^T R z = {shown(witness.value)} < 0",
              file=sys.stderr)
    return 1
