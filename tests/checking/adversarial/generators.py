"""Certificate texts too large to keep as files: ``name() -> str``, named by a case's
``generator`` field (README.md)."""

from __future__ import annotations

import json


def header(kind: str, steps: list, inputs: dict | None = None, **claim) -> dict:
    """The frame of a certificate of claim ``kind`` (its inputs and steps as given)."""
    return {"symrel": 1, "kind": "certificate", "claim": {"kind": kind, **claim},
            "inputs": inputs or {}, "steps": steps}


def long_digit_runs_in_a_string() -> str:
    """Ten runs of 100,000 digits inside one string: a digit regex over the raw text that
    backtracks on each run costs quadratic time; the reader must stay linear."""
    junk = " ".join("9" * 100_000 for _ in range(10))
    return json.dumps(header("utility", [{"rule": "complete-preorder", "status": "proved",
                                          "certificate": {}}], statement=junk))
