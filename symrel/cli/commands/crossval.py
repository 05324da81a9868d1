"""``symrel crossval MODEL.json --backend numpy|torch|onnxruntime --dtype float32 --points 1000 [--executor SPEC]``."""

from __future__ import annotations

from ...errors import InputError
from ..common import add_json_flag, add_progress_option, integer_option, print_json, shown, warn
from ..executors import add_executor_option, open_executor
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("crossval", help=SUMMARIES["crossval"])
    p.add_argument("model", help="model file (relu, maxout, cpwl1d, transformer)")
    p.add_argument("--backend", default="numpy", choices=("numpy", "torch", "onnxruntime"),
                   help="the float library whose outputs are checked against the exact ones")
    p.add_argument("--dtype", default="float32", choices=("float64", "float32", "float16", "bfloat16"),
                   help="the float format the backend computes in")
    p.add_argument("--points", type=integer_option, default=1000, help="random points (plus near-tie, boundary, grid and extreme points)")
    p.add_argument("--domain", help="box domain file (default [-1,1]^d)")
    p.add_argument("--seed", type=integer_option, default=0, help="seed of the random points (the same seed, the same points)")
    p.add_argument("--no-special", action="store_true", help="random points only")
    p.add_argument("--onnx-file", help="run this ONNX file as it is in onnxruntime (e.g. the file MODEL.json was "
                                       "imported from) instead of exporting MODEL.json")
    p.add_argument("--report", help="write a report here, in the format the extension names (.md, .tex, "
                   ".html; .json: the JSON summary)")
    p.add_argument("--fail-on-flip", action="store_true",
                   help="exit 1 when the float argmax differs from the exact one at some point")
    p.add_argument("--exact-floats", action="store_true", help="read JSON floats in the model as their exact binary values")
    add_executor_option(p, "the exact evaluations and the rigorous error bounds")
    add_progress_option(p, "a line per stage (float run, exact evaluation, comparison, error bounds) on standard error")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...crossval.compare import crossvalidate
    from ...fileformat import load_domain
    from ..common import load_model_file

    if args.report:  # a name whose extension names no format is refused before the work
        from ...report import report_format

        report_format(args.report)
    model = load_model_file(args.model, exact_floats=args.exact_floats)
    domain = load_domain(args.domain) if args.domain else None
    if args.points < 0:
        raise InputError(f"expected a number of points >= 0, got {args.points}", path="--points")
    runner = None
    if args.onnx_file:
        if args.backend != "onnxruntime":
            raise InputError("--onnx-file runs in onnxruntime; pass --backend onnxruntime", path="--onnx-file")
        from ...interop.onnx_export import OnnxFileRunner

        runner = OnnxFileRunner(args.onnx_file, args.dtype)
        from math import prod

        if prod(runner.shape) != model.input_dim:   # one sample of the file is one point of the model
            raise InputError(f"expected an input of {model.input_dim} entries, as the model has, got the shape "
                             f"{tuple(runner.shape)}", path="--onnx-file", file=args.onnx_file)
    try:
        with open_executor(args.executor) as executor:
            rep = crossvalidate(model, args.backend, args.dtype, args.points, domain=domain, seed=args.seed,
                                special=not args.no_special, runner=runner, progress=warn if args.progress else None,
                                executor=executor)
    except InputError as err:
        if args.domain:
            from ..common import in_domain_file

            raise in_domain_file(err, args.domain) from None
        raise
    if args.report:
        from ...report import write_markdown_report

        write_markdown_report(args.report, rep.to_markdown(), "symrel crossval", data=rep.to_json())
    if args.json:
        print_json(rep.to_json())
    else:
        out = rep.output_stat
        print(f"{len(rep.points.points)} points ({rep.backend}, {rep.dtype}); reference: {rep.reference}")
        if rep.weight_rounding is not None:
            print(f"weights rounded to {rep.dtype}: max weight error {shown(rep.weight_rounding.max_error)}")
        print(f"max ULP error (over nonzero exact values): {shown(rep.max_ulp_error)} (~{float(rep.max_ulp_error):.4g})")
        if rep.worst_input is not None:
            print("worst input: " + ", ".join(shown(v) for v in rep.worst_input))
        print(f"argmax flips: {len(rep.flips)}; NaN/Inf: {out.nonfinite}")
        if rep.hardmax_rule is not None:
            print(f"inputs where ONNX's first-maximiser Hardmax changes the answer: "
                  f"{rep.hardmax_rule['points_where_rules_differ']}")
        if rep.softmax is not None:
            print(f"wrong softmax answers: {rep.softmax['wrong_count']}")
        if rep.error_bound is not None:
            print(f"rigorous error bound: max {rep.error_bound['max_bound_float']:.4g}, "
                  f"violations {len(rep.error_bound['violations'])}")
        print(f"max abs error (~{float(rep.max_abs_error):.4g}):")
        print(shown(rep.max_abs_error))
    if args.fail_on_flip and rep.flips:
        if not args.json:
            warn(f"failing: {len(rep.flips)} argmax flips (--fail-on-flip)")
        return 1
    return 0 if rep.ok else 1
