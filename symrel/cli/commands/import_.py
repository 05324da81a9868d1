"""``symrel import M.onnx|M.nnet -o M.json [--normalise] [--box B.json]``.

The model is written with a ``provenance``: the source file's name (never its directory)
and the sha256 of its bytes, the format and how its numbers were read. A reader of the
model ignores it: the model's canonical text, and so its sha256 in a certificate, is that
of the model alone (``symrel info`` prints both hashes)."""

from __future__ import annotations

from pathlib import Path

from ...errors import InputError
from ..common import add_json_flag, print_json
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("import", help=SUMMARIES["import"])
    p.add_argument("source", help="M.onnx (float tensors, read bit for bit) or M.nnet (decimals, read exactly)")
    p.add_argument("-o", "--output", required=True, help="the symrel model file to write")
    p.add_argument("--normalise", action="store_true",
                   help=".nnet only: fold the header's input normalisation and output scaling into the net")
    p.add_argument("--box", help=".nnet only: also write the header's input box (raw units with --normalise, "
                                 "else normalised units) as a domain file")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...fileformat import to_json, write_json_atomic
    from ...interop.imported import ImportedModel

    ext = Path(args.source).suffix.lower()
    if ext == ".nnet":
        from ...interop.nnet import load_nnet

        nf = load_nnet(args.source)
        imported = ImportedModel(nf.net(normalise=args.normalise), args.source, "nnet", ["decimal"],
                                 ["normalisation folded into the first and last layers" if args.normalise
                                  else "normalisation not applied: the net reads normalised inputs"])
        box = nf.input_box() if args.normalise else nf.normalised_input_box()
    elif ext == ".onnx":
        if args.normalise or args.box:
            raise InputError("--normalise and --box apply to .nnet files only", path="--normalise")
        from ...interop.onnx_import import read_onnx

        imported = read_onnx(args.source)
        box = None
    else:
        raise InputError(f"expected a file ending in .onnx or .nnet, got {Path(args.source).name!r}", path="source")
    from ...verification.files import bytes_sha256

    provenance = imported.provenance()   # the file's name and the sha256 of its bytes, never its directory
    provenance.update(source=Path(args.source).name, source_sha256=bytes_sha256(args.source))
    obj = to_json(imported.model)
    obj["provenance"] = provenance
    write_json_atomic(args.output, obj)
    if box is not None and args.box:
        write_json_atomic(args.box, box.to_json())
    sizes = imported.model.sizes() if hasattr(imported.model, "sizes") else {}
    if args.json:
        print_json({"output": args.output, "provenance": provenance, "sizes": sizes})
    else:
        print(f"{imported.model!r} from {args.source}: {imported.provenance()['numbers']} "
              f"({', '.join(imported.number_types)})")
        for note in imported.notes:
            print(f"note: {note}")
        print(args.output)
    return 0
