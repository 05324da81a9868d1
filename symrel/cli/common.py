"""Helpers shared by the subcommands: parsing points, printing results."""

from __future__ import annotations

import contextvars
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


def positive_seconds(text: str) -> float:
    """argparse type of a ``--timeout``: a positive finite number of seconds."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def add_json_flag(parser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")


def print_json(obj) -> None:
    print(json.dumps(obj, sort_keys=True))


def fmt(q) -> str:
    """``q`` exactly, as the JSON output writes it (``"-2/7"``)."""
    return str(format_rational(q))


#: ``--digits N``: significant digits of the decimal shown beside each rational in text output
DISPLAY_DIGITS: contextvars.ContextVar[int | None] = contextvars.ContextVar("symrel_display_digits", default=None)


def check_display_digits(digits: int | None) -> None:
    """Refuse a ``--digits`` outside 1..1000, naming the option."""
    if digits is not None and not 1 <= digits <= 1000:
        raise InputError(f"expected between 1 and 1000 digits, got {digits}", path="--digits")


def shown(q, default_digits: int | None = None) -> str:
    """``q`` for text output: exactly, and with ``--digits N`` also as a decimal of N
    significant digits, ``"1/3 (~0.3333)"`` (for reading; JSON output keeps the exact value
    alone). An integer, or a decimal that is exact, is shown once. ``default_digits``: the
    decimal's digits without ``--digits`` (a headline figure such as max |A - B| is always
    given a decimal)."""
    exact = fmt(q)
    digits = DISPLAY_DIGITS.get()
    if digits is None:
        digits = default_digits
    if digits is None:
        return exact
    from ..exact.display import decimal_text

    dec = decimal_text(q, digits)
    return exact if dec == exact else f"{exact} (~{dec})"


def shown_point(x) -> str:
    """A point for text output: ``(1/2, -1/3 (~-0.3333))``."""
    return "(" + ", ".join(shown(v) for v in x) + ")"


def warn(text: str) -> None:
    print(text, file=sys.stderr)


def in_domain_file(err: InputError, domain_file: str) -> InputError:
    """An error a prover raised about the domain (its path is ``domain``, and no file is named
    yet), attributed to the domain file; any other error as it is.

    >>> str(in_domain_file(InputError("not inside the support", path="domain"), "D.json"))
    'D.json: domain: not inside the support'
    """
    if err.file is None and (err.path or "").split(".")[0] == "domain":
        return err.in_file(domain_file)
    return err


def add_progress_option(parser, what: str = "progress") -> None:
    """``--progress`` / ``--no-progress``: ``what`` on standard error. Neither given: shown when
    standard error is a terminal, never when it is piped (:func:`resolve_progress`); and even
    then only after 2 s of work (:mod:`symrel.progress`)."""
    import argparse

    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help=f"{what} (default: when standard error is a terminal)")


def resolve_progress(args) -> None:
    """Turn an unset ``--progress`` into whether standard error is a terminal."""
    if getattr(args, "progress", False) is None:
        args.progress = bool(getattr(sys.stderr, "isatty", lambda: False)())


#: the extensions of the model files that are imported on the fly where a JSON model is expected
IMPORTED_EXTENSIONS = (".onnx", ".nnet")


def load_model_file(path, *, exact_floats: bool = False, kinds=None):
    """The model in the file ``path`` where a symrel JSON model is expected: a ``.onnx`` or
    ``.nnet`` file is imported on the fly, exactly as ``symrel import`` would (without
    ``--normalise``), and standard error says so; any other file is read as JSON (``kinds``:
    the kinds accepted, default the models'). A file that is not text gets a hint."""
    from pathlib import Path

    if Path(str(path)).suffix.lower() in IMPORTED_EXTENSIONS:
        from ..verification.files import imported_model

        imported = imported_model(path)
        warn(f"symrel: {path}: imported on the fly as symrel import would ({imported.provenance()['numbers']}); "
             "symrel import writes it as JSON once")
        return imported.model
    from ..fileformat import load, load_model

    try:
        if kinds is None:
            return load_model(path, exact_floats=exact_floats)
        return load(path, kinds=kinds, exact_floats=exact_floats)
    except InputError as err:
        if str(err.message).startswith("expected UTF-8 text"):
            err.message = (f"{err.message}: not a symrel JSON file (an ONNX model must end in .onnx and a .nnet "
                           "model in .nnet to be imported; symrel import converts them)")
            err.args = (err.one_line(),)
        raise
