"""Altering one number of a certificate, to show its checker is not vacuous.

A certificate records every number its steps assert. Changing any one of them
(here: adding 1/10^6) must make :func:`symrel.checking.check_certificate` fail.

>>> cert = {"claim": {"kind": "k", "eps": "1/10"}, "steps": [{"lemma": "x", "certificate": {"lower": "-1/2", "v": [1, 2]}}]}
>>> [p for p, _ in numbers_in(cert)]
['claim.eps', 'steps[0].certificate.lower', 'steps[0].certificate.v[0]', 'steps[0].certificate.v[1]']
>>> altered(cert, "steps[0].certificate.v[1]")["steps"][0]["certificate"]["v"]
[1, '2000001/1000000']
"""

from __future__ import annotations

import copy
import hashlib
import re

from ..exact import format_rational, rational
from ..report.wording import is_rational_text

_INDEX = re.compile(r"\[(\d+)\]")


def _walk(obj, path: str):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]")
    elif is_rational_text(obj):
        yield path, obj


def numbers_in(cert: dict):
    """Every number the certificate asserts (its claim and its steps), with its path.
    The embedded inputs are left out: their sha256 protects them."""
    for part in ("claim", "steps"):
        if part in cert:
            yield from _walk(cert[part], part)


def _parts(path: str) -> list:
    out: list = []
    for name in path.split("."):
        head = _INDEX.split(name)
        out.append(head[0])
        out += [int(i) for i in head[1::2]]
    return [p for p in out if p != ""]


def altered(cert: dict, path: str, delta="1/1000000") -> dict:
    """A copy of ``cert`` with the number at ``path`` increased by ``delta``."""
    new = copy.deepcopy(cert)
    keys = _parts(path)
    holder = new
    for k in keys[:-1]:
        holder = holder[k]
    holder[keys[-1]] = format_rational(rational(holder[keys[-1]]) + rational(delta))
    return new


def pick_number(cert: dict) -> str | None:
    """A number of the certificate's steps chosen deterministically from its content
    (the same certificate always gives the same pick), or None if it has none."""
    paths = [p for p, _ in numbers_in(cert) if p.startswith("steps")] or [p for p, _ in numbers_in(cert)]
    if not paths:
        return None
    digest = hashlib.sha256("\n".join(paths).encode()).digest()
    return paths[int.from_bytes(digest[:8], "big") % len(paths)]


def probe(cert: dict, check) -> tuple[str | None, bool]:
    """Alter one number (see :func:`pick_number`) and run ``check`` on the copy:
    returns (the altered path, whether the checker rejected the copy)."""
    from ..checking import CertificateError

    path = pick_number(cert)
    if path is None:
        return None, False
    try:
        check(altered(cert, path))
    except CertificateError:
        return path, True
    return path, False
