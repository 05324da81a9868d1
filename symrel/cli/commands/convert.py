"""``symrel convert MODEL.json --to maxout -o OUT.json`` and
``symrel convert NET.json --to cpwl --domain D.json [--max-cells N] [--max-simplices N] -o OUT.json``.

``--to maxout``: the maxout form of a ReLU net, a CPWL function of one variable or a CPWL
function on a mesh (its lattice form). ``--to cpwl``: the exact mesh of a ReLU or maxout
net on a domain of any dimension (its linear cells, cut where neighbours do not meet face
to face, triangulated: :mod:`symrel.regions.cells_to_simplices`), equal to the net there;
exit 3, nothing written, when ``--max-cells`` stops the cell enumeration or the mesh would
exceed ``--max-simplices`` simplices.
"""

from __future__ import annotations

from ...errors import InputError
from ...fileformat import load_domain, save
from ...constructions import to_maxout
from ..common import add_progress_option, integer_option, load_model_file
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("convert", help=SUMMARIES["convert"])
    p.add_argument("model", help="the model file: a ReLU net, a CPWL function (1-D or on a mesh) for --to maxout; "
                                 "a ReLU or maxout net for --to cpwl")
    p.add_argument("--to", required=True, choices=["maxout", "cpwl"], help="target kind")
    p.add_argument("--domain", help="domain file (with --to cpwl: the box or polytope the mesh covers)")
    p.add_argument("--max-cells", type=integer_option, default=None,
                   help="with --to cpwl: stop (exit 3, nothing written) beyond this many cells of the net")
    p.add_argument("--max-simplices", type=integer_option, default=None,
                   help="with --to cpwl: stop (exit 3, nothing written) beyond this many simplices "
                        "(default: the library's limit, regions.cells_to_simplices.MAX_SIMPLICES = 100,000)")
    add_progress_option(p, "with --to cpwl: show progress on standard error")
    p.add_argument("-o", "--output", required=True, help="output file (written atomically)")
    p.set_defaults(func=run)


def run(args) -> int:
    model = load_model_file(args.model)
    if args.to == "cpwl":
        return _to_cpwl(model, args)
    try:
        out = to_maxout(model)
    except InputError as err:   # the kind has no maxout form
        raise err.in_file(args.model) from None
    save(out, args.output)
    print(f"wrote {args.output} ({out.kind}, widths {out.widths})")
    return 0


def _to_cpwl(model, args) -> int:
    from ...regions import net_to_cpwl_mesh
    from ...regions.cells_to_simplices import MAX_SIMPLICES

    if args.domain is None:
        raise InputError("--to cpwl needs the domain the mesh covers", path="--domain")
    if model.kind not in ("relu", "maxout"):
        raise InputError(f"--to cpwl converts relu and maxout nets, got {model.kind}", path="kind").in_file(args.model)
    if args.max_cells is not None and args.max_cells < 1:
        raise InputError("expected a positive cell limit", path="--max-cells")
    if args.max_simplices is not None and args.max_simplices < 1:
        raise InputError("expected a positive simplex limit", path="--max-simplices")
    domain = load_domain(args.domain)
    try:
        out = net_to_cpwl_mesh(model, domain, max_cells=args.max_cells,
                               max_simplices=args.max_simplices or MAX_SIMPLICES, progress=args.progress)
    except InputError as err:
        raise err.in_file(args.domain) from None
    save(out, args.output)
    print(f"wrote {args.output} (cpwl, {len(out.simplices)} simplices, {len(out.exact_vertices)} vertices)")
    return 0
