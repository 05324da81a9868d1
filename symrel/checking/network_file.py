"""The file names and sha256 that vnnlib-unsat and output-bounds claims record (docs/format.md):
``claim.network_file``, the network file ``symrel verify`` read, and the property's or the
region's file name. A certificate records file names, never paths.

>>> read_network_file({"network_file": {"name": "net.onnx", "sha256": "0" * 64}})["name"]
'net.onnx'
"""

from __future__ import annotations

from . import MalformedCertificate
from .read import describe, record, string


#: characters a file name in a certificate may not hold: certificates record file names, never
#: paths (a directory of the machine that wrote them)
_PATH_CHARACTERS = ("/", "\\")


def file_name(value, path: str) -> str:
    """A file name as a certificate records it: a non-empty string without a directory (no
    ``/`` or ``\\``), not ``.`` or ``..``, and printable.

    >>> file_name("prop_3.vnnlib", "claim.property_source")
    'prop_3.vnnlib'
    >>> try:
    ...     file_name("/home/me/prop_3.vnnlib", "claim.property_source")
    ... except MalformedCertificate as err:
    ...     print(err)
    claim.property_source: expected a file name without a directory (certificates record no paths), got the string '/home/me/prop_3.vnnlib'
    """
    name = string(value, path)
    if not name or name in (".", "..") or any(c in name for c in _PATH_CHARACTERS) or not name.isprintable():
        raise MalformedCertificate("expected a file name without a directory (certificates record no paths), got "
                                   f"{describe(value)}", path=path)
    return name


def sha256_text(value, path: str) -> str:
    """A sha256 as a certificate records it: 64 lowercase hexadecimal digits."""
    text = string(value, path)
    if len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise MalformedCertificate(f"expected a sha256 (64 lowercase hexadecimal digits), got {describe(value)}",
                                   path=path)
    return text


def read_network_file(claim) -> dict | None:
    """``claim.network_file`` (optional): ``{"name": the network file's name, "sha256": the
    sha256 of its bytes}``, the file ``symrel verify`` read the network from."""
    if "network_file" not in claim:
        return None
    entry = record(claim["network_file"], "claim.network_file", keys=("name", "sha256"))
    return {"name": file_name(entry["name"], "claim.network_file.name"),
            "sha256": sha256_text(entry["sha256"], "claim.network_file.sha256")}


