"""``symrel info FILE``: kind, sizes, parameter count (the model kind's ``info``, by default
its ``sizes()``: :mod:`symrel.model_kinds`; also of a ``sequence-transformer``; for a ``cpwl`` mesh also the
sizes of its lattice form, Ovchinnikov's and the reduced one symrel compiles, beside its
Wang-Sun form, each with the size of the Transformer compiled from it on the vertices'
bounding box; summed over the outputs). The Wang-Sun form of a large mesh with non-convex
stars is slow (a lattice form of the whole mesh per such vertex): past ``--timeout`` seconds
(default 10) its entry says it was not computed within the budget, and ``info`` still
succeeds with the other sizes.

The file may also be an ``.onnx`` or ``.nnet`` model (imported on the fly, as ``symrel
import`` would), a ``.vnnlib`` property (its inputs, outputs, disjuncts and atoms) or another
symrel file (a domain, points: its kind; a certificate: its claim's kind, its inputs and its number of
steps, unchecked: ``symrel check-certificate`` checks it). Last
come the file's two hashes (:mod:`symrel.verification.files`): the sha256 of its bytes
(what ``sha256sum`` prints, and what a ``vnnlib-unsat`` certificate records of the files
``symrel verify`` read) and the sha256 of the canonical text of the exact object read from
it (what a certificate records of an input, ``inputs.NAME.sha256``, or of its property)."""

from __future__ import annotations

from ...fileformat import load
from ..common import add_json_flag, positive_seconds, print_json
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("info", help=SUMMARIES["info"])
    p.add_argument("model", help="a symrel JSON model, an .onnx or .nnet model, or a .vnnlib property")
    p.add_argument("--timeout", type=positive_seconds, default=10.0,
                   help="cpwl: time limit in seconds for the Wang-Sun form's size (default 10); past it the "
                        "lattice sizes are printed and the Wang-Sun size is marked not computed")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from ...verification.files import bytes_sha256

    if Path(args.model).suffix.lower() == ".vnnlib":
        sizes = _property_sizes(args.model)
    else:
        sizes = _model_sizes(args)
    from ...verification.files import model_sha256

    digest = bytes_sha256(args.model)
    model = sizes.pop("_model", None)
    sizes["file"] = {"name": Path(args.model).name, "sha256": digest,
                     "canonical_sha256": sizes.pop("_canonical", None) or model_sha256(model)}
    if args.json:
        print_json(sizes)
    else:
        for line in _lines({k: v for k, v in sizes.items() if k != "file"}):
            print(line)
        print(f"file: {sizes['file']['name']}")
        print(f"sha256 of the file's bytes: {digest}")
        print(f"sha256 of the canonical text: {sizes['file']['canonical_sha256']} (of the exact object read from "
              "the file, as a certificate records it)")
    return 0


def _model_sizes(args) -> dict:
    """The model's table (module docstring), with the model itself under ``_model``."""
    from ...model_kinds import kind_of
    from ..common import IMPORTED_EXTENSIONS, load_model_file

    from pathlib import Path

    raw = None if Path(args.model).suffix.lower() in IMPORTED_EXTENSIONS else _json_or_none(args.model)
    if isinstance(raw, dict) and raw.get("kind") == "sequence-transformer":
        model = load(args.model, kinds=("sequence-transformer",))  # a token model (e.g. imported from tracr)
    elif isinstance(raw, dict) and raw.get("kind") not in _model_kind_names():
        thing = load(args.model)   # another input file (a domain, points, a certificate): its kind and its hashes
        if isinstance(thing, dict):   # a certificate is kept as its JSON object: the canonical text is its own
            from ...fileformat import sha256_of

            return {**_certificate_sizes(thing), "_canonical": sha256_of(thing)}
        return {"kind": getattr(thing, "kind", None) or raw.get("kind"), "_model": thing}
    else:
        model = load_model_file(args.model)
    kind = kind_of(model)
    if kind is not None and kind.info is not None:   # the kind's own table (a cpwl mesh: also its forms' sizes)
        from ...budget import Budget

        sizes = kind.info(model, Budget(timeout=args.timeout))
    else:
        sizes = model.sizes()
    return {**sizes, "_model": model}


def _certificate_sizes(cert: dict) -> dict:
    """What a certificate file says of itself, unchecked (``symrel check-certificate`` checks it):
    its claim's kind, its inputs and its number of steps."""
    claim = cert.get("claim")
    inputs, steps = cert.get("inputs"), cert.get("steps")
    return {"kind": "certificate", "claim": claim.get("kind") if isinstance(claim, dict) else None,
            "inputs": sorted(inputs) if isinstance(inputs, dict) else [],
            "steps": len(steps) if isinstance(steps, list) else 0, "checked": False}


def _model_kind_names() -> tuple:
    from ...fileformat import MODEL_KINDS
    from ...model_kinds import names

    return tuple(MODEL_KINDS) + tuple(names())


def _json_or_none(path):
    """The JSON in ``path``, or None when it is not JSON (the model reader then says why)."""
    from ...errors import InputError
    from ...fileformat import read_json

    try:
        return read_json(path)
    except InputError:
        return None


def _property_sizes(path) -> dict:
    """A VNN-LIB property's sizes: inputs, outputs, the disjuncts of each side and their atoms;
    with the sha256 of the ``property`` object a certificate records, under ``_canonical``."""
    from ...fileformat import sha256_of
    from ...vnnlib.engine import property_object
    from ...vnnlib.reader import read_vnnlib

    prop = read_vnnlib(path)
    return {"kind": "vnnlib", "inputs": prop.n_inputs, "outputs": prop.n_outputs,
            "input_region": {"disjuncts": len(prop.input_region), "atoms": sum(map(len, prop.input_region))},
            "unsafe": {"disjuncts": len(prop.unsafe), "atoms": sum(map(len, prop.unsafe))},
            "_canonical": sha256_of(property_object(prop))}


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
