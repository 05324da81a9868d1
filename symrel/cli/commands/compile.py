"""``symrel compile NET.json --domain D.json -o T.json [--margin M] [--json]``.

Compiles a maxout net, ReLU net or CPWL function into the hardmax Transformer of the
symrel construction realising Theorem 3.1 (Paper A), with gating bounds computed
exactly from the domain; ``--margin M`` enlarges every gating bound B by M.
"""

from __future__ import annotations

from ...errors import InputError
from ...exact import inner, rational
from ...fileformat import load_domain, save
from ..common import add_json_flag, load_model_file, print_json, shown
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("compile", help=SUMMARIES["compile"])
    p.add_argument("model", help="model file (maxout, relu, cpwl1d or cpwl)")
    p.add_argument("--domain", required=True, help="domain file (a box)")
    p.add_argument("-o", "--output", required=True, help="Transformer file to write (atomically)")
    p.add_argument("--margin", default="0", help="enlarge every gating bound B by this rational (default 0)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...compiler import compile_model

    from ...model_kinds import expected, model_kind

    model = load_model_file(args.model)
    if not model_kind(model).has("to_maxout"):   # compiled through its maxout form
        raise InputError(f"expected {expected('to_maxout')}, got a {model.kind}", path="kind").in_file(args.model)
    domain = load_domain(args.domain)
    margin = rational(args.margin, path="--margin")
    try:
        comp = compile_model(model, domain, margin)
    except InputError as err:
        raise err.in_file(args.domain) from None
    save(comp.transformer, args.output)
    sizes = comp.sizes()
    if args.json:
        print_json({"output": str(args.output), **comp.to_json()})
        return 0
    t, s = sizes["transformer"], sizes["maxout"]
    print(f"construction: {comp.construction}")
    print(f"gating bounds B: {', '.join(shown(inner(g, 'bound')) for g in comp.gates)}")  # no sympy needed
    print(f"maxout net: depth {s['depth']}, widths {s['widths']}, {s['parameters']} parameters, {s['nonzeros']} nonzeros")
    print(f"transformer: {t['tokens']} tokens, width {t['width']}, {t['blocks']} blocks, "
          f"{t['parameters']} parameters, {t['nonzeros']} nonzeros")
    print(f"wrote {args.output}")
    return 0
