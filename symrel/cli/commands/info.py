"""``symrel info MODEL.json``: kind, sizes, parameter count (also of a ``sequence-transformer``; for a ``cpwl`` mesh also the
sizes of its lattice form, Ovchinnikov's and the reduced one symrel compiles)."""

from __future__ import annotations

from ...fileformat import load, load_model
from ..common import add_json_flag, print_json


def register(sub):
    p = sub.add_parser("info", help="kind, sizes and parameter count of a model")
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
        from ...models import lattice_forms

        for lat in lattice_forms(model):
            s = lat.sizes()
            name = "lattice form" + (f" (output {lat.output + 1})" if model.output_dim > 1 else "")
            sizes[name] = {"ovchinnikov": {"terms": s["ovchinnikov"]["terms"], "pieces": s["ovchinnikov"]["pieces"]},
                           "reduced": {"terms": s["terms"], "pieces": s["term_pieces"]}}
    if args.json:
        print_json(sizes)
    else:
        for k, v in sizes.items():
            print(f"{k}: {v}")
    return 0
