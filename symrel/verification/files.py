"""The files a verification reads, and the two hashes that tie a result to them.

A network is a ``.onnx`` file (float tensors read bit for bit; an input ``Sub``
normalisation folded in), a ``.nnet`` file (decimals read exactly; inputs in the file's
normalised units, as VNN-COMP's ``.onnx`` conversions read them, and as ``symrel import``
writes it without ``--normalise``) or a symrel JSON model. A property is a ``.vnnlib`` file.

Every input file has two hashes (:func:`file_hashes`, printed by ``symrel info``):

* the sha256 of its **bytes**, what ``sha256sum`` prints: it names the file itself;
* the sha256 of the **canonical** text of the exact object symrel reads from it
  (docs/format.md): a model's is the ``sha256`` a certificate records for it as an input
  (``inputs.network.sha256``), whatever file it was read from (an ``.onnx``, the JSON
  ``symrel import`` wrote from it, with or without its ``provenance``); a property's is that
  of the ``property`` object a ``vnnlib-unsat`` claim records.

A ``vnnlib-unsat`` certificate written by ``symrel verify`` records both for the network
(``claim.network_sha256`` and ``claim.network_file``) and the bytes' for the property
(``claim.property_sha256``), with the files' names, never their directories.

Cost: one read of the file and its import (linear in its size; an ONNX graph's import is
that of :mod:`symrel.interop.onnx_import`).

>>> import os, tempfile
>>> from symrel.fileformat import save
>>> from symrel.models import DenseLayer, ReLUNet
>>> folder = tempfile.mkdtemp()
>>> save(ReLUNet(1, [DenseLayer([[2]], [0], "none")]), os.path.join(folder, "double.json"))
>>> hashes = file_hashes(os.path.join(folder, "double.json"))
>>> hashes["name"], hashes["kind"], len(hashes["sha256"]), hashes["sha256"] == hashes["canonical_sha256"]
('double.json', 'relu', 64, True)
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError

#: the extensions of the files a model is imported from (``symrel import``)
IMPORTED = (".onnx", ".nnet")


def bytes_sha256(path) -> str:
    """The sha256 of the file's bytes (hex), read in blocks; an unreadable file is an
    :class:`~symrel.errors.InputError` naming it."""
    from ..fileformat.reading import file_sha256

    return file_sha256(path)   # bounded: a device (/dev/zero) is refused, not hashed forever


def imported_model(path):
    """The model in an ``.onnx`` or ``.nnet`` file, read exactly as ``symrel import`` reads it
    (without ``--normalise``): an :class:`~symrel.interop.onnx_import.ImportedModel`."""
    ext = Path(str(path)).suffix.lower()
    if ext == ".nnet":
        from ..interop.nnet import load_nnet
        from ..interop.imported import ImportedModel

        return ImportedModel(load_nnet(path).net(normalise=False), str(path), "nnet", ["decimal"],
                             ["normalisation not applied: the net reads normalised inputs"])
    if ext == ".onnx":
        from ..interop.extras import MissingExtra

        try:
            from ..interop.onnx_import import read_onnx

            return read_onnx(path)
        except MissingExtra as err:   # which file needs the extra
            raise err.in_file(str(path)) from None
    raise InputError(f"expected a file ending in .onnx or .nnet, got {Path(str(path)).name!r}", file=str(path))


def read_model(path, *, exact_floats: bool = False):
    """The model in the file ``path``: imported from ``.onnx`` or ``.nnet``
    (:func:`imported_model`), else read as a symrel JSON model."""
    if Path(str(path)).suffix.lower() in IMPORTED:
        return imported_model(path).model
    from ..fileformat import load_model

    return load_model(path, exact_floats=exact_floats)


def read_network(path):
    """The exact net in the file ``path`` (``.onnx``, ``.nnet`` or ``.json``): a ReLU, layered
    or maxout net (:func:`symrel.vnnlib.layered.dispatch.verifiable`)."""
    from ..vnnlib.layered.dispatch import verifiable

    ext = Path(str(path)).suffix.lower()
    if ext not in IMPORTED + (".json",):
        raise InputError(f"expected a network ending in .onnx, .nnet or .json, got {Path(str(path)).name!r}",
                         file=str(path))
    net = read_model(path)
    if not verifiable(net):
        raise InputError(f"expected a ReLU, layered or maxout network, got {getattr(net, 'kind', type(net).__name__)}",
                         file=str(path))
    return net


def network_or_property_error(read_net, prop):
    """``read_net()``, the network read; where it needs an extra that is not installed
    (:class:`~symrel.interop.extras.MissingExtra`), the VNN-LIB file ``prop`` (a path) is read
    first without the network's sizes, so that what is wrong with the property itself is the
    error, as with the extra installed; else the missing extra is. Cost: one more read of the
    property, on that failure only.

    >>> import os, tempfile
    >>> from symrel.interop.extras import MissingExtra
    >>> bad = os.path.join(tempfile.mkdtemp(), "p.vnnlib")
    >>> _ = open(bad, "w").write("(declare-const X_0 Real)\\n(assert (<= X_0 1)\\n")
    >>> def needs_onnx():
    ...     raise MissingExtra("onnx is not installed; install the extra: pip install 'symrel[onnx]'")
    >>> network_or_property_error(needs_onnx, bad)
    Traceback (most recent call last):
    ...
    symrel.errors.InputError: ...p.vnnlib: line 2: ...
    """
    from ..interop.extras import MissingExtra

    try:
        return read_net()
    except MissingExtra:
        if isinstance(prop, (str, Path)):
            from ..vnnlib.reader import read_vnnlib

            try:
                read_vnnlib(prop)
            except InputError as err:
                raise err from None
        raise


def output_dim(net) -> int:
    return net.output_dim


def model_sha256(model) -> str:
    """The sha256 of the canonical text of ``model`` (what a certificate's input records)."""
    from ..fileformat import sha256_of, to_json

    return sha256_of(to_json(model))


def file_hashes(path) -> dict:
    """``{"name", "kind", "sha256", "canonical_sha256"}`` of an input file (module docstring):
    a model (``.onnx``, ``.nnet``, JSON), a property (``.vnnlib``), or another symrel JSON
    file (a domain, points; its canonical text is that of the JSON object it holds)."""
    path = str(path)
    out = {"name": Path(path).name, "sha256": bytes_sha256(path)}
    ext = Path(path).suffix.lower()
    if ext == ".vnnlib":
        from ..fileformat import sha256_of
        from ..vnnlib.engine import property_object
        from ..vnnlib.reader import read_vnnlib

        prop = read_vnnlib(path)
        out.update(kind="vnnlib", canonical_sha256=sha256_of(property_object(prop)))
        return out
    if ext in IMPORTED:
        model = imported_model(path).model
    else:
        from ..fileformat import read_json
        from ..fileformat.registry import from_json

        raw = read_json(path)
        try:
            model = from_json(raw)
        except InputError as err:
            raise err.in_file(path) from None
    if isinstance(model, dict):   # a certificate, kept as its JSON object: the canonical text is its own
        from ..fileformat import sha256_of

        out.update(kind=raw.get("kind"), canonical_sha256=sha256_of(raw))
        return out
    out.update(kind=getattr(model, "kind", None) or type(model).__name__, canonical_sha256=_canonical(model))
    return out


def _canonical(thing) -> str:
    from ..fileformat import sha256_of, to_json

    return sha256_of(to_json(thing))
