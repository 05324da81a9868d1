"""Certificates as files: ``Proof -> certificate JSON`` (docs/format.md, "Certificates")."""

from __future__ import annotations

from ..errors import SymrelError
from ..fileformat.jsonio import sha256_of
from ..fileformat.registry import to_json
from .core import PROVED, Proof


#: the index convention of certificate data, stated in every certificate
INDEXING = ("indices in this file count from 0 (blocks, heads, layers, units, tokens, inputs, steps); "
            "reports number them from 1 for people")


def certificate_of(proof: Proof) -> dict:
    """The certificate of a *proved* claim, without its ``claim.statement``: the statement is
    what the checker derives from the certificate's data, and
    :func:`symrel.checking.stated` (through which the provers write) adds it. Refuses
    any other proof: a certificate is written only for a proved claim (a refuted one writes its
    counterexample)."""
    if proof.result != PROVED:
        raise SymrelError(f"no certificate for a claim that is {proof.result}: {proof.obstacle}")
    inputs = {}
    for name, thing in proof.inputs.items():
        obj = thing if isinstance(thing, dict) else to_json(thing)
        inputs[name] = {"object": obj, "sha256": sha256_of(obj)}
    claim = dict(proof.claim_data)
    claim.pop("statement", None)
    if proof.construction:
        claim.setdefault("construction", proof.construction)
    return {
        "symrel": 1,
        "kind": "certificate",
        "indexing": INDEXING,
        "claim": claim,
        "inputs": inputs,
        "steps": [s.to_json() for s in proof.steps],
    }

