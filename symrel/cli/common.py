"""Helpers shared by the subcommands: parsing points, printing results."""

from __future__ import annotations

import contextvars
import json
import sys

from ..errors import InputError
from ..exact import format_rational, rational, to_fraction
from ..exact.number_text import BLANKS, integer_from_text, why_not_ascii


def parse_point(text: str, option: str = "--input") -> list:
    """``"1/2,-1/4"`` -> a list of exact rationals (the number grammar, ASCII only); errors name
    the option."""
    parts = [p.strip(BLANKS) for p in text.split(",")]
    if not text.strip(BLANKS) or any(p == "" for p in parts):
        raise InputError(f"expected comma-separated rationals such as 1/2,-1/4, got {text!r}", path=option)
    return [rational(p, path=f"{option}[{i}]") for i, p in enumerate(parts)]


def seconds(text: str) -> float | None:
    """A positive number of seconds written as ``text`` (the number grammar: ``"10"``,
    ``"2.5"``, ``"1/2"``), as a float (a time limit, not a proof's number); None when ``text``
    is not one (not a number, not positive, beyond the floats, or below them).

    >>> seconds("2.5"), seconds("1/4"), seconds("0"), seconds("\u0661\u0660"), seconds("1e400")
    (2.5, 0.25, None, None, None)
    """
    try:
        q = rational(text, path="seconds")
        value = float(to_fraction(q)) if q > 0 else 0.0
    except (InputError, OverflowError):
        return None
    return value if 0 < value < float("inf") else None


def positive_seconds(text: str) -> float:
    """argparse type of a ``--timeout``: a positive finite number of seconds (:func:`seconds`)."""
    import argparse

    value = seconds(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}{why_not_ascii(text)}")
    return value


def integer_option(text: str) -> int:
    """argparse type of an integer option (``--max-cells N``): the integer form of the number
    grammar, ASCII digits after an optional sign (argparse's ``int`` would also read other
    scripts' digits, ``"\u0663"`` as 3, and ``"1_000"``).

    >>> integer_option("12"), integer_option("-3")
    (12, -3)
    """
    import argparse

    try:
        return integer_from_text(text, path="value")
    except InputError as err:
        raise argparse.ArgumentTypeError(err.message) from None


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
