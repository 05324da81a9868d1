"""``symrel check-certificate C.json [--json]``: check a certificate with the trusted checker.

Prints the claim, the steps checked per rule and, last, ``checked``. Exit codes:
0 only when the certificate is checked; 1 when it is rejected (standard error names
the JSON path of the first failing step and field); 2 when the file is malformed
(not JSON, or not shaped like a certificate: docs/format.md, "Certificates").
"""

from __future__ import annotations

import sys

from ...errors import InputError
from ...fileformat import read_json
from ..common import add_json_flag, print_json
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("check-certificate", help=SUMMARIES["check-certificate"])
    p.add_argument("certificate")
    p.add_argument("--coq", action="store_true",
                   help="also replay the claim in Coq (equivalence of a maxout/ReLU net and its compiled "
                        "Transformer on a box; needs coqc; docs/coq.md) and say which checks ran")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...checking import CertificateError, MalformedCertificate, check_certificate

    cert = read_json(args.certificate)
    if getattr(args, "coq", False):
        from ...interop.coq import coqc_available

        if coqc_available() is None:
            raise InputError("--coq needs coqc (Coq 8.16: apt-get install coq); nothing was checked", path="--coq")
    try:
        summary = check_certificate(cert)
    except MalformedCertificate as err:
        raise InputError(err.message, path=err.path).in_file(args.certificate) from None
    except CertificateError as err:
        at = err.step() or err.path
        if args.json:
            print_json({"result": "rejected", "step": err.step(), "path": err.path, "rule": err.rule, "error": str(err)})
        else:
            print("rejected")
        print(f"symrel: certificate rejected at {at}: {err}" if at else f"symrel: certificate rejected: {err}",
              file=sys.stderr)
        return 1
    coq = _coq_replay(cert, args) if getattr(args, "coq", False) else None
    if coq is not None:
        summary = {**summary, "coq": coq}
    if args.json:
        print_json(summary)
        return 0 if coq is None or coq["ok"] else 1
    statement = cert["claim"].get("statement")
    print(f"claim: {summary['claim']}" + (f": {' '.join(str(statement).split())}" if statement else ""))
    print(f"steps checked: {summary['steps']}")
    for rule, n in summary["rules"].items():
        print(f"  {rule}: {n}")
    if coq is not None:
        for check, result in coq["checks"].items():
            print(f"coq: {check}: {result}")
        if not coq["ok"]:
            print("rejected by coq")
            print(f"symrel: coq rejected the replay: {coq['log'].strip()[:2000]}", file=sys.stderr)
            return 1
    print("checked")
    return 0


def _coq_replay(cert, args) -> dict:
    """The Coq replay (symrel.interop.coq.replay_certificate), or why there is none."""
    from ...interop.coq import replay_certificate

    try:
        return {k: v for k, v in replay_certificate(cert).items()}
    except InputError as err:  # a claim Coq does not replay: say so, the Python check stands
        return {"ok": True, "formal": False, "checks": {"replay": f"not run ({err.message})"}, "log": ""}
