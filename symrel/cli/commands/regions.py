"""``symrel regions MODEL.json --domain D.json [--kind linear|activation] [--plot out.png]
[--slice I,J --at X0] [--executor SPEC] [--max-cells N] [--ties] [--progress] [--certificate C.json] [--json]``.

Counts the linear (default) or activation regions of a model over a domain exactly and
prints the count alone on the last line; ``--json`` prints ``{count, kind, cells, time,
...}``. Exit 3 when ``--max-cells`` stops the enumeration (nothing is printed as a count).
``--slice I,J`` (inputs numbered from 1) counts and draws the regions of the 2-D slice
through ``--at X0`` (default: the centre of the box) in which inputs I and J vary over
their intervals of the box and the others stay at X0 (``--slice I``: a 1-D slice).
"""

from __future__ import annotations

import sys

from ...errors import InputError
from ...fileformat import load_domain
from ..common import (add_json_flag, add_progress_option, in_domain_file, integer_option, load_model_file, print_json,
                      shown_point)
from ..executors import add_executor_option, open_executor
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("regions", help=SUMMARIES["regions"])
    p.add_argument("model", help="model file (maxout, relu, cpwl1d, cpwl, hardmax transformer)")
    p.add_argument("--domain", required=True, help="domain file (box or polytope)")
    p.add_argument("--kind", choices=("linear", "activation"), default="linear", help="which count (default: linear)")
    p.add_argument("--plot", help="draw the regions (1-D or 2-D input, or a --slice) to this .png/.svg/.pdf file")
    p.add_argument("--slice", help="I,J (or I): count and draw the slice in which inputs I and J vary "
                   "(numbered from 1; ReLU or maxout net, box domain)")
    p.add_argument("--at", help="the point the slice goes through, comma-separated (default: the box's centre)")
    p.add_argument("--jobs", type=integer_option, default=None, help="N worker processes (the same as --executor processes:N)")
    add_executor_option(p, "the subtrees of the cell search")
    p.add_argument("--max-cells", type=integer_option, default=None, help="stop (exit 3) beyond this many cells")
    p.add_argument("--ties", action="store_true", help="also count lower-dimensional tie cells (hardmax)")
    add_progress_option(p, "show progress on standard error")
    p.add_argument("--certificate", help="also write a certificate of the count (claim kind 'regions'; exact LPs)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...regions import count_regions

    model = load_model_file(args.model)
    domain = load_domain(args.domain)
    if domain.dim != model.input_dim:
        raise InputError(
            f"expected a domain of dimension {model.input_dim} (the model's inputs), got {domain.dim}",
            file=args.domain, path="bounds" if domain.kind == "box" else "A",
        )
    if args.max_cells is not None and args.max_cells < 1:
        raise InputError("expected a positive cell limit", path="--max-cells")
    labels = at = None
    if args.slice is not None:
        model, domain, labels, at = _slice(model, domain, args)
    elif args.at is not None:
        raise InputError("expected --slice with --at", path="--at")
    if args.plot and model.input_dim > 2:
        raise InputError(f"plots are drawn for 1-D and 2-D inputs; this model has {model.input_dim} "
                         "(draw a slice: --slice I,J --at X0)", path="--plot")
    if args.plot:
        _require_matplotlib()
    try:
        with open_executor(args.executor, args.jobs) as executor:
            res = count_regions(model, domain, kind=args.kind, executor=executor, max_cells=args.max_cells,
                                progress=args.progress, ties=args.ties)
            proof = None
            if args.certificate:
                from ...regions import certify_regions

                proof = certify_regions(model, domain, kind=args.kind, max_cells=args.max_cells, executor=executor)
    except InputError as err:
        raise in_domain_file(err, args.domain) from None
    if args.plot:
        from ...regions.plot import save_regions_plot

        save_regions_plot(res, args.plot, labels=labels)
    if proof is not None:
        from ...fileformat import write_json_atomic
        from ...certificates.io import certificate_of
        from ...checking import stated

        if proof.claim_data.get("count") != res.count:  # pragma: no cover - would be a bug
            raise InputError("internal error: the certified count differs from the count")
        write_json_atomic(args.certificate, stated(certificate_of(proof)))
    if args.json:
        print_json(res.to_json())
    else:
        other = f"; {res.activation_cells} activation regions" if args.kind == "linear" else ""
        ties = f"; {res.tie_cells} tie cells" if res.tie_cells is not None else ""
        where = (f" (the slice in which {', '.join(labels).replace('$', '')} vary, through x = {shown_point(at)})"
                 if labels else "")
        print(f"{args.kind} regions of {args.model} over {args.domain}{where}{other}{ties} ({res.seconds:.3f} s)",
              file=sys.stderr)
        print(res.count)
    return 0


def _slice(model, domain, args):
    """The model restricted to the slice ``--slice I,J`` through ``--at``, its box, axis labels and the point."""
    from ...model_kinds import expected, model_kind
    from ...models import Box
    from ...regions import restrict_to_affine_slice
    from ..common import parse_point

    from ...exact.number_text import BLANKS, integer_from_text

    try:
        idx = [integer_from_text(p.strip(BLANKS), path="--slice") for p in args.slice.split(",")]
    except InputError:
        raise InputError(f"expected one or two input numbers such as 1,3, got {args.slice!r}", path="--slice") from None
    d = model.input_dim
    if not 1 <= len(idx) <= 2 or len(set(idx)) != len(idx) or any(not 1 <= i <= d for i in idx):
        raise InputError(f"expected one or two distinct input numbers between 1 and {d}, got {args.slice!r}",
                         path="--slice")
    if not isinstance(domain, Box):
        raise InputError("expected a box domain for --slice", path="--domain")
    if not model_kind(model).has("restrict_to_slice"):
        raise InputError(f"expected {expected('restrict_to_slice')} for --slice, got {model.kind}", path="--slice")
    at = parse_point(args.at, "--at") if args.at is not None else domain.center()
    if len(at) != d:
        raise InputError(f"expected a point with {d} coordinates, got {len(at)}", path="--at")
    if not domain.contains(at):
        raise InputError("expected a point inside the domain", path="--at")
    base = [0 if k + 1 in idx else v for k, v in enumerate(at)]
    directions = [[1 if k + 1 == i else 0 for k in range(d)] for i in idx]
    sliced = restrict_to_affine_slice(model, base, directions)
    return sliced, Box([list(domain.exact_bounds[i - 1]) for i in idx]), tuple(f"$x_{{{i}}}$" for i in idx), at


def _require_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InputError("plots need matplotlib (pip install symrel[plot])", path="--plot") from None
