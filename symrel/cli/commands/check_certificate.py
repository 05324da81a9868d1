"""``symrel check-certificate C.json [--input NAME=FILE ...] [--json] [--coq]``: check a certificate
with the trusted checker.

Prints what the certificate proves, as the checker derives it from the certificate's data
(the claim's kind and numbers, the inputs and their sha256; never the free-text
``statement``, which must agree with it), the steps checked per rule and, last, ``checked``
(or ``vacuous`` and why, when the claim speaks of no point). Exit codes: 0 only when the
certificate is checked; 1 when it is rejected (standard error names the file and the JSON
path of the first failing step and field); 2 when the file is malformed (not JSON, a value
of the wrong type, an unknown key, a number beyond a limit: one line naming the file, the
JSON path and what was expected; docs/format.md, "What the checker refuses").

``--input NAME=FILE`` binds the certificate to a file of yours: the check then also requires
the input ``NAME`` embedded in the certificate to be the object read from that file (the
sha256 of its canonical text is ``inputs.NAME.sha256``, equal only when symrel reads both as
the same exact object, so a file holding the JSON float ``0.1`` never binds to an input
holding ``"0.1"``; the file may be that JSON, another JSON file of the same object, or the
``.onnx`` or ``.nnet`` file it was imported from, which is imported again exactly), and
prints that it is. For a ``vnnlib-unsat`` or ``output-bounds`` claim that
records the network's file (``claim.network_file``, written by ``symrel verify`` and ``symrel
bounds``), ``--input network=FILE`` also requires the file's bytes to have the recorded sha256:
the very file the verification read; likewise ``--input region=FILE`` for an ``output-bounds``
claim's ``claim.region_file``, where FILE may be the ``.vnnlib`` file whose input region the box
is (read exactly, as ``symrel bounds --prop`` reads it). ``--input property=FILE.vnnlib`` requires
``claim.property_sha256`` to be the sha256 of the file's bytes and ``claim.property`` to be
the property read from it (:mod:`symrel.vnnlib.reader`, exactly); without it the check says
that the property was not read. A file that differs rejects the certificate (exit 1).
"""

from __future__ import annotations

import contextlib
import sys

from ...errors import InputError
from ...fileformat import read_json
from ..common import add_json_flag, add_progress_option, print_json
from ..executors import add_executor_option
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("check-certificate", help=SUMMARIES["check-certificate"])
    p.add_argument("certificate", help="the certificate file (JSON) to check")
    p.add_argument("--input", action="append", default=[], metavar="NAME=FILE",
                   help="also require the certificate's input NAME to be the object read from FILE (JSON, or .onnx "
                        "or .nnet imported again; .vnnlib for an output-bounds region; also the bytes' sha256 that "
                        "a vnnlib-unsat or output-bounds claim records of its network and region files); "
                        "property=FILE.vnnlib binds the claim's property to the file (sha256 and content)")
    p.add_argument("--coq", action="store_true",
                   help="also replay the claim in Coq (equivalence of a maxout/ReLU net and its compiled "
                        "Transformer on a box, or vnnlib-unsat of a ReLU or layered net; needs coqc; docs/coq.md) "
                        "and say which checks ran")
    add_executor_option(p, "the leaves of a vnnlib-unsat or output-bounds certificate are checked")
    add_progress_option(p, "show the leaves of a vnnlib-unsat or output-bounds certificate checked, out of the total")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...checking import CertificateError, MalformedCertificate
    from ...checking.refusals import shorten_numbers

    try:
        cert = read_json(args.certificate)
    except InputError as err:
        raise InputError(shorten_numbers(err.message), path=err.path, file=err.file) from None
    if getattr(args, "coq", False):
        from ...interop.coq import coqc_available

        if coqc_available() is None:
            raise InputError("--coq needs coqc (Coq 8.16: apt-get install coq); nothing was checked", path="--coq")
    bindings = _parse_bindings(args.input)
    try:
        with _leaves_on(cert, args) as checked:
            summary = checked(cert)
        summary = {**summary, **_bind(cert, bindings)}
    except MalformedCertificate as err:
        raise InputError(shorten_numbers(str(err)), path=None).in_file(args.certificate) from None
    except CertificateError as err:
        at = err.step() or err.path
        said = shorten_numbers(" ".join(str(err).split()))
        if args.json:
            print_json({"result": "rejected", "step": err.step(), "path": err.path, "rule": err.rule, "error": said})
        else:
            print("rejected")
        where = f" at {at}" if at else ""
        if at and at == err.path and said.startswith(f"{at}: "):   # the path once
            said = said[len(at) + 2:]
        print(f"symrel: {args.certificate}: certificate rejected{where}: {said}", file=sys.stderr)
        return 1
    coq = _coq_replay(cert, args) if getattr(args, "coq", False) else None
    if coq is not None:
        summary = {**summary, "coq": coq}
    if args.json:
        print_json(summary)
        return 0 if coq is None or coq["ok"] else 1
    print(f"claim ({summary['claim']}): {summary['statement']}")
    for line in summary.get("bound", []):
        print(f"bound: {line}")
    if summary.get("unbound"):
        print(f"not bound: {summary['unbound']}")
    print(f"steps checked: {summary['steps']}")
    for rule, n in summary["rules"].items():
        print(f"  {rule}: {n}")
    if coq is not None:
        for check, result in coq["checks"].items():
            print(f"coq: {check}: {result}")
        if not coq["ok"]:
            print("rejected by coq")
            print(f"symrel: coq rejected the replay: {coq['log'].strip()[:2000]}", file=sys.stderr)
            return 1
    if summary["result"] == "vacuous":
        print(f"vacuous: {summary['vacuous']}; the claim holds of no point and says nothing")
        return 0
    print("checked")
    return 0


@contextlib.contextmanager
def _leaves_on(cert, args):
    """The checker (:func:`symrel.checking.check_certificate`), with the leaves of a
    vnnlib-unsat certificate on ``--executor`` and their count shown with ``--progress``
    (:func:`symrel.checking.vnnlib.leaves_checked_on`); the same verdict either way."""
    from ...checking import check_certificate

    vnn = type(cert) is dict and type(cert.get("claim")) is dict and \
        cert["claim"].get("kind") in ("vnnlib-unsat", "output-bounds")
    if not vnn or (args.executor is None and not args.progress):
        yield check_certificate
        return
    from ...checking.vnnlib import leaves_checked_on
    from ...progress import Progress
    from ..executors import open_executor

    with open_executor(args.executor) as executor, Progress("leaves checked", unit="leaves", elapsed=True,
                                                            enabled=bool(args.progress)) as bar:
        def shown(done, total):
            bar.total = total
            bar.update(done - bar.count)

        with leaves_checked_on(executor, shown):
            yield check_certificate


def _coq_replay(cert, args) -> dict:
    """The Coq replay (symrel.interop.coq.replay_certificate), or why there is none.
    ``SYMREL_COQ_LIBRARY`` may name a folder of ``build_library`` whose compiled library
    files are reused (docs/coq.md); without it the library is compiled on every run."""
    import os

    from ...interop.coq import replay_certificate
    from ...interop.coq_vnnlib import is_vnnlib, replay_vnnlib_certificate

    if is_vnnlib(cert):
        replay_certificate = replay_vnnlib_certificate
    try:
        return dict(replay_certificate(cert, library=os.environ.get("SYMREL_COQ_LIBRARY") or None))
    except InputError as err:  # a claim Coq does not replay: say so, the Python check stands
        return {"ok": True, "formal": False, "checks": {"replay": f"not run ({err.message})"}, "log": ""}


def _parse_bindings(values) -> dict:
    """``--input NAME=FILE`` values as ``{NAME: FILE}`` (a malformed or repeated one: exit 2)."""
    out = {}
    for value in values:
        name, sep, path = value.partition("=")
        if not sep or not name or not path:
            raise InputError(f"expected NAME=FILE, got {value!r}", path="--input")
        if name in out:
            raise InputError(f"expected each input once, got {name!r} again", path="--input")
        out[name] = path
    return out


def _bind(cert, bindings) -> dict:
    """Check that the certificate's inputs are the user's files (module docstring); returns
    ``{"bound": [what was bound, in words]}`` and, for a vnnlib-unsat claim whose property was
    not bound, ``{"unbound": why it matters}``. A file that differs raises CertificateError;
    a name the certificate does not have, or a file that cannot be read, InputError."""
    out = {"bound": []}
    vnn = cert["claim"].get("kind") == "vnnlib-unsat"
    for name, path in bindings.items():
        if vnn and name == "property":
            out["bound"].append(_bind_property(cert["claim"], path))
            continue
        if name not in cert["inputs"]:
            known = sorted(cert["inputs"]) + (["property"] if vnn else [])
            raise InputError(f"expected the name of an input of the certificate ({', '.join(known)}), got {name!r}",
                             path="--input")
        out["bound"].append(_bind_input(cert, name, path))
    if vnn and "property" not in bindings:
        out["unbound"] = ("the property was not read from a file: claim.property_sha256 "
                          f"({str(cert['claim'].get('property_sha256'))[:16]}) is only what the certificate says; "
                          "pass --input property=FILE.vnnlib to bind it")
    if not out["bound"]:
        del out["bound"]
    return out


def _bind_input(cert, name, path) -> str:
    """The input ``name`` is the object read from the file at ``path``: the sha256 of its
    canonical text is ``inputs.NAME.sha256``. The file may be the canonical JSON itself, any
    JSON file that reads as the same object (an imported model with its ``provenance``), or
    an ``.onnx`` or ``.nnet`` file, imported exactly as ``symrel import`` does. For a
    ``vnnlib-unsat`` claim that records the network's file (``claim.network_file``), the
    file's bytes must also have the sha256 recorded: the very file ``symrel verify`` read."""
    from pathlib import Path

    from ...checking import CertificateError
    from ...fileformat import sha256_of
    from ...fileformat.jsonio import first_json_float
    from ...verification.files import IMPORTED, bytes_sha256, imported_model, model_sha256

    recorded = cert["inputs"][name]["sha256"]
    digest = bytes_sha256(path)
    said = []
    kind = cert["claim"].get("kind")
    recorded_file = None
    if kind in ("vnnlib-unsat", "output-bounds") and name == "network":
        recorded_file = ("network_file", cert["claim"].get("network_file"))
    elif kind == "output-bounds" and name == "region":
        recorded_file = ("region_file", cert["claim"].get("region_file"))
    if recorded_file is not None and recorded_file[1] is not None:
        key, entry = recorded_file
        if digest != entry["sha256"]:
            raise CertificateError(f"the file {path} has sha256 {digest[:16]}.. (its bytes), the certificate was "
                                   f"written from {entry['name']} of sha256 {entry['sha256'][:16]}..: "
                                   "not the same file (a certificate of symrel verify or bounds binds the file it read)",
                                   path=f"claim.{key}.sha256")
        said.append(f"its bytes are those of {entry['name']} (sha256 {digest[:16]})")
    if kind == "output-bounds" and name == "region" and Path(path).suffix.lower() == ".vnnlib":
        from ...verification.output_bounds import property_box

        got, how = sha256_of(property_box(path)), "the box of its input region"
    elif Path(path).suffix.lower() in IMPORTED:
        got = model_sha256(imported_model(path).model)
        how = "imported exactly"
    else:
        raw = read_json(path)
        got, how = sha256_of(raw), "its canonical text"
        if got != recorded:   # the same object written otherwise (an imported model's provenance, key order)
            from ...fileformat.registry import from_json

            try:
                got, how = model_sha256(from_json(raw)), "read"
            except InputError:
                pass
    if got != recorded:
        found = first_json_float(raw) if how == "its canonical text" else None   # a float is its binary value
        why = f" (the file holds the JSON float {found[1][:30]} at {found[0]}, no exact number)" if found else ""
        raise CertificateError(f"the file {path} holds an object of sha256 {got[:16]}.. ({how}), the certificate's "
                               f"input {recorded[:16]}..: not the same object{why}", path=f"inputs.{name}.sha256")
    said.append(f"the object {how} from it is the embedded one (sha256 {recorded[:16]})")
    return f"input {name!r} is the file {path}: " + ", and ".join(said)


def _bind_property(claim, path) -> str:
    """``claim.property_sha256`` is the sha256 of the bytes of the .vnnlib file at ``path``, and
    ``claim.property`` the property read from it, atom by atom, exactly."""
    import hashlib
    from pathlib import Path

    from ...checking import CertificateError
    from ...checking.vnnlib import read_property
    from ...vnnlib.reader import read_vnnlib

    from ...fileformat.reading import read_bytes

    data = read_bytes(path)   # bounded: a device is refused
    digest = hashlib.sha256(data).hexdigest()
    if digest != claim["property_sha256"]:
        raise CertificateError(f"the file {path} has sha256 {digest[:16]}.., the claim names "
                               f"{str(claim['property_sha256'])[:16]}..: not the same file", path="claim.property_sha256")
    n_in, n_out, region, unsafe = read_property(claim)
    prop = read_vnnlib(path, n_in, n_out)

    def atoms(dnf):
        return [[(list(a.x), list(a.y), a.rhs) for a in conj] for conj in dnf]

    for side, mine, read in (("input_region", region, atoms(prop.input_region)), ("unsafe", unsafe, atoms(prop.unsafe))):
        if len(mine) != len(read):
            raise CertificateError(f"the file {path} reads as {len(read)} disjuncts here, the claim has {len(mine)}",
                                   path=f"claim.property.{side}")
        for d, (a, b) in enumerate(zip(mine, read)):
            if a != b:
                raise CertificateError(f"disjunct {d} differs from the one read from the file {path}",
                                       path=f"claim.property.{side}[{d}]")
    return f"the property is the file {path} (sha256 {digest[:16]}), read and compared atom by atom"
