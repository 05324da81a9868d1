"""``symrel verify NET PROP.vnnlib [--timeout S] [--certificate C.json] [--counterexample W.txt]
[--report R.md] [--executor SPEC] [--json]``; ``symrel verify NET PROP --check-witness W.txt``;
``symrel verify --instances instances.csv [--out results.csv]``.

Decides a VNN-LIB property of a ReLU network exactly (``.onnx`` read bit for bit, ``.nnet``,
or symrel JSON; docs/tutorials/acasxu.md). The first line printed is the verdict:

* ``unsat``: no input of the region meets the unsafe condition. Exit 0. The trusted checker
  checks the engine's ``vnnlib-unsat`` certificate before ``unsat`` is printed (``--no-check``:
  not), and ``--certificate`` keeps it.
* ``sat``: an exact input of the region at which the exact outputs meet the unsafe
  condition, both printed; ``--counterexample`` writes it in VNN-COMP's format. Exit 1.
* ``unknown``: the time ran out; the leaves left open and the fraction of the region
  covered are printed. Exit 3.

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
from pathlib import Path

from ...errors import InputError, InternalError
from ..common import add_json_flag, add_progress_option, fmt, positive_seconds, print_json, resolve_progress, shown

#: significant digits of the decimal shown beside a long exact output (--digits N overrides)
DIGITS = 8
from ..executors import add_executor_option, open_executor
from . import SUMMARIES

EXIT_FLOAT_ONLY = 4

EPILOG = """exit codes: 0 unsat (certificate written and checked); 1 sat (exact witness printed);
3 unknown (at a limit, named: the time, or the trusted checker's size limits on a certificate,
tree entries, leaf operations and relaxation bits; the open leaves and the covered fraction
are printed);
2 bad input (also numbers beyond a double's range, which the search's float proposals need).
--check-witness: 0 the witness is confirmed exactly; 1 refuted; 4 refuted exactly but
accepted by the competition's float check (tolerance 1e-4): a float-only counterexample.
--instances: 0 all decided and every certificate checked; 1 a certificate rejected;
3 some instance undecided or in error. Tutorial: docs/tutorials/acasxu.md."""


def register(sub):
    import argparse

    p = sub.add_parser("verify", help=SUMMARIES["verify"], formatter_class=argparse.RawDescriptionHelpFormatter,
                       epilog=EPILOG)
    p.add_argument("net", nargs="?", help="the network: .onnx (read bit for bit), .nnet or a symrel JSON ReLU net")
    p.add_argument("prop", nargs="?", help="the property, a VNN-LIB file")
    p.add_argument("--timeout", type=positive_seconds, help="stop after S seconds (unknown, exit 3)")
    p.add_argument("--certificate", help="unsat: keep the vnnlib-unsat certificate here (checked before unsat is printed)")
    p.add_argument("--no-check", action="store_true", help="do not run the trusted checker on the certificate before printing unsat")
    p.add_argument("--counterexample", help="sat: write the witness here in VNN-COMP's format")
    p.add_argument("--report", help="write a Markdown report of the run")
    p.add_argument("--check-witness", metavar="W.txt",
                   help="referee mode: check another tool's counterexample exactly (exit 0/1/4)")
    p.add_argument("--instances", metavar="L.csv", help="run a competition instance list (onnx,vnnlib,timeout)")
    p.add_argument("--out", help="with --instances: the results CSV (default results.csv)")
    p.add_argument("--certificate-dir", help="with --instances: where certificates and counterexamples go")
    add_executor_option(p, "the branch-and-bound leaves")
    add_progress_option(p, "show the rounds of the search on standard error")
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
    from ...vnnlib.reader import read_vnnlib
    from ..vnn import load_net, output_dim

    net = load_net(args.net)
    prop = read_vnnlib(args.prop, n_inputs=net.input_dim, n_outputs=output_dim(net))
    if args.check_witness:
        if args.certificate or args.counterexample:
            raise InputError("--check-witness checks a witness; it writes no certificate or counterexample",
                             path="--check-witness")
        return _referee(args, net, prop)
    try:
        return _decide(args, net, prop)
    except InputError as err:  # what the engine cannot take is the property's (an unbounded region)
        raise err.in_file(args.net if err.path == "network" else args.prop) from None  # or the network's


def _decide(args, net, prop) -> int:
    from ...exact import format_rational
    from ...fileformat import write_json_atomic

    from ...progress import Progress
    from ..vnn import decide_one, write_counterexample

    resolve_progress(args)
    with open_executor(args.executor) as executor, Progress("rounds", enabled=args.progress) as bar:
        verdict, outputs, seconds = decide_one(net, prop, timeout=args.timeout, executor=executor,
                                               progress=lambda stats: bar.update(1, open=stats.get("open")))
    info = {"result": verdict.status, "net": args.net, "property": args.prop, "time": round(seconds, 3),
            "property_sha256": prop.sha256}
    lines = []
    code = 0
    if verdict.status == "unsat":
        if not args.no_check:  # the trusted checker on the file as written (a scratch copy without --certificate)
            import tempfile

            from ..vnn import check_certificate_file

            with tempfile.TemporaryDirectory(prefix="symrel-verify-") as scratch:
                path = Path(scratch) / "certificate.json"
                write_json_atomic(path, verdict.certificate)
                ok, check_seconds, message = check_certificate_file(path)
            if not ok:
                raise InternalError(f"the trusted checker rejects the engine's certificate: {message}")
            info["check_time"] = round(check_seconds, 3)
        if args.certificate:
            write_json_atomic(args.certificate, verdict.certificate)
            info["certificate"] = args.certificate
        where = f"certificate {args.certificate}" if args.certificate else "certificate (not kept: --certificate C.json)"
        lines.append(f"{where}: " + (f"checked in {check_seconds:.3f} s" if not args.no_check
                                     else "not checked (--no-check)"))
    elif verdict.status == "sat":
        x = tuple(verdict.witness_x)
        info["witness"] = [format_rational(v) for v in x]
        info["outputs"] = [format_rational(v) for v in outputs]
        lines += [f"X_{i} = {shown(v, DIGITS)}" for i, v in enumerate(x)]
        lines += [f"Y_{j} = {shown(v, DIGITS)}" for j, v in enumerate(outputs)]
        from ..vnn import float_outputs

        floats = float_outputs(args.net, x)
        if floats is not None:  # the second confirmation, as the competition would check it
            from ...vnnlib.referee import float_check

            passes = float_check(prop, x, outputs, floats)["passes"]
            info["onnxruntime_check"] = passes
            lines.append("onnxruntime: " + ("the witness passes the competition's check" if passes else
                         "the witness fails the competition's float check (exactly it holds)"))
        if args.counterexample:
            exact = write_counterexample(args.counterexample, x, outputs)
            info["counterexample"] = args.counterexample
            lines.append(f"counterexample {args.counterexample}" + ("" if exact else
                         " (values rounded to decimals: the exact witness is the one printed above)"))
        code = 1
    else:
        n_open = verdict.open_leaves if isinstance(verdict.open_leaves, int) else len(verdict.open_leaves)
        info["open_leaves"] = n_open
        covered = verdict.covered
        exact_cover = covered is not None and not isinstance(covered, float)
        info["covered"] = format_rational(covered) if exact_cover else covered
        lines.append(f"open leaves: {n_open}; covered: " + (_covered_text(covered) if exact_cover
                                                              else f"{covered} of the region"))
        limit = verdict.limit
        info["limit"] = limit
        lines.append(f"stopped at the limit: {limit}" + LIMIT_WHY.get(limit, ""))
        code = 3
    stats = dict(verdict.stats or {})
    if args.report:
        _write_report(args.report, info, lines, stats)
    if args.json:
        info["stats"] = stats
        print_json(info)
    else:
        print(verdict.status)
        for line in lines:
            print(line)
        print(f"{args.net} {args.prop}: {verdict.status} in {seconds:.3f} s", file=sys.stderr)
    return code


#: what each of the engine's limits is (symrel.vnnlib.engine.decide)
LIMIT_WHY = {
    "time": " (--timeout)",
    "tree entries": " (the trusted checker's limit on a certificate's tree: a larger one would be refused)",
    "leaf operations": " (the trusted checker's limit on the cost of a certificate's leaves: a larger one "
                       "would be refused)",
    "relaxation bits": " (the trusted checker's limit on the size of a leaf's numbers: the network's or "
                       "the region's numbers are too large for a certificate it accepts)",
}


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


def _write_report(path, info, lines, stats) -> None:
    from ...fileformat.jsonio import write_text_atomic

    out = [f"# symrel verify: {info['result']}", "", f"- network: `{info['net']}`",
           f"- property: `{info['property']}` (sha256 {info['property_sha256']})",
           f"- result: **{info['result']}**" + (f" in {info['time']} s" if info.get("time") is not None else ""), ""]
    out += [f"    {line}" for line in lines]
    if stats:
        out += ["", "| statistic | value |", "| --- | --- |"] + [f"| {k} | {v} |" for k, v in sorted(stats.items())]
    write_text_atomic(path, "\n".join(out) + "\n")


def _referee(args, net, prop) -> int:
    from ...vnnlib.referee import referee
    from ...vnnlib.witness import read_witness
    from ..vnn import float_outputs, output_dim

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
        info = {"result": f"witness {report.verdict}", "net": args.net, "property": args.prop,
                "property_sha256": prop.sha256}
        _write_report(args.report, info, [f"witness {args.check_witness}"] + lines, {})
    if args.json:
        print_json(dict(report.to_json(), witness=args.check_witness))
        return code
    print(report.verdict)
    for line in lines:
        print(line)
    if report.verdict == "float-only":
        print("the witness passes the float check and fails exactly: a float-only counterexample", file=sys.stderr)
    return code
