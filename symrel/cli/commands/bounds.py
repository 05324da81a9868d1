"""``symrel bounds NET (--box B.json | --prop P.vnnlib) [--certificate C.json] [--timeout S]
[--nodes N] [--outputs j,k] [--executor SPEC] [--report R] [--json]``.

Certified bounds of a ReLU network's outputs over a box, with :func:`symrel.bounds`
(docs/api.md): for each output ``Y_j`` (``--outputs``: those listed), exact rationals with
``lower <= Y_j(x) <= upper`` for every ``x`` of the region, checked by the trusted checker
(the ``output-bounds`` certificate; ``--certificate`` keeps it) before they are printed. The
region is a box file (``--box``) or the input region of a ``.vnnlib`` file (``--prop``; its
output constraints are ignored, and the command says so).

The first line printed is ``certified`` (the bounds were checked), ``not checked`` or ``no
bounds``; then two lines per output, each bound with the exact point found nearest to it: a
bound reached there is *attained* (the minimum or the maximum itself), else the point's value
says how far the true extremum can be from the bound (its long numbers printed as decimals;
``--json`` gives them exactly).

Without ``--timeout`` or ``--nodes`` the bounds are those of the whole box (one propagation,
as auto_LiRPA's ``compute_bounds``); ``--timeout S`` spends S seconds on branching to tighten
them, the reading and the trusted check included (the search leaves the check the time it is
expected to need); ``--nodes N`` bounds the branching by nodes instead, which gives the same
bounds on any machine. Exit 0 when the bounds are certified (or computed with ``--no-check``),
3 when the time ran out before they could be checked, 2 on bad input.
"""

from __future__ import annotations

import sys

from ...errors import InputError
from ..common import add_json_flag, add_progress_option, positive_seconds, print_json, shown
from ..executors import add_executor_option
from . import SUMMARIES

#: significant digits of the decimal shown beside a long exact bound (--digits N overrides)
DIGITS = 8

EPILOG = """exit codes: 0 bounds certified (the output-bounds certificate checked by the trusted checker;
with --no-check: computed); 3 the time ran out before the bounds were checked (they are printed,
unchecked; --certificate keeps the certificate); 2 bad input. Without --timeout or --nodes, the
bounds of the whole box, without branching. Format of the certificate: docs/format.md
("output-bounds")."""


def register(sub):
    import argparse

    p = sub.add_parser("bounds", help=SUMMARIES["bounds"], formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=EPILOG)
    p.add_argument("net", help="the network, a ReLU net: .onnx (read bit for bit), .nnet or symrel JSON")
    region = p.add_mutually_exclusive_group(required=True)
    region.add_argument("--box", metavar="B.json", help="the region: a box file {\"kind\": \"box\", \"bounds\": "
                                                        "[[lo, hi], ...]}")
    region.add_argument("--prop", metavar="P.vnnlib",
                        help="the region: the input region of a VNN-LIB file (one box; its output constraints are "
                             "ignored)")
    p.add_argument("--timeout", type=positive_seconds,
                   help="the whole command's time limit in seconds, spent on branching to tighten the bounds: "
                        "reading, search and trusted check")
    p.add_argument("--nodes", type=int, metavar="N",
                   help="most branch-and-bound nodes (the same bounds on any machine)")
    p.add_argument("--outputs", metavar="j,k", help="the outputs to bound, by index from 0 (default: all)")
    p.add_argument("--certificate", metavar="C.json", help="keep the output-bounds certificate here (checked first)")
    p.add_argument("--no-check", action="store_true", help="do not run the trusted checker on the certificate")
    p.add_argument("--report", help="write a report in the format the extension names (.md, .html, .tex; .json: the "
                                    "result as --json prints it)")
    add_executor_option(p, "the branch-and-bound nodes and the certificate's leaves",
                        default="one worker process per usable core, started after a second of work")
    add_progress_option(p, "show the search (nodes, bounds attained, widest gap, nodes/s, time) and the check "
                           "(leaves checked) on standard error")
    add_json_flag(p)
    p.set_defaults(func=run)


def parse_outputs(text: str | None):
    """``--outputs j,k`` as a list of distinct indices (None: all), the option named on error.

    >>> parse_outputs("2,0"), parse_outputs(None)
    ([2, 0], None)
    """
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if not all(p.isdigit() for p in parts):
        raise InputError(f"expected output indices such as 0,2, got {text!r}", path="--outputs")
    out = [int(p) for p in parts]
    if len(set(out)) != len(out):
        raise InputError(f"expected each output once, got {text!r}", path="--outputs")
    return out


def run(args) -> int:
    from ...verification.output_bounds import bounds

    from ..vnn import verify_executor

    if args.report:
        from ...report import report_format

        report_format(args.report)   # a report name whose extension says no format: refused before the work
    if args.nodes is not None and args.nodes < 1:
        raise InputError(f"expected a positive number of nodes, got {args.nodes}", path="--nodes")
    outputs = parse_outputs(args.outputs)
    region = args.box if args.box is not None else args.prop
    with verify_executor(args.executor) as executor:
        result = bounds(args.net, region, timeout=args.timeout, executor=executor, certificate=args.certificate,
                        progress=bool(args.progress), outputs=outputs, nodes=args.nodes, check=not args.no_check)
    word = "certified" if result.checked else "not checked" if result.outputs else "no bounds"
    code = 0 if result.checked or (args.no_check and result.outputs) else 3
    lines = result_lines(result, args.certificate, args.no_check)
    info = {"result": word, "net": args.net, "region": region, **result.to_json()}
    if args.certificate and result.certificate is not None:
        info["certificate"] = args.certificate
    if args.report:
        from ...report.bounds import write_bounds_report

        write_bounds_report(args.report, result, info, lines)
    if args.json:
        print_json(info)
        return code
    print(word)
    for line in lines:
        print(line)
    print(f"{args.net} {region}: {word} in {result.stats.get('seconds', 0.0):.3f} s", file=sys.stderr)
    return code


def result_lines(result, certificate=None, no_check=False) -> list:
    """The lines printed after the first (module docstring)."""
    lines = []
    for b in result.outputs:
        j = b.output
        lines.append(f"Y_{j} >= {_bound_text(b.exact_lower)}" + _point_words(b.least, b.lower_attained, "least"))
        lines.append(f"Y_{j} <= {_bound_text(b.exact_upper)}"
                     + _point_words(b.greatest, b.upper_attained, "greatest"))
    for note in result.notes:
        lines.append(f"note: {note}")
    if result.certificate is not None:
        where = f"certificate {certificate}" if certificate else "certificate (not kept: --certificate C.json)"
        if result.checked:
            lines.append(f"{where}: checked in {result.stats.get('check_seconds', 0.0):.3f} s")
        elif no_check:
            lines.append(f"{where}: not checked (--no-check)")
        else:
            lines.append(f"{where}: written, its check not finished (symrel check-certificate checks it)"
                         if certificate else f"{where}: its check did not finish")
    if result.limit or result.stage:
        lines.append(f"stopped: {result.why()}")
    return lines


#: an exact number of a found point longer than this is printed as a decimal (--json keeps it exact)
SHORT = 24


def _bound_text(q) -> str:
    """A bound exactly, with a decimal beside it when it is long (or as ``--digits`` asks)."""
    from ..common import DISPLAY_DIGITS, fmt

    return shown(q, DIGITS if DISPLAY_DIGITS.get() is not None or len(fmt(q)) > 12 else None)


def _brief(q) -> str:
    """``q`` exactly when short, else as a decimal of :data:`DIGITS` digits (``~0.11825629``)."""
    from ...exact.display import decimal_text
    from ..common import fmt

    exact = fmt(q)
    return exact if len(exact) <= SHORT else "~" + decimal_text(q, DIGITS)


def _point_words(point, attained: bool, which: str) -> str:
    """The point found nearest to a bound: where it is attained, or the least (greatest) value
    found and where; its long numbers as decimals (the exact ones: --json)."""
    if point is None:
        return ""
    x = "(" + ", ".join(_brief(v) for v in point.exact_x) + ")"
    if attained:
        return f"  (attained at x = {x})"
    return f"  ({which} found: {_brief(point.exact_y)} at x = {x})"
