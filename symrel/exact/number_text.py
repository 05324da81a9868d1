"""Number text: the one grammar by which symrel reads a number written as text.

Every number symrel reads from a file or an option is text of this grammar (docs/format.md,
"Numbers"): JSON strings of models, domains, points and certificates' inputs, VNN-LIB
constants, ``.nnet`` fields, counterexample files, instance lists, command-line options.
:func:`number_from_text` reads it; :func:`integer_from_text` reads the integer form (a count,
a size); :func:`json_float` gives a JSON float its one meaning. The grammar is ASCII::

    number   ::= blank* (ratio | decimal) blank*
    ratio    ::= integer blank* "/" blank* integer            (the denominator nonzero)
    decimal  ::= sign? (digit+ ("." digit*)? | "." digit+) (("e" | "E") integer)?
    integer  ::= sign? digit+
    sign     ::= "+" | "-"        digit ::= "0" | ... | "9"        blank ::= " " | TAB | LF | CR | FF | VT

spelled with explicit classes, since Python's ``\\d``, ``\\s``, ``str.isdigit`` and ``int()``
also take other scripts' digits (``int("٣")`` is 3), superscripts (``"²".isdigit()`` is
true, then ``int`` raises) and Unicode spaces. A text outside the grammar is refused with an
:class:`~symrel.errors.InputError` naming its path and, when it holds one, the first
character outside ASCII; a number beyond the limits (:class:`~symrel.exact.NumberLimits`)
with a :class:`~symrel.errors.LimitError`, before it is expanded.

The trusted checker does not load this module: it reads certificates with its own copy of
the grammar (:mod:`symrel.checking.read`, docs/trust.md). :func:`symrel.exact.rational` reads
the plain forms (``"3"``, ``"-2/7"``) inline, as this module does, and hands it every other text.

>>> from symrel.exact import format_rational
>>> [format_rational(number_from_text(t)) for t in ("3", "-2/7", "0.125", "1e-3", " 12 / 8 ")]
[3, '-2/7', '1/8', '1/1000', '3/2']
"""

from __future__ import annotations

import math
import re

from ..errors import InputError, LimitError
from .numbers import (_MPQ, _SMALL, FloatLiteral, NumberLimits, Rational, _is_int_text, current_limits, rational,
                      unlimited_int_digits)

#: the blanks allowed around a number (ASCII only; str.strip() would also take Unicode spaces)
BLANKS = " \t\n\r\f\v"
_BLANK = r"[ \t\n\r\f\v]*"
#: ``p/q``: two integers (the denominator may carry a sign), blanks around them allowed
_RATIO = re.compile(_BLANK + r"([+-]?[0-9]+)" + _BLANK + "/" + _BLANK + r"([+-]?[0-9]+)" + _BLANK)
#: a decimal: sign, digits with an optional point (or a point and digits), optional exponent
_DECIMAL = re.compile(_BLANK + r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?" + _BLANK)
#: an integer: sign and digits, nothing else
_INTEGER = re.compile(r"[+-]?[0-9]+")
#: what a JSON float token may be (RFC 8259), the text a FloatLiteral holds
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
#: the forms a number may take, for messages
NUMBER_FORMS = '"3", "-2/7", "0.125" or "1e-3"'


def _check_digits(digits: str, path: str, limits: NumberLimits) -> None:
    if len(digits.lstrip("+-")) > limits.max_digits:
        raise LimitError(
            f"expected at most {limits.max_digits} digits, got a number with {len(digits)} (the digit limit)",
            path=path,
        )


def shown_text(text: str, quoted: bool = True) -> str:
    """``text`` for a one-line message (quoted and escaped), shortened beyond 60 characters.

    >>> shown_text("1/2"), shown_text("9" * 100)[-20:]
    ("'1/2'", '... (100 characters)')
    """
    short = text if len(text) <= 60 else text[:57]
    shown = repr(short) if quoted else short
    return shown if short is text else f"{shown}... ({len(text)} characters)"


def why_not_ascii(text: str) -> str:
    """``""`` for ASCII text; else the first character outside ASCII, named, for a message that
    refuses ``text`` as a number (a superscript two, an Arabic-Indic digit, a minus sign and a
    fullwidth digit all look like number text).

    >>> why_not_ascii("12"), why_not_ascii("\u22121")
    ('', ': U+2212 MINUS SIGN is not ASCII (a number is written with 0-9, + -, ., / and e)')
    """
    ch = next((c for c in text if not c.isascii()), None)
    if ch is None:
        return ""
    import unicodedata

    name = unicodedata.name(ch, "")
    return f": U+{ord(ch):04X}{' ' + name if name else ''} is not ASCII (a number is written with 0-9, + -, ., / and e)"


def not_a_number(text: str, path: str, expected: str = f"an exact rational such as {NUMBER_FORMS}") -> InputError:
    """The refusal of ``text`` as a number: one line naming ``path``, what was ``expected``, the
    text (shortened) and, when it holds one, its first character outside ASCII."""
    return InputError(f"expected {expected}, got {shown_text(text)}{why_not_ascii(text)}", path=path)


def number_from_text(text: str, *, path: str = "value", limits: NumberLimits | None = None) -> Rational:
    """The exact rational that the number text ``text`` denotes: the one reader of number
    text in symrel (JSON strings, VNN-LIB constants, ``.nnet`` fields, counterexample files,
    instance lists, command-line options; docs/format.md, "Numbers").

    The grammar is ASCII: an optional sign and digits ``[0-9]``, then either ``/`` and a
    second integer (``"-2/7"``; the denominator nonzero) or an optional point with digits on
    either side and an optional exponent ``e``/``E`` (``"0.125"``, ``"-.5"``, ``"7."``,
    ``"1e-3"``: the exact decimal); ASCII blanks around the number and the slash are allowed.
    Anything else (another script's digits, ``"²"``, ``"½"``, a Unicode minus, ``"1_000"``,
    ``"0x10"``, ``"nan"``) is refused with an :class:`~symrel.errors.InputError` naming
    ``path``; a number beyond ``limits`` (digits of a numerator or denominator, the
    exponent; by default :func:`current_limits`) with a :class:`~symrel.errors.LimitError`,
    before it is expanded. Cost: linear in the length of ``text``, then the conversion of
    at most ``max_digits`` digits.

    >>> number_from_text("-2/7") == number_from_text("-4/14") == _MPQ(-2, 7)
    True
    >>> number_from_text("\u0663")        # ARABIC-INDIC DIGIT THREE, which int() reads as 3
    Traceback (most recent call last):
    ...
    symrel.errors.InputError: value: expected an exact rational such as "3", "-2/7", "0.125" or "1e-3", got '٣': U+0663 ARABIC-INDIC DIGIT THREE is not ASCII (a number is written with 0-9, + -, ., / and e)
    """
    if limits is None:
        limits = current_limits()
    if len(text) <= min(limits.max_digits, 4000):
        if _is_int_text(text):
            return _MPQ(int(text))
        num, slash, den = text.partition("/")
        if slash and _is_int_text(num) and den.isascii() and den.isdigit() and int(den) != 0:
            return _MPQ(int(num), int(den))
    with unlimited_int_digits():
        return _parse_text(text, path, limits)


def _parse_text(text: str, path: str, limits: NumberLimits) -> Rational:
    m = _RATIO.fullmatch(text)
    if m:
        num, den = m.group(1), m.group(2)
        _check_digits(num, path, limits)
        _check_digits(den, path, limits)
        if int(den) == 0:
            raise InputError(f"expected a rational, got {shown_text(text)} with denominator 0", path=path)
        return _MPQ(int(num), int(den))
    m = _DECIMAL.fullmatch(text)
    if m and (m.group(2) or m.group(3)):
        sign, whole, frac, exp = m.group(1), m.group(2) or "", m.group(3) or "", m.group(4)
        _check_digits(whole + frac, path, limits)
        e = 0
        if exp is not None:
            if len(exp.lstrip("+-")) > len(str(limits.max_exponent)) or abs(int(exp)) > limits.max_exponent:
                raise LimitError(
                    f"expected a decimal exponent of at most {limits.max_exponent} in absolute value, "
                    f"got {exp[:24]}{'...' if len(exp) > 24 else ''} (the exponent limit)",
                    path=path,
                )
            e = int(exp)
        mantissa = int(whole + frac or "0")
        if sign == "-":
            mantissa = -mantissa
        e -= len(frac)
        if e >= 0:
            return _MPQ(mantissa * 10**e, 1)
        return _MPQ(mantissa, 10 ** (-e))
    raise not_a_number(text, path)


def integer_from_text(text: str, *, path: str = "value", minimum: int | None = None,
                      limits: NumberLimits | None = None) -> int:
    """The integer that ``text`` spells: the integer form of the number grammar
    (:func:`number_from_text`), an optional sign and ASCII digits, nothing else (no point,
    no exponent, no blank), within the digit limit, and at least ``minimum`` when given.
    For the counts and sizes a file or an option gives (a ``.nnet`` header, ``--max-cells``).

    >>> integer_from_text("-12"), integer_from_text("007")
    (-12, 7)
    >>> integer_from_text("1.0", path="line 1, field 2")
    Traceback (most recent call last):
    ...
    symrel.errors.InputError: line 1, field 2: expected an integer (ASCII digits 0-9 after an optional sign), got '1.0'
    """
    if limits is None:
        limits = current_limits()
    if not _INTEGER.fullmatch(text):
        raise not_a_number(text, path, "an integer (ASCII digits 0-9 after an optional sign)")
    _check_digits(text, path, limits)
    with unlimited_int_digits():
        value = int(text)
    if minimum is not None and value < minimum:
        raise InputError(f"expected an integer >= {minimum}, got {value}", path=path)
    return value


def json_float(value: FloatLiteral, *, path: str = "value", exact_floats: bool = False,
               limits: NumberLimits | None = None) -> Rational:
    """The one meaning of a JSON float (``0.1`` unquoted, kept as a :class:`FloatLiteral`):
    refused unless the caller asked for exact floats, then the double nearest to its text
    (IEEE 754, round to nearest), exactly: a dyadic rational, not the decimal the text shows.
    ``0.1`` is 3602879701896397/36028797018963968, while the string ``"0.1"`` is 1/10.

    >>> from symrel.exact import format_rational
    >>> format_rational(json_float(FloatLiteral("0.1"), exact_floats=True))
    '3602879701896397/36028797018963968'
    """
    if limits is None:
        limits = current_limits()
    if not exact_floats:
        raise InputError(
            f"expected an exact rational (an integer or a string such as \"1/2\"), got the JSON float "
            f"{shown_text(str(value), quoted=False)}; write it as a string or pass --exact-floats",
            path=path,
        )
    text = str(value)
    if not _JSON_NUMBER.fullmatch(text):  # a FloatLiteral made by hand, not by the JSON reader
        raise not_a_number(text, path)
    mantissa = text.split("e")[0].split("E")[0]
    _check_digits(mantissa.replace(".", "").replace("-", ""), path, limits)
    try:
        f = float(text)
    except OverflowError:
        f = math.inf
    if not math.isfinite(f):
        raise InputError(f"expected a finite number, got {shown_text(text, quoted=False)}", path=path)
    p, q = f.as_integer_ratio()
    return _MPQ(p, q)


def rationals(values) -> list:
    """``[rational(v) for v in values]``, with the small integers (most entries of a model's
    matrices) looked up inline; any refusal is :func:`rational`'s own (its path is ``value``,
    so callers that name entries redo a refused list entry by entry).

    >>> from symrel.exact import format_rational
    >>> [format_rational(q) for q in rationals([0, "-2/7", 3])]
    [0, '-2/7', 3]
    """
    small = _SMALL
    out = []
    put = out.append
    for v in values:
        r = small.get(v) if type(v) is int else None
        put(r if r is not None else rational(v))
    return out


def rational_ints(value, *, path: str = "value") -> tuple[int, int]:
    """``rational(value)`` as two Python ints ``(p, q)``: ``q > 0``, in lowest terms.

    The plain forms (an int, ``"p"``, ``"p/q"``) are read straight into integers, within the
    same digit limits as :func:`rational`; anything else, and every refusal, is :func:`rational`'s.

    >>> rational_ints("-4/6"), rational_ints(3), rational_ints("0.125")
    ((-2, 3), (3, 1), (1, 8))
    """
    tv = type(value)
    if tv is int:
        if value.bit_length() * 0.30103 < current_limits().max_digits - 1:
            return value, 1
    elif tv is str and len(value) <= min(current_limits().max_digits, 4000) and value.isascii():
        if _is_int_text(value):
            return int(value), 1
        num, slash, den = value.partition("/")
        if slash and den.isdigit() and _is_int_text(num) and int(den) != 0:
            p, q = int(num), int(den)
            g = math.gcd(p, q)
            return (p // g, q // g) if g != 1 else (p, q)
    r = rational(value, path=path)
    return int(r.numerator), int(r.denominator)


_RATIONAL_TEXT = re.compile(r"-?[0-9]+(/[0-9]+)?")


def is_rational_text(value) -> bool:
    """Whether a JSON value is a number as :func:`format_rational` writes them: an
    integer (not a bool), or a string ``"p"`` or ``"p/q"`` of decimal digits.

    >>> [is_rational_text(v) for v in (3, "-2/7", True, "0.5", [1])]
    [True, True, False, False, False]
    """
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, str) and bool(_RATIONAL_TEXT.fullmatch(value)))
