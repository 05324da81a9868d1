"""``symrel info MODEL.json``: kind, sizes, parameter count."""

from __future__ import annotations

from ...fileformat import load_model
from ..common import add_json_flag, print_json


def register(sub):
    p = sub.add_parser("info", help="kind, sizes and parameter count of a model")
    p.add_argument("model")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    model = load_model(args.model)
    sizes = model.sizes()
    if args.json:
        print_json(sizes)
    else:
        for k, v in sizes.items():
            print(f"{k}: {v}")
    return 0
