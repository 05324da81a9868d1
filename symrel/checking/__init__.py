"""Independent re-checking of certificates (``symrel check-certificate``).

A certificate (FORMAT.md, ``kind: "certificate"``) embeds its inputs with their
sha256 and lists steps, each naming a rule and recording the exact numbers it
asserts. The checker for a rule recomputes those numbers from the inputs with
the exact layer alone and compares exactly. Checkers are registered per claim
kind, in modules of this package written apart from the provers:
``@claim_checker("equivalence")`` decorates ``fn(certificate, inputs) -> None``
that raises :class:`CertificateError` on the first mismatch.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Callable

from ..errors import SymrelError

CHECKERS: dict[str, Callable] = {}


class CertificateError(SymrelError):
    """A certificate failed its check; the message says which step and number."""


def claim_checker(kind: str):
    """Register a checker for certificates whose ``claim.kind`` is ``kind``."""

    def deco(fn):
        CHECKERS[kind] = fn
        return fn

    return deco


def _load_checkers():
    for info in pkgutil.iter_modules(__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}")


def check_certificate(cert: dict) -> dict:
    """Re-verify a certificate; returns a summary dict, raises :class:`CertificateError`.

    Steps common to all kinds (input hashes) are checked here; the claim-specific
    part by the registered checker.
    """
    from ..fileformat import from_json, sha256_of

    _load_checkers()
    if not isinstance(cert, dict) or cert.get("kind") != "certificate" or cert.get("symrel") != 1:
        raise CertificateError("not a symrel certificate (expected symrel: 1, kind: certificate)")
    claim = cert.get("claim")
    if not isinstance(claim, dict) or not isinstance(claim.get("kind"), str):
        raise CertificateError("claim: expected an object with a string 'kind'")
    raw_inputs = cert.get("inputs")
    if not isinstance(raw_inputs, dict):
        raise CertificateError("inputs: missing")
    inputs = {}
    for name, entry in raw_inputs.items():
        if not isinstance(entry, dict) or "object" not in entry or "sha256" not in entry:
            raise CertificateError(f"inputs.{name}: expected an object with 'object' and 'sha256'")
        if sha256_of(entry["object"]) != entry["sha256"]:
            raise CertificateError(f"inputs.{name}: sha256 does not match the embedded object")
        try:
            inputs[name] = from_json(entry["object"], path=f"inputs.{name}.object")
        except SymrelError as err:
            raise CertificateError(f"inputs.{name}: {err}") from None
    steps = cert.get("steps")
    if not isinstance(steps, list) or not steps:
        raise CertificateError("steps: expected a non-empty list")
    for i, step in enumerate(steps):
        if not isinstance(step, dict) or not isinstance(step.get("rule"), str):
            raise CertificateError(f"steps[{i}]: expected an object with a string 'rule'")
    kind = claim["kind"]
    if kind not in CHECKERS:
        raise CertificateError(f"claim.kind: no checker for claims of kind {kind!r} (known: {sorted(CHECKERS)})")
    try:
        CHECKERS[kind](cert, inputs)
    except CertificateError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, AttributeError) as err:
        raise CertificateError(f"malformed certificate data: {type(err).__name__}: {err}") from None
    return {"claim": kind, "steps": len(steps), "result": "checked"}
