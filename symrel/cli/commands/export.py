"""``symrel export M.json [--to onnx|torch] -o OUT [--dtype float32]``: the format
follows ``-o`` (``.onnx``; ``.pt``/``.pth`` for PyTorch) unless ``--to`` says it."""

from __future__ import annotations

from ..common import add_json_flag, print_json, shown
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("export", help=SUMMARIES["export"])
    p.add_argument("model", help="model file (relu, maxout, cpwl1d, transformer)")
    p.add_argument("--to", choices=("onnx", "torch"), help="the format (default: from the extension of -o)")
    p.add_argument("-o", "--output", required=True, help="the file to write: .onnx, or .pt/.pth for PyTorch")
    p.add_argument("--dtype", default="float32", choices=("float64", "float32", "float16", "bfloat16"),
                   help="the float format of the weights (each rounded to nearest; the largest error is printed)")
    p.add_argument("--exact-floats", action="store_true", help="read JSON floats in the model as their exact binary values")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..common import load_model_file

    import os

    from ...errors import InputError

    if args.to is None:
        ext = os.path.splitext(args.output)[1].lower()
        args.to = {".onnx": "onnx", ".pt": "torch", ".pth": "torch"}.get(ext)
        if args.to is None:
            raise InputError(f"expected an output ending in .onnx, .pt or .pth, or --to onnx|torch, got "
                             f"{args.output!r}", path="-o")
    model = load_model_file(args.model, exact_floats=args.exact_floats)
    if args.to == "onnx":
        from ...interop.onnx_export import save_onnx

        rounding = save_onnx(model, args.output, args.dtype)
    else:
        from ...interop.torch_io import save_torch

        rounding = save_torch(model, args.output, args.dtype)
    if args.json:
        print_json({"output": args.output, "to": args.to, **rounding.to_json()})
    else:
        print(f"wrote {args.output} ({args.to}, {args.dtype})")
        if rounding.overflows:
            print(f"warning: {rounding.overflows} weights overflow {args.dtype} (written as infinity)")
        print(f"max weight rounding error (at {rounding.worst}):" if rounding.worst else
              f"max weight rounding error (every weight is a {args.dtype} value):")
        print(shown(rounding.max_error))
    return 0
