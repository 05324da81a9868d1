"""``symrel check-certificate C.json [--json] [--coq]``: check a certificate with the trusted checker.

Prints what the certificate proves, as the checker derives it from the certificate's data
(the claim's kind and numbers, the inputs and their sha256; never the free-text
``statement``, which must agree with it), the steps checked per rule and, last, ``checked``
(or ``vacuous`` and why, when the claim speaks of no point). Exit codes: 0 only when the
certificate is checked; 1 when it is rejected (standard error names the file and the JSON
path of the first failing step and field); 2 when the file is malformed (not JSON, a value
of the wrong type, an unknown key, a number beyond a limit: one line naming the file, the
JSON path and what was expected; docs/format.md, "What the checker refuses").
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
                        "Transformer on a box, or vnnlib-unsat; needs coqc; docs/coq.md) and say which checks ran")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...checking import CertificateError, MalformedCertificate, check_certificate
    from ...checking.read import shorten_numbers

    try:
        cert = read_json(args.certificate)
    except InputError as err:
        raise InputError(shorten_numbers(err.message), path=err.path, file=err.file) from None
    if getattr(args, "coq", False):
        from ...interop.coq import coqc_available

        if coqc_available() is None:
            raise InputError("--coq needs coqc (Coq 8.16: apt-get install coq); nothing was checked", path="--coq")
    try:
        summary = check_certificate(cert)
    except MalformedCertificate as err:
        raise InputError(shorten_numbers(str(err)), path=None).in_file(args.certificate) from None
    except CertificateError as err:
        at = err.step() or err.path
        said = shorten_numbers(" ".join(str(err).split()))
        if args.json:
            print_json({"result": "rejected", "step": err.step(), "path": err.path, "rule": err.rule, "error": said})
        else:
            print("rejected")
        where = f" at {at}" if at else ""
        print(f"symrel: {args.certificate}: certificate rejected{where}: {said}", file=sys.stderr)
        return 1
    coq = _coq_replay(cert, args) if getattr(args, "coq", False) else None
    if coq is not None:
        summary = {**summary, "coq": coq}
    if args.json:
        print_json(summary)
        return 0 if coq is None or coq["ok"] else 1
    print(f"claim ({summary['claim']}): {summary['statement']}")
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
    if summary["result"] == "vacuous":
        print(f"vacuous: {summary['vacuous']}; the claim holds of no point and says nothing")
        return 0
    print("checked")
    return 0


def _coq_replay(cert, args) -> dict:
    """The Coq replay (symrel.interop.coq.replay_certificate), or why there is none.
    ``SYMREL_COQ_LIBRARY`` may name a folder of ``build_library`` whose compiled library
    files are reused (docs/coq.md); without it the library is compiled on every run."""
    import os

    from ...interop.coq import replay_certificate
    from ...interop.coq_vnnlib import is_vnnlib, replay_vnnlib_certificate

    if is_vnnlib(cert):
        replay_certificate = replay_vnnlib_certificate
    try:
        return dict(replay_certificate(cert, library=os.environ.get("SYMREL_COQ_LIBRARY") or None))
    except InputError as err:  # a claim Coq does not replay: say so, the Python check stands
        return {"ok": True, "formal": False, "checks": {"replay": f"not run ({err.message})"}, "log": ""}
