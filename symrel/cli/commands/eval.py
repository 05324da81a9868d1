"""``symrel eval MODEL.json --input 1/2,-1/4`` / ``--inputs POINTS.json [--json]``."""

from __future__ import annotations

from ...errors import InputError
from ...exact import columns
from ...fileformat import Points, Values, load, to_json
from ..common import add_json_flag, fmt, integer_option, parse_point, print_json, shown
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("eval", help=SUMMARIES["eval"])
    p.add_argument("model", help="model file (maxout, relu, cpwl1d, cpwl, transformer, or relation-features with --part)")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--input", help="one point, comma-separated rationals (e.g. 1/2,-1/4)")
    g.add_argument("--inputs", help="a points file")
    p.add_argument("--exact-floats", action="store_true", help="read JSON floats as their exact binary values")
    p.add_argument("--scale", help="evaluate every attention block as softmax with this lambda (mpmath)")
    p.add_argument("--precision", type=integer_option, default=50, help="decimal digits for softmax evaluation (default 50)")
    p.add_argument("--part", choices=["phi", "psi"],
                   help="for a relation-features file: evaluate the query map phi or the key map psi")
    add_json_flag(p)
    p.set_defaults(func=run)


def _load(args):
    """The model to evaluate; a relation-features file needs ``--part`` to pick phi or psi."""
    from ...model_kinds import names
    from ..common import load_model_file

    thing = load_model_file(args.model, kinds=names() + ("relation-features",), exact_floats=args.exact_floats)
    if hasattr(thing, "phi") and hasattr(thing, "psi"):
        if args.part is None:
            raise InputError("a relation-features file holds two models: choose one with --part phi|psi", path="--part")
        return getattr(thing, args.part)
    if args.part is not None:
        raise InputError("--part applies to relation-features files only", path="--part")
    return thing


def run(args) -> int:
    model = _load(args)
    if args.input is not None:
        points = [parse_point(args.input)]
    else:
        points = load(args.inputs, kinds=("points",), exact_floats=args.exact_floats)
    if args.scale is not None:
        return _run_softmax(model, points, args)
    _within_limits(model, points, args)
    try:
        # the inner numbers (elements of Q): sympy's Rationals, the API's public type, are not needed here
        outputs = columns(model.evaluate_matrix(points, path="--input" if args.input is not None else "x"))
    except InputError as err:
        raise (err.in_file(args.inputs) if args.inputs else err) from None
    if args.json:
        print_json(to_json(Values(outputs)))
    else:
        for i, out in enumerate(outputs):
            if len(outputs) > 1 and i:
                print()
            for v in out:
                print(shown(v))
    return 0


def _within_limits(model, points, args) -> None:
    """Refuse, before it is done, an evaluation whose numbers could pass the arithmetic limits
    (``--max-denominator-bits``, ``--max-product-bits``): the inputs' common denominator, each
    layer's, and the bits every stage can add (:mod:`symrel.lowering.sizes`)."""
    from ...exact.sizes import number_bits
    from ...lowering.sizes import check_model

    try:
        bits = number_bits([v for p in points for v in p], where="--input" if args.input is not None else "x",
                           what="the common denominator of the inputs")
    except InputError as err:
        raise (err.in_file(args.inputs) if args.inputs else err) from None
    try:
        check_model(model, bits)
    except InputError as err:
        raise err.in_file(args.model) from None


def _run_softmax(model, points, args) -> int:
    import mpmath

    from ...exact import rational
    from ...models import Transformer

    if not isinstance(model, Transformer):
        raise InputError("--scale applies to transformer models only", path="--scale")
    lam = rational(args.scale, path="--scale")
    if lam <= 0:
        raise InputError("expected a positive scale", path="--scale")
    if args.precision < 5 or args.precision > 100000:
        raise InputError("expected a precision from 5 to 100000 digits", path="--precision")
    results = [model.evaluate_softmax(p, dps=args.precision, scale=lam) for p in points]
    text = [[mpmath.nstr(v, args.precision) for v in r] for r in results]
    if args.json:
        print_json({"kind": "softmax-values", "scale": fmt(lam), "precision": args.precision, "y": text})
    else:
        for i, r in enumerate(text):
            if i:
                print()
            print("\n".join(r))
    return 0
