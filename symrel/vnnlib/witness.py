"""Counterexamples in VNN-COMP's format, read and written exactly.

A VNN-COMP result file for a violated property is the word ``sat`` on its first
line and then an assignment ``((X_0 v) (X_1 v) ... (Y_0 v) ...)``, each value a
decimal (signs and exponents allowed). :func:`read_witness` reads the values
as exact rationals (the word ``sat``, or the 2021 word ``violated``, may be
absent; ``;`` starts a comment, to the line feed: a CR alone inside one is refused, since
Python's line readers end the comment there); :func:`format_witness` writes them.

A rational is written as an exact decimal when its denominator has no prime
factor but 2 and 5 (every float, and every output of a net with float or decimal
weights at a decimal input), else rounded to :data:`ROUND_DIGITS` significant
digits; :func:`format_witness` says which.

Cost: linear in the file; :func:`exact_decimal` is linear in the digits it writes.

>>> from symrel.exact import rational as q
>>> text, exact = format_witness([q("3/8"), q(-1)], [q("1e-20")])
>>> print(text, end="")
sat
((X_0 0.375)
 (X_1 -1)
 (Y_0 0.00000000000000000001))
>>> exact
True
>>> w = read_witness_text(text, n_inputs=2, n_outputs=1)
>>> w.x == (q("3/8"), q(-1)), w.y == (q("1e-20"),)
(True, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..exact import denominator, numerator
from ..exact.number_text import number_from_text, shown_text, why_not_ascii

#: significant digits of a value that has no finite decimal expansion
ROUND_DIGITS = 40

#: a pair ``(X_0 v)``: ASCII only (re.ASCII: \s and \d would also take Unicode spaces and digits)
_PAIR = re.compile(r"\(\s*([XY])_([0-9]+)\s+([^\s()]+)\s*\)", re.ASCII)
#: a value: a decimal, signs and an exponent allowed
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


@dataclass(frozen=True)
class Witness:
    """An assignment read from a counterexample file: ``x`` the inputs, ``y`` the outputs the
    tool claimed (``None`` when the file gives none)."""

    x: tuple
    y: tuple | None
    source: str


def exact_decimal(q) -> str | None:
    """``q`` as a decimal that equals it exactly, or None when it has none.

    >>> from symrel.exact import rational as q
    >>> exact_decimal(q("-5/16")), exact_decimal(q(7)), exact_decimal(q("1/3"))
    ('-0.3125', '7', None)
    """
    p, d = int(numerator(q)), int(denominator(q))
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return None
    places = max(twos, fives)
    scaled = abs(p) * 10**places // int(denominator(q))
    digits = str(scaled).rjust(places + 1, "0")
    text = digits if places == 0 else digits[:-places] + "." + digits[-places:]
    return ("-" if p < 0 else "") + text


def decimal_of(q) -> tuple[str, bool]:
    """``(text, exact)``: the exact decimal of ``q`` when there is one, else ``q`` rounded
    to :data:`ROUND_DIGITS` significant digits (then ``exact`` is False)."""
    text = exact_decimal(q)
    if text is not None:
        return text, True
    from ..exact.display import decimal_text

    return decimal_text(q, ROUND_DIGITS), False


def format_witness(x, y) -> tuple[str, bool]:
    """The VNN-COMP result text of a counterexample (``sat``, then the assignment) and
    whether every value in it is exact."""
    rows, exact = [], True
    for name, values in (("X", x), ("Y", y)):
        for i, v in enumerate(values):
            text, ok = decimal_of(v)
            exact = exact and ok
            rows.append(f"({name}_{i} {text})")
    return "sat\n(" + "\n ".join(rows) + ")\n", exact


def read_witness_text(text: str, *, n_inputs: int, n_outputs: int, source: str = "inline") -> Witness:
    """Read a counterexample (see the module docstring); every input must be given,
    the outputs all or none. Errors name the source and the line."""
    body_lines = []
    for number, line in enumerate(text.split("\n"), 1):   # not splitlines(): U+2028 is no line break here
        line = line.removesuffix("\r")
        body, _, comment = line.partition(";")
        if "\r" in comment:   # a comment ends at a line feed here; Python's line readers also end it at a CR
            raise InputError("expected a comment to end at a line feed, got a carriage return alone inside it (read "
                             "as a line break by some readers, not by others)", path=f"line {number}", file=source)
        body_lines.append((number, body))
    # the first nonblank word may be the verdict
    for k, (number, line) in enumerate(body_lines):
        if line.strip():
            word = line.strip().split()[0]
            if word in ("sat", "violated"):
                body_lines[k] = (number, line.replace(word, " " * len(word), 1))
            elif word in ("unsat", "holds", "unknown", "timeout", "error"):
                raise InputError(f"expected a counterexample (sat), got the verdict {word!r}",
                                 path=f"line {number}", file=source)
            break
    values: dict[tuple[str, int], object] = {}
    seen_any = False
    depth = 0
    for number, line in body_lines:
        pos = 0
        while pos < len(line):
            ch = line[pos]
            if ch.isspace():
                pos += 1
                continue
            if depth == 1 and ch == "(":
                m = _PAIR.match(line, pos)
                if not m:
                    raise InputError("expected a pair such as (X_0 0.5)", path=f"line {number}", file=source)
                kind, index = m.group(1), m.group(2)   # ASCII digits (the pattern says so)
                limit = n_inputs if kind == "X" else n_outputs
                if len(index) > 18 or int(index) >= limit:   # a long index is beyond any network
                    raise InputError(f"expected a variable of the network ({limit} {'inputs' if kind == 'X' else 'outputs'}), "
                                     f"got {kind}_{shown_text(index, quoted=False)}", path=f"line {number}", file=source)
                key = (kind, int(index))
                if key in values:
                    raise InputError(f"expected each variable once, {key[0]}_{key[1]} is given twice",
                                     path=f"line {number}", file=source)
                text = m.group(3)
                if not _DECIMAL.fullmatch(text):
                    raise InputError(f"expected a decimal value, got {text[:60]!r}{why_not_ascii(text)}",
                                     path=f"line {number}", file=source)
                try:
                    values[key] = number_from_text(text, path=f"line {number}")
                except InputError as err:  # beyond the digit or exponent limit
                    raise err.in_file(source) from None
                pos = m.end()
            elif ch == "(" and depth == 0 and not seen_any:
                depth, seen_any = 1, True
                pos += 1
            elif ch == ")" and depth == 1:
                depth = 2
                pos += 1
            else:
                raise InputError(f"expected an assignment ((X_0 v) ... (Y_0 v)), got {line[pos:pos + 20].strip()!r}",
                                 path=f"line {number}", file=source)
    if depth != 2:
        raise InputError("expected an assignment ((X_0 v) ... (Y_0 v)) closed by ')'",
                         path=f"line {len(body_lines)}", file=source)
    missing = [f"X_{i}" for i in range(n_inputs) if ("X", i) not in values]
    if missing:
        raise InputError(f"expected a value for every input, missing {', '.join(missing[:5])}", file=source)
    ys = [("Y", j) in values for j in range(n_outputs)]
    if any(ys) and not all(ys):
        missing = [f"Y_{j}" for j in range(n_outputs) if not ys[j]]
        raise InputError(f"expected all outputs or none, missing {', '.join(missing[:5])}", file=source)
    x = tuple(values[("X", i)] for i in range(n_inputs))
    y = tuple(values[("Y", j)] for j in range(n_outputs)) if any(ys) else None
    return Witness(x, y, source)


def read_witness(path, *, n_inputs: int, n_outputs: int) -> Witness:
    """Read the counterexample file at ``path`` (see :func:`read_witness_text`)."""
    from ..fileformat.reading import read_utf8

    text = read_utf8(path, "a counterexample file")   # bounded: a device is refused
    return read_witness_text(text, n_inputs=n_inputs, n_outputs=n_outputs, source=str(path))
