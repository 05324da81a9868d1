"""``symrel prove A.json B.json --domain D.json [--report R.md] [--certificate C.json]
[--counterexample X.json] [--complete] [--executor SPEC] [--json]``.

Proves or refutes "for all x in D, A(x) = B(x)" layer by layer (maxout / ReLU / CPWL
against a hardmax Transformer, or any two of them). Exit 0 proved (certificate and
report written when asked), 1 refuted (the counterexample printed, written as a points
file when asked, and the report, led by the counterexample and both exact outputs,
written when asked as .md, .tex or .html), 3 open (the obstacle printed; a report
written when asked). Where a report was written is said on standard error.
"""

from __future__ import annotations

import sys

from ...exact import format_rational
from ...fileformat import Points, load_domain, save, write_text_atomic
from ...budget import Budget
from ...errors import InputError
from ..common import (DISPLAY_DIGITS, add_json_flag, add_progress_option, in_domain_file, integer_option, positive_seconds,
                      print_json, shown, shown_point)
from ..executors import add_executor_option, open_executor
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("prove", help=SUMMARIES["prove"])
    p.add_argument("a", help="first model (maxout, relu, cpwl1d, cpwl or transformer)")
    p.add_argument("b", help="second model")
    p.add_argument("--domain", required=True, help="domain file (a box)")
    p.add_argument("--report", help="write a report of the proof, also of a refuted or open claim; the format "
                   "follows the extension (.md, .tex, .html; .json: the certificate, proved claims only)")
    p.add_argument("--certificate", help="write the certificate (proved claims only)")
    p.add_argument("--counterexample", help="write the counterexample as a points file (refuted claims only)")
    p.add_argument("--complete", action="store_true", help="use the complete linear-regions decision procedure")
    p.add_argument("--max-cells", type=integer_option, default=None,
                   help="cell limit of the decision procedures when the layers do not correspond (then open, exit 3)")
    p.add_argument("--timeout", type=positive_seconds, default=600.0,
                   help="time limit in seconds (default 600); at the limit: open, exit 3, what stayed open printed")
    add_progress_option(p, "print progress (lemma, nodes, cells) on stderr")
    add_executor_option(p, "the counterexample search and the complete procedure's subtrees")
    add_json_flag(p)
    p.set_defaults(func=run)


def _within_limits(a, b, domain, args) -> None:
    """Refuse, before the proof starts, models whose forms could pass the arithmetic limits
    (``--max-denominator-bits``, ``--max-product-bits``): the domain's common denominator, each
    layer's, and the bits every layer can add to a form's coefficients
    (:mod:`symrel.lowering.sizes`, with the domain's numbers as the inputs')."""
    from ...exact.sizes import number_bits
    from ...lowering.sizes import check_model

    A, c = domain.exact_halfspaces()
    try:
        bits = number_bits([v for row in A for v in row] + list(c), what="the common denominator of the domain")
    except InputError as err:
        raise err.in_file(args.domain) from None
    for model, path in ((a, args.a), (b, args.b)):
        try:
            check_model(model, bits)
        except InputError as err:
            raise err.in_file(path) from None


def run(args) -> int:
    from ...prover import prove_equivalence

    fmt = None
    if args.report:       # the report modules only when a report is asked for (start-up: docs/decision.md)
        from ...report import render_proof, report_format
        from ...report.equivalence import equivalence_report

        fmt = report_format(args.report)
    from ..common import load_model_file

    a, b = load_model_file(args.a), load_model_file(args.b)
    domain = load_domain(args.domain)
    _within_limits(a, b, domain, args)
    budget = Budget(args.timeout, args.max_cells, args.progress)
    try:
        with open_executor(args.executor) as executor, budget.alarm():
            proof = prove_equivalence(a, b, domain, complete=args.complete, executor=executor, budget=budget)
    except InputError as err:
        raise in_domain_file(err, args.domain) from None
    out = {"result": proof.result, "steps": len(proof.steps), "summary": proof.summary()}
    certificate_text = None
    if proof.result == "proved" and (args.certificate or args.report):
        import json

        from ...certificates.io import certificate_of
        from ...checking import stated

        certificate_text = json.dumps(stated(certificate_of(proof)), sort_keys=True, separators=(",", ":")) + "\n"
    if certificate_text is not None and args.certificate:
        write_text_atomic(args.certificate, certificate_text)
    if proof.result == "refuted":
        point = proof.exact_counterexample     # symrel's own rationals: printing them needs no sympy
        x = [format_rational(v) for v in point]
        out["counterexample"] = x
        out["note"] = proof.counterexample_note
        values = proof.counterexample_values(exact=True)
        if values is not None:
            out["max_abs_difference"] = format_rational(values["max |A - B|"])
        if args.counterexample:
            save(Points([list(point)]), args.counterexample)
    elif proof.result == "open":
        out["obstacle"] = proof.obstacle
    said = ""
    if args.report:
        if fmt != "json":
            import hashlib

            digest = None if certificate_text is None else hashlib.sha256(certificate_text.encode("utf-8")).hexdigest()
            write_text_atomic(args.report, equivalence_report(proof, fmt, certificate_sha256=digest))
            said = f"report written to {args.report}"
        elif proof.result == "proved":
            write_text_atomic(args.report, render_proof(proof, "json"))
            said = f"report (the certificate) written to {args.report}"
        else:  # a certificate exists for proved claims only
            said = (f"no report written to {args.report}: a {proof.result} claim has no certificate; "
                    "ask for .md, .tex or .html")
        out["report"] = str(args.report) if said.startswith("report") else None
    if args.json:
        print_json(out)
    else:
        if proof.result == "refuted":
            print(f"counterexample: x = {shown_point(proof.exact_counterexample)}; {proof.counterexample_note}",
                  file=sys.stderr)
            if "max_abs_difference" in out:
                if DISPLAY_DIGITS.get() is not None:  # the note's exact outputs, as decimals too
                    print(f"at x: A(x) = {shown_point(values['A(x)'])}, B(x) = {shown_point(values['B(x)'])}",
                          file=sys.stderr)
                print(f"max |A - B| at x: {shown(values['max |A - B|'], default_digits=6)}", file=sys.stderr)
        elif proof.result == "open":
            print(f"open: {proof.obstacle}", file=sys.stderr)
        if said:
            print(said, file=sys.stderr)
        print(proof.summary())
        print(proof.result)
    return proof.exit_code
