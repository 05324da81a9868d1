"""``symrel export-coq CERT.json -o DIR [--replay] [--json]``: the certificate's claim as a
Coq folder that Coq's kernel replays (docs/coq.md).

Writes the library (``Semantics.v``, ``Compiler.v``, ``Correctness.v``), ``Instance.v``
(the net, the box and the Transformer as exact rational data, and the claim proved by
computation) and ``_CoqProject``; for a vnnlib-unsat certificate, ``VnnProp.v``,
``VnnCheck.v``, ``VnnSound.v`` and an ``Instance.v`` whose ``claim : vnnlib_unsat net prop``
is proved by running the checker (``vm_compute``) and its soundness theorem (of a layered
net: ``Layered.v``, ``LayeredData.v``, ``LayeredCheck.v``, ``LayeredSound.v`` and ``claim :
layered_unsat net prop``); build it with
``coq_makefile -f _CoqProject -o Makefile && make``. ``--replay`` also runs ``coqc`` on it
(exit 1 when Coq rejects it, 2 when coqc is not installed). Exit 2, with nothing written,
for a certificate that is neither vnnlib-unsat nor an equivalence of a maxout or ReLU net and
a hardmax Transformer on a box, or whose Transformer does not have three blocks per layer.
"""

from __future__ import annotations

import sys

from ...errors import InputError
from ...fileformat import read_json
from ..common import add_json_flag, print_json
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("export-coq", help=SUMMARIES["export-coq"])
    p.add_argument("certificate", help="a certificate JSON file (an equivalence of a maxout/ReLU net and its "
                                       "compiled Transformer on a box, or vnnlib-unsat of a ReLU or "
                                       "layered net; docs/coq.md)")
    p.add_argument("-o", "--output", required=True, help="folder to write (created if missing)")
    p.add_argument("--replay", action="store_true", help="also build the folder with coqc and report")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...interop.coq import coqc_available, export_coq, replay
    from ...interop.coq_vnnlib import export_vnnlib_coq, is_vnnlib

    cert = read_json(args.certificate)
    if is_vnnlib(cert):  # a vnnlib-unsat certificate: the checker VnnCheck.v (LayeredCheck.v) replays it
        export_coq = export_vnnlib_coq
    if args.replay and coqc_available() is None:
        raise InputError("--replay needs coqc (Coq 8.16: apt-get install coq)", path="--replay")
    try:
        written = export_coq(cert, args.output)
    except InputError as err:
        raise err.in_file(args.certificate) from None
    result = {"output": str(args.output), "files": [p.name for p in written]}
    if args.replay:
        r = replay(args.output)
        result.update({"replayed": r["ok"], "coqc_seconds": round(r["seconds"], 3), "theorem": r.get("theorem"),
                       "assumptions": r["assumptions"]})
        if not r["ok"]:
            result["failed"] = r.get("failed")
            print(f"symrel: coqc rejected {r.get('failed') or 'the claim'}: {r['log'].strip()[:2000]}",
                  file=sys.stderr)
    if args.json:
        print_json(result)
    else:
        print(f"wrote {', '.join(result['files'])} into {args.output}")
        print(f"build: cd {args.output} && coq_makefile -f _CoqProject -o Makefile && make")
        if args.replay:
            print(f"coqc: {'accepted' if r['ok'] else 'rejected'} in {r['seconds']:.1f} s; "
                  f"Print Assumptions {r.get('theorem')}: {r['assumptions']}")
    return 0 if not args.replay or r["ok"] else 1
