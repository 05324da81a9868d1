"""Reading numbers: user data to exact rationals, and the one grammar of number text.

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

:func:`rational` turns any user value into an element of Q (an int, a Fraction, a sympy
Rational, a float on request, and text through :func:`number_from_text`); :func:`rationals`
and :func:`rational_ints` are its bulk and integer-pair forms. The plain forms (``"3"``,
``"-2/7"``) are read inline (millions of them make a model), everything else by the grammar.
The trusted checker does not load this module: it reads certificates with its own copy of
the grammar (:mod:`symrel.checking.read`, docs/trust.md).

>>> from symrel.exact import format_rational
>>> [format_rational(number_from_text(t)) for t in ("3", "-2/7", "0.125", "1e-3", " 12 / 8 ")]
[3, '-2/7', '1/8', '1/1000', '3/2']
"""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction
from numbers import Integral

from ..errors import InputError, LimitError
from .numbers import _MPQ, FloatLiteral, NumberLimits, Rational, current_limits, unlimited_int_digits

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


#: the small integers as rationals, made once (rationals are immutable; most entries of a
#: compiled model are small integers, and building an element of QQ is the cost of a read)
_SMALL = {i: _MPQ(i) for i in range(-256, 257)}


def _from_ints(p: int, q: int) -> Rational:
    return _MPQ(p, q)


def _is_int_text(t: str) -> bool:
    """Whether ``t`` is ASCII digits after an optional sign: the commonest number text, read
    by ``int`` at once (``isascii`` first: ``"²".isdigit()`` is true, and ``int`` reads
    Arabic-Indic digits)."""
    return t.isascii() and (t.isdigit() or (len(t) > 1 and t[0] in "+-" and t[1:].isdigit()))


def rational(
    value,
    *,
    path: str = "value",
    exact_floats: bool = False,
    limits: NumberLimits | None = None,
) -> Rational:
    """Convert ``value`` to an exact rational (an element of ``QQ``).

    ``path`` names the field in error messages. Text is read by
    :func:`symrel.exact.number_text.number_from_text` (the one grammar, ASCII only). A float
    is refused unless ``exact_floats`` is set, in which case its binary value is taken
    exactly; so is a JSON float (a :class:`FloatLiteral`), whose value is then the double
    nearest to its decimal text, exactly, not the decimal itself
    (:func:`symrel.exact.number_text.json_float`).

    >>> rational("1e-3") == rational("1/1000")
    True
    >>> rational(0.5)
    Traceback (most recent call last):
    ...
    symrel.errors.InputError: value: expected an exact rational (an integer or a string such as "1/2"), got the float 0.5; pass exact_floats=True to convert it exactly
    """
    if limits is None:
        limits = current_limits()
    # fast paths for the common forms (ints, "p", "p/q"); everything else below
    tv = type(value)
    if tv is int:
        small = _SMALL.get(value)
        if small is not None:
            return small
        if value.bit_length() * 0.30103 < limits.max_digits - 1:
            return _MPQ(value)
    elif tv is str:
        # the plain forms, read as number_from_text reads them (isascii: "²".isdigit() is true)
        if len(value) <= min(limits.max_digits, 4000) and value.isascii():
            if value.isdigit() or (len(value) > 1 and value[0] in "+-" and value[1:].isdigit()):
                return _MPQ(int(value))
            num, slash, den = value.partition("/")
            if slash and den.isdigit() and _is_int_text(num) and int(den) != 0:
                return _MPQ(int(num), int(den))
        return number_from_text(value, path=path, limits=limits)
    if isinstance(value, bool):
        raise InputError(f"expected an exact rational, got the boolean {value}", path=path)
    if isinstance(value, _MPQ):
        return value
    if isinstance(value, Integral):
        v = int(value)
        if abs(v) >= 10**limits.max_digits:
            raise LimitError(f"expected at most {limits.max_digits} digits (the digit limit)", path=path)
        return _from_ints(v, 1)
    if isinstance(value, FloatLiteral):
        return json_float(value, path=path, exact_floats=exact_floats, limits=limits)
    if isinstance(value, str):
        return number_from_text(str(value), path=path, limits=limits)
    if isinstance(value, Fraction):
        return _from_ints(value.numerator, value.denominator)
    if isinstance(value, getattr(sys.modules.get("sympy"), "Rational", ())):  # none without sympy
        return _from_ints(int(value.p), int(value.q))
    if isinstance(value, float) or type(value).__name__ in ("float16", "float32", "float64", "longdouble"):
        f = float(value)
        if not exact_floats:
            raise InputError(
                'expected an exact rational (an integer or a string such as "1/2"), '
                f"got the float {f!r}; pass exact_floats=True to convert it exactly",
                path=path,
            )
        if not math.isfinite(f):
            raise InputError(f"expected a finite number, got {f!r}", path=path)
        p, q = f.as_integer_ratio()
        return _from_ints(p, q)
    if hasattr(value, "numerator") and hasattr(value, "denominator"):
        try:
            return _from_ints(int(value.numerator), int(value.denominator))
        except (TypeError, ValueError):
            pass
    raise InputError(
        f"expected an exact rational, got a value of type {type(value).__name__}", path=path
    )


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
