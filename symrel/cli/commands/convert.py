"""``symrel convert MODEL.json --to maxout -o OUT.json``."""

from __future__ import annotations

from ...fileformat import load_model, save
from ...models import to_maxout


def register(sub):
    p = sub.add_parser("convert", help="convert a model (relu, cpwl1d) to its maxout form")
    p.add_argument("model")
    p.add_argument("--to", required=True, choices=["maxout"], help="target kind")
    p.add_argument("-o", "--output", required=True, help="output file (written atomically)")
    p.set_defaults(func=run)


def run(args) -> int:
    model = load_model(args.model)
    try:
        out = to_maxout(model)
    except Exception as err:  # InputError: the kind has no maxout form
        from ...errors import InputError

        if isinstance(err, InputError):
            raise err.in_file(args.model) from None
        raise
    save(out, args.output)
    print(f"wrote {args.output} ({out.kind}, widths {out.widths})")
    return 0
