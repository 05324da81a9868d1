"""``symrel check-certificate C.json [--json]``: re-verify a certificate independently.

Exit 0 when every recorded number is recomputed and matches, 1 when a check fails
(the message names the step), 2 when the file is not a certificate at all.
"""

from __future__ import annotations

from ...errors import InputError
from ...fileformat import read_json
from ..common import add_json_flag, print_json


def register(sub):
    p = sub.add_parser("check-certificate", help="re-check a certificate with exact arithmetic (independent checker)")
    p.add_argument("certificate")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...checking import CertificateError, check_certificate

    cert = read_json(args.certificate)
    if not isinstance(cert, dict) or cert.get("kind") != "certificate" or cert.get("symrel") != 1:
        raise InputError("expected a symrel certificate (symrel: 1, kind: certificate)", path="kind").in_file(
            args.certificate)
    try:
        summary = check_certificate(cert)
    except CertificateError as err:
        if args.json:
            print_json({"result": "failed", "error": str(err)})
        else:
            print("failed")
        import sys

        print(f"symrel: certificate check failed: {err}", file=sys.stderr)
        return 1
    if args.json:
        print_json(summary)
    else:
        print(f"{summary['claim']} certificate: {summary['steps']} steps re-checked")
        print("checked")
    return 0
