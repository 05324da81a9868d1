"""``symrel info MODEL.json``: kind, sizes, parameter count (the model kind's ``info``, by default
its ``sizes()``: :mod:`symrel.model_kinds`; also of a ``sequence-transformer``; for a ``cpwl`` mesh also the
sizes of its lattice form, Ovchinnikov's and the reduced one symrel compiles, beside its
Wang-Sun form, each with the size of the Transformer compiled from it on the vertices'
bounding box; summed over the outputs). The Wang-Sun form of a large mesh with non-convex
stars is slow (a lattice form of the whole mesh per such vertex): past ``--timeout`` seconds
(default 10) its entry says it was not computed within the budget, and ``info`` still
succeeds with the other sizes."""

from __future__ import annotations

from ...fileformat import load, load_model
from ..common import add_json_flag, positive_seconds, print_json
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("info", help=SUMMARIES["info"])
    p.add_argument("model")
    p.add_argument("--timeout", type=positive_seconds, default=10.0,
                   help="cpwl: time limit in seconds for the Wang-Sun form's size (default 10); past it the "
                        "lattice sizes are printed and the Wang-Sun size is marked not computed")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...fileformat import read_json
    from ...model_kinds import kind_of

    if isinstance(raw := read_json(args.model), dict) and raw.get("kind") == "sequence-transformer":
        model = load(args.model, kinds=("sequence-transformer",))  # a token model (e.g. imported from tracr)
    else:
        model = load_model(args.model)
    kind = kind_of(model)
    if kind is not None and kind.info is not None:   # the kind's own table (a cpwl mesh: also its forms' sizes)
        from ...budget import Budget

        sizes = kind.info(model, Budget(timeout=args.timeout))
    else:
        sizes = model.sizes()
    if args.json:
        print_json(sizes)
    else:
        for line in _lines(sizes):
            print(line)
    return 0


def _lines(sizes: dict, indent: str = "") -> list[str]:
    """``key: value`` lines; a nested table is indented under its key, a list is comma-separated,
    a truth value reads yes or no (never a Python literal).

    >>> print("\\n".join(_lines({"blocks": 3, "widths": [1, 2], "form": {"terms": 2, "exact": True}})))
    blocks: 3
    widths: 1, 2
    form:
      terms: 2
      exact: yes
    """
    out = []
    for key, value in sizes.items():
        if isinstance(value, dict):
            out += [f"{indent}{key}:"] + _lines(value, indent + "  ")
        elif isinstance(value, (list, tuple)):
            out.append(f"{indent}{key}: {', '.join(map(str, value))}")
        elif isinstance(value, bool):
            out.append(f"{indent}{key}: {'yes' if value else 'no'}")
        else:
            out.append(f"{indent}{key}: {value}")
    return out
