"""Helpers shared by the subcommands: parsing points, printing results."""

from __future__ import annotations

import json
import sys

from ..errors import InputError
from ..exact import format_rational, rational


def parse_point(text: str, option: str = "--input") -> list:
    """``"1/2,-1/4"`` -> a list of exact rationals; errors name the option."""
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(p == "" for p in parts):
        raise InputError(f"expected comma-separated rationals such as 1/2,-1/4, got {text!r}", path=option)
    return [rational(p, path=f"{option}[{i}]") for i, p in enumerate(parts)]


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def print_json(obj) -> None:
    print(json.dumps(obj, sort_keys=True))


def fmt(q) -> str:
    return str(format_rational(q))


def warn(text: str) -> None:
    print(text, file=sys.stderr)
