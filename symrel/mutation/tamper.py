"""Altering one number of a symrel JSON object, by its path (docs/format.md).

This is how mutants are made (:mod:`symrel.mutation.mutants`) and how a
certificate's checker is shown not to be vacuous: a certificate records every number its steps assert, and changing any one of them
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

from ..exact import format_rational, is_rational_text, rational

_INDEX = re.compile(r"\[([0-9]+)\]")


def number_leaves(obj, path: str = ""):
    """``(path, value)`` of every number (an integer or a rational string) in the
    JSON object ``obj``, depth first; ``path`` is the prefix of every path."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from number_leaves(v, f"{path}.{k}" if path else str(k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from number_leaves(v, f"{path}[{i}]")
    elif is_rational_text(obj):
        yield path, obj


def numbers_in(cert: dict):
    """Every number the certificate asserts (its claim and its steps), with its path.
    The embedded inputs are left out: their sha256 protects them."""
    for part in ("claim", "steps"):
        if part in cert:
            yield from number_leaves(cert[part], part)


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
