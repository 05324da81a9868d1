"""``symrel info MODEL.json``: kind, sizes, parameter count (also of a ``sequence-transformer``; for a ``cpwl`` mesh also the
sizes of its lattice form, Ovchinnikov's and the reduced one symrel compiles, beside its
Wang-Sun form, each with the size of the Transformer compiled from it on the vertices'
bounding box; summed over the outputs)."""

from __future__ import annotations

from ...fileformat import load, load_model
from ..common import add_json_flag, print_json
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("info", help=SUMMARIES["info"])
    p.add_argument("model")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...fileformat import read_json

    if isinstance(raw := read_json(args.model), dict) and raw.get("kind") == "sequence-transformer":
        model = load(args.model, kinds=("sequence-transformer",))  # a token model (e.g. imported from tracr)
    else:
        model = load_model(args.model)
    sizes = model.sizes()
    if model.kind == "cpwl":
        from ...compiler.cpwl_form_sizes import cpwl_form_sizes

        sizes.update(cpwl_form_sizes(model))      # the lattice and Wang-Sun forms side by side
    if args.json:
        print_json(sizes)
    else:
        for k, v in sizes.items():
            print(f"{k}: {v}")
    return 0
