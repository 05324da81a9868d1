"""``symrel verify NET PROP.vnnlib [--timeout S] [--certificate C.json] [--counterexample W.txt]
[--report R.md] [--executor SPEC] [--json]``; ``symrel verify NET PROP --check-witness W.txt``;
``symrel verify --instances instances.csv [--out results.csv]``.

Decides a VNN-LIB property of a ReLU, maxout or layered network exactly (``.onnx`` read bit
for bit, ``.nnet``, or symrel JSON; docs/tutorials/acasxu.md), with :func:`symrel.verify`
(docs/api.md). The first line printed is the verdict:

* ``unsat``: no input of the region meets the unsafe condition. Exit 0. The trusted checker
  checks the engine's ``vnnlib-unsat`` certificate before ``unsat`` is printed (``--no-check``:
  not), and ``--certificate`` keeps it. When the checker finds the property vacuous (its input
  region empty, or its unsafe condition false by its own constants), a line ``vacuous: why``
  says so: the property then holds of no point, whatever the network.
* ``sat``: an exact input of the region at which the exact outputs meet the unsafe
  condition, both printed; ``--counterexample`` writes it in VNN-COMP's format. Exit 1.
* ``unknown``: a limit came first, named with where it came (the import, the search or the
  trusted check); the leaves left open and the fraction of the region covered are printed.
  Exit 3.

``--timeout S`` bounds the whole command: reading the files, the search and the trusted
check (a search that ends late leaves the check the time left; a check that cannot finish
in it is unknown, naming the check, and ``--certificate`` keeps the unchecked certificate).
The search and the check run on one worker process per usable core by default (started
when the work outlasts a second; ``--executor serial`` runs them here); the verdict and the
certificate are the same on any executor. ``--progress`` shows the covered fraction of the
region, the open leaves, nodes per second and the time, then the leaves checked.
``--report`` writes a report in the format its extension names (``.md``, ``.html``,
``.tex``; ``.json``: the verdict as ``--json`` prints it).

Referee mode, ``--check-witness W.txt``: another tool's counterexample (VNN-COMP format) is
checked exactly (in the region? exact outputs against the claimed ones; unsafe condition
exactly?) and, for an ``.onnx`` network with onnxruntime installed, as the competition checks
it (tolerance 1e-4). Exit 0 confirmed; 1 refuted; 4 refuted exactly but accepted by the
competition's float check (a float-only counterexample); 2 a malformed witness.

``--instances L.csv`` runs a competition instance list (``onnx,vnnlib,timeout`` per line,
paths relative to the list) and writes ``--out`` (default ``results.csv`` here):
one row per instance, ``onnx,vnnlib,result,time,certificate,check,check_time``, result
``unsat|sat|unknown|error``; certificates and counterexamples go to ``--certificate-dir``
(default: ``<out>.d/``). Exit 0 when every instance is decided and every certificate checked,
1 when a certificate is rejected or a witness fails its exact check, 3 when some instance
stays undecided or fails.
"""

from __future__ import annotations

import sys

from ...errors import InputError
from ..common import add_json_flag, add_progress_option, fmt, positive_seconds, print_json, shown

#: significant digits of the decimal shown beside a long exact output (--digits N overrides)
DIGITS = 8
from ..executors import add_executor_option
from . import SUMMARIES

EXIT_FLOAT_ONLY = 4

EPILOG = """exit codes: 0 unsat (certificate written and checked); 1 sat (exact witness printed);
3 unknown (at a limit, named: the time, the trusted checker's size limits on a certificate,
tree entries, leaf operations and relaxation bits, or the arithmetic limits denominator bits
and product bits; the open leaves and the covered fraction are printed);
2 bad input (also numbers beyond a double's range, which the search's float proposals need).
--check-witness: 0 the witness is confirmed exactly; 1 refuted; 4 refuted exactly but
accepted by the competition's float check (tolerance 1e-4): a float-only counterexample.
--instances: 0 all decided and every certificate checked; 1 a certificate rejected;
3 some instance undecided or in error. Tutorial: docs/tutorials/acasxu.md."""


def register(sub):
    import argparse

    p = sub.add_parser("verify", help=SUMMARIES["verify"], formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=EPILOG)
    p.add_argument("net", nargs="?", help="the network, a ReLU, maxout or layered net: .onnx (read bit for bit), .nnet or symrel JSON")
    p.add_argument("prop", nargs="?", help="the property, a VNN-LIB file")
    p.add_argument("--timeout", type=positive_seconds,
                   help="the whole command's time limit in seconds: reading, search and trusted check (unknown, "
                        "exit 3, naming where the time ran out)")
    p.add_argument("--certificate", help="unsat: keep the vnnlib-unsat certificate here (checked before unsat is printed)")
    p.add_argument("--no-check", action="store_true", help="do not run the trusted checker on the certificate before printing unsat")
    p.add_argument("--counterexample", help="sat: write the witness here in VNN-COMP's format")
    p.add_argument("--report", help="write a report of the run in the format the extension names (.md, .html, .tex; "
                                    ".json: the verdict as --json prints it)")
    p.add_argument("--check-witness", metavar="W.txt",
                   help="referee mode: check another tool's counterexample exactly (exit 0/1/4)")
    p.add_argument("--instances", metavar="L.csv", help="run a competition instance list (onnx,vnnlib,timeout)")
    p.add_argument("--out", help="with --instances: the results CSV (default results.csv)")
    p.add_argument("--certificate-dir", help="with --instances: where certificates and counterexamples go")
    add_executor_option(p, "the branch-and-bound nodes and the certificate's leaves",
                        default="one worker process per usable core, started after a second of work")
    add_progress_option(p, "show the search (covered fraction, open leaves, nodes/s, time) and the check (leaves "
                           "checked) on standard error")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    if args.instances:
        if args.net or args.prop or args.check_witness or args.certificate or args.counterexample:
            raise InputError("give --instances alone, or NET and PROP", path="--instances")
        from ..vnn import run_instances

        return run_instances(args)
    if not (args.net and args.prop):
        raise InputError("expected NET and PROP.vnnlib (or --instances L.csv)", path="net")
    if args.out or args.certificate_dir:
        raise InputError("--out and --certificate-dir apply to --instances", path="--out")
    if args.report:
        from ...report import report_format

        report_format(args.report)   # a report name the extension of which says no format: refused before the work
    if args.check_witness:
        if args.certificate or args.counterexample:
            raise InputError("--check-witness checks a witness; it writes no certificate or counterexample",
                             path="--check-witness")
        from ...verification.files import network_or_property_error, output_dim, read_network
        from ...vnnlib.reader import read_vnnlib

        net = network_or_property_error(lambda: read_network(args.net), args.prop)
        prop = read_vnnlib(args.prop, n_inputs=net.input_dim, n_outputs=output_dim(net))
        return _referee(args, net, prop)
    return _decide(args)


def verdict_lines(verdict, certificate=None, no_check=False) -> list[str]:
    """The lines printed after the verdict's first line (module docstring)."""
    lines = []
    if verdict.result == "unsat":
        where = f"certificate {certificate}" if certificate else "certificate (not kept: --certificate C.json)"
        check = verdict.stats.get("check_seconds")
        lines.append(f"{where}: " + (f"checked in {check:.3f} s" if not no_check else "not checked (--no-check)"))
        if verdict.stats.get("vacuous"):
            lines.append(f"vacuous: {verdict.stats['vacuous']}; the property holds of no point and says nothing")
    elif verdict.result == "sat":
        lines += [f"X_{i} = {shown(v, DIGITS)}" for i, v in enumerate(verdict.witness.exact_x)]
        lines += [f"Y_{j} = {shown(v, DIGITS)}" for j, v in enumerate(verdict.witness.exact_y)]
    else:
        lines.append(f"open leaves: {verdict.open_leaves}; covered: {_covered_text(verdict.exact_covered)}")
        lines.append(f"stopped at the limit: {verdict.limit}" + LIMIT_WHY.get(verdict.limit, "")
                     + STAGE_WHY.get(verdict.stage, ""))
        if verdict.stage == "check":
            lines[-1] += f" ({verdict.stats.get('leaves_checked', 0)} of {verdict.stats.get('leaves', '?')} leaves checked)"
            if certificate:
                lines.append(f"certificate {certificate}: written, its check not finished (symrel check-certificate "
                             f"{certificate} checks it)")
    return lines


def _decide(args) -> int:
    from ...verification.api import verify

    from ..vnn import verify_executor

    with verify_executor(args.executor) as executor:   # a file's error names it (symrel.verify says which)
        verdict = verify(args.net, args.prop, timeout=args.timeout, executor=executor,
                         certificate=args.certificate, progress=bool(args.progress), check=not args.no_check)
    seconds = verdict.stats.get("seconds", 0.0)
    info = {"result": verdict.result, "net": args.net, "property": args.prop, "time": seconds,
            "property_sha256": verdict.files.get("property", {}).get("sha256"),
            **{k: v for k, v in verdict.to_json().items() if k != "result"}}
    lines = verdict_lines(verdict, args.certificate, args.no_check)
    code = {"unsat": 0, "sat": 1, "unknown": 3}[verdict.result]
    if verdict.result == "unsat":
        if not args.no_check:
            info["check_time"] = verdict.stats.get("check_seconds")
        if args.certificate:
            info["certificate"] = args.certificate
    elif verdict.result == "sat":
        x, outputs = verdict.witness.exact_x, verdict.witness.exact_y
        from ..vnn import float_outputs, write_counterexample

        floats = float_outputs(args.net, x)
        if floats is not None:  # the second confirmation, as the competition would check it
            from ...vnnlib.reader import read_vnnlib
            from ...vnnlib.referee import float_check

            prop = read_vnnlib(args.prop, n_inputs=len(x), n_outputs=len(outputs))
            passes = float_check(prop, x, outputs, floats)["passes"]
            info["onnxruntime_check"] = passes
            lines.append("onnxruntime: " + ("the witness passes the competition's check" if passes else
                         "the witness fails the competition's float check (exactly it holds)"))
        if args.counterexample:
            exact = write_counterexample(args.counterexample, x, outputs)
            info["counterexample"] = args.counterexample
            lines.append(f"counterexample {args.counterexample}" + ("" if exact else
                         " (values rounded to decimals: the exact witness is the one printed above)"))
    elif verdict.certificate is not None and args.certificate:
        info["certificate"] = args.certificate
    if args.report:
        from ...report.verdict import write_verdict_report

        write_verdict_report(args.report, verdict, info, lines)
    if args.json:
        print_json(info)
    else:
        print(verdict.result)
        for line in lines:
            print(line)
        print(f"{args.net} {args.prop}: {verdict.result} in {seconds:.3f} s", file=sys.stderr)
    return code


#: what each of the engine's limits is (symrel.vnnlib.engine.decide)
LIMIT_WHY = {
    "time": " (--timeout)",
    "tree entries": " (the trusted checker's limit on a certificate's tree: a larger one would be refused)",
    "leaf operations": " (the trusted checker's limit on the cost of a certificate's leaves: a larger one "
                       "would be refused)",
    "relaxation bits": " (the trusted checker's limit on the size of a leaf's numbers: the network's or "
                       "the region's numbers are too large for a certificate it accepts)",
    "denominator bits": " (--max-denominator-bits: a layer's weights, or a box of the region, have a common "
                        "denominator longer than exact arithmetic is allowed to build)",
    "product bits": " (--max-product-bits: the exact bounds would compute numbers longer than allowed from the "
                    "network's and the region's numbers)",
}

#: where a limit came, when not in the search (the verdict's stage)
STAGE_WHY = {"import": ", while reading the network and the property",
             "check": ", during the trusted check of the certificate"}


#: longest exact covered fraction the text output prints (the volumes of boxes halved a
#: thousand times have denominators of thousands of digits; --json keeps them whole)
COVERED_CHARS = 40


def _covered_text(covered) -> str:
    """``3/4 of the region (~75%)``, or the percentage alone when the fraction is long."""
    exact = fmt(covered)
    if len(exact) <= COVERED_CHARS:
        return f"{exact} of the region (~{_percent(covered)})"
    return f"~{_percent(covered)} of the region (the exact fraction has {len(exact):,} characters: --json)"


def _percent(q) -> str:
    from ...exact import to_float

    return f"{100 * to_float(q):.4g}%"


def _referee(args, net, prop) -> int:
    from ...vnnlib.referee import referee
    from ...vnnlib.witness import read_witness
    from ...verification.files import output_dim
    from ..vnn import float_outputs

    witness = read_witness(args.check_witness, n_inputs=net.input_dim, n_outputs=output_dim(net))
    floats = float_outputs(args.net, witness.x)
    report = referee(net, prop, witness.x, witness.y, float_outputs=floats)
    code = {"confirmed": 0, "refuted": 1, "float-only": EXIT_FLOAT_ONLY}[report.verdict]
    lines = [f"input in the region: {'yes' if report.in_region else 'no'}"
             + ("" if report.in_region else f" (the nearest disjunct misses by {shown(report.region_excess, DIGITS)})")]
    for j, y in enumerate(report.outputs):
        claimed = "" if report.claimed is None else f"  claimed {shown(report.claimed[j], DIGITS)}"
        lines.append(f"Y_{j} = {shown(y, DIGITS)}{claimed}")
    if report.claimed is not None:
        lines.append(f"largest |exact - claimed|: {shown(report.claimed_difference, DIGITS)}")
    lines.append(f"unsafe condition at the exact outputs: {'holds' if report.unsafe_holds else 'fails'}"
                 + ("" if report.unsafe_holds
                    else f" (the nearest disjunct misses by {shown(report.unsafe_excess, DIGITS)})"))
    if report.float_check is None:
        lines.append("competition float check: not run (needs an .onnx network and onnxruntime)")
    else:
        fc = report.float_check
        lines.append(f"competition float check (onnxruntime, atol {fc['atol']}): "
                     + ("passes" if fc["passes"] else "fails")
                     + f" (in region {fc['in_region']}, outputs match {fc['outputs_match']}, "
                       f"unsafe {fc['unsafe_holds']})")
    if args.report:
        from ...report.verdict import write_referee_report

        info = {"result": f"witness {report.verdict}", "net": args.net, "property": args.prop,
                "property_sha256": prop.sha256, **report.to_json(), "witness": args.check_witness}
        write_referee_report(args.report, info, [f"witness {args.check_witness}"] + lines)
    if args.json:
        print_json(dict(report.to_json(), witness=args.check_witness))
        return code
    print(report.verdict)
    for line in lines:
        print(line)
    if report.verdict == "float-only":
        print("the witness passes the float check and fails exactly: a float-only counterexample", file=sys.stderr)
    return code
