"""The wording of a refusal: what a refused value is, in words, and where the failure is.

Loaded only when a check refuses a certificate (an accepted certificate runs none of this):
:func:`describe` says what a value is (a long number or string shortened), :func:`locate`
and :func:`in_step` name the JSON path of a failure and the rule of its step,
:func:`shape_words` says in words what a Python error met while reading a step's data says
about the data, and :func:`form_fault` finds the wrong field inside a malformed form.

>>> describe(True), describe("1"), shorten_number("7" + "0" * 4998 + "1")
('the boolean true', "the string '1'", '7000000000…0000000001 (5000 digits)')
"""

from __future__ import annotations

import re
import unicodedata

from ..exact import FloatLiteral
from ..exact.numbers import unlimited_int_digits
from . import _AT, FRAME_KEYS, CertificateError, MalformedCertificate


#: messages show a number of more digits than this shortened (see :func:`shorten_number`)
SHOWN_DIGITS = 24


def shorten_number(text: str) -> str:
    """``text`` (the digits of a number) as shown in a message: whole up to
    :data:`SHOWN_DIGITS` digits, else its first and last digits and its digit count.

    >>> shorten_number("12345")
    '12345'
    >>> shorten_number("7" + "0" * 4998 + "1")
    '7000000000…0000000001 (5000 digits)'
    """
    digits = sum(map(text.count, "0123456789"))
    if digits <= SHOWN_DIGITS:
        return text
    return f"{text[:10]}…{text[-10:]} ({digits} digits)"


def describe(value) -> str:
    """What ``value`` is, in words, for a message (a long number or string shortened).

    >>> describe(True), describe("1"), describe(None), describe([1, 2])
    ('the boolean true', "the string '1'", 'null', 'a list of 2 entries')
    >>> describe(10 ** 60)
    'the integer 1000000000…0000000000 (61 digits)'
    """
    if isinstance(value, FloatLiteral):
        return f"the JSON float {shorten_number(str(value))}"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, int):
        if value.bit_length() >= 40_000:  # text conversion is quadratic: say its size only
            return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"
        if value.bit_length() > 3 * SHOWN_DIGITS:
            with unlimited_int_digits():
                return f"the integer {shorten_number(str(value))}"
        return f"the integer {value}"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else f"a string of {len(value)} characters"
    if isinstance(value, list):
        return f"a list of {len(value)} entr{'y' if len(value) == 1 else 'ies'}"
    if isinstance(value, dict):
        return "an object"
    return "a value of another type"

_LONG_NUMBER = re.compile(r"[0-9]{%d,}" % (SHOWN_DIGITS + 1))


def shorten_numbers(text: str) -> str:
    """``text`` with every run of more than :data:`SHOWN_DIGITS` digits shortened
    (:func:`shorten_number`), so that a message stays one readable line.

    >>> shorten_numbers("got " + "9" * 5000 + "/7")
    'got 9999999999…9999999999 (5000 digits)/7'
    """
    return _LONG_NUMBER.sub(lambda m: shorten_number(m.group()), text)

def not_ascii(text: str) -> str:
    ch = next((c for c in text if not c.isascii()), None)
    return "" if ch is None else (f": U+{ord(ch):04X} {unicodedata.name(ch, '')} is not ASCII "
                                  "(a number is written with 0-9, + -, ., / and e)")

_FIELD = re.compile(r"^([A-Za-z_][\w-]*(?:\.[\w-]+|\[[\w-]+\])*): (.*)$", re.S)


def locate(err: CertificateError) -> tuple:
    """The JSON path of a failure raised without one: a message that starts with a field
    (``claim.count: ...``, ``branches[3]: ...``) names it, read inside the step being
    checked unless it is the claim or an input."""
    if err.path is not None:
        return err.path, err.message
    found = _FIELD.match(err.message)
    head, rest = (found.group(1), found.group(2)) if found else (None, err.message)
    if head and head.split(".")[0].split("[")[0] in ("claim", "inputs"):
        return head, rest
    step = getattr(_AT, "step", None)
    if step is None:
        return None, err.message
    here = f"steps[{step}].certificate"
    if head and not head.startswith("steps") and "-" not in head.split(".")[0].split("[")[0]:
        return f"{here}.{head}", rest
    return here, rest if head else err.message

def no_option_hints(message: str) -> str:
    """A reader's message without its hint of a command-line option: a certificate is read
    as it is, with no option (``--exact-floats`` does not apply to it).

    >>> no_option_hints("got the JSON float 0.5; write it as a string or pass --exact-floats")
    'got the JSON float 0.5; write it as a string'
    """
    return str(message).replace(" or pass --exact-floats", "")


def rooted(path: str) -> bool:
    """A path that starts at the top of the certificate (``steps[2]...``, ``claim.eps``)."""
    return path.split(".")[0].split("[")[0] in FRAME_KEYS


def in_step(err: CertificateError, steps, cls) -> CertificateError:
    """``err`` as raised for the user: its JSON path located (:func:`locate`) and, inside a
    step, that step's rule named."""
    path, message = locate(err)
    at = path[: path.index("]") + 1] if path and path.startswith("steps[") else None
    if at is None or err.rule is not None:
        if (path, message) == (err.path, err.message) and type(err) is cls:
            return err
        return cls(message, path, err.rule)
    i = int(at[6:-1])
    return cls(message, path, steps[i]["rule"] if i < len(steps) else None)


def shape_words(err: Exception) -> str:
    """What a Python error met while reading a step's data says about the data, in words
    (never the class name of the error)."""
    if isinstance(err, KeyError):
        return f"expected a key {str(err.args[0])[:40]!r} here (missing), or a value of another shape"
    if isinstance(err, IndexError):
        return "expected an index in range (one points past the end of a list)"
    if isinstance(err, ZeroDivisionError):
        return "expected a non-zero number (a division by zero)"
    if isinstance(err, (TypeError, ValueError)) and str(err).startswith("expected a "):
        return str(err)  # the checker's own words (symrel.checking.kernel.read_form, ...)
    return "expected a value of another type or shape (a list, an object or a number is not where the rule needs it)"

def form_fault(obj, number) -> str:
    """The path, inside a malformed recorded form, of its first wrong field (``number``: the
    checker's reader of a number, :func:`symrel.checking.read.rational_pair`)."""
    if not isinstance(obj, list) or len(obj) != 2:
        return ""
    try:
        number(obj[0])
    except MalformedCertificate:
        return "[0]"
    if not isinstance(obj[1], list):
        return "[1]"
    seen = set()
    for k, item in enumerate(obj[1]):
        if not isinstance(item, list) or len(item) != 2:
            return f"[1][{k}]"
        if type(item[0]) is not int or item[0] < 0 or item[0] in seen:
            return f"[1][{k}][0]"
        seen.add(item[0])
        try:
            number(item[1])
        except MalformedCertificate:
            return f"[1][{k}][1]"
    return ""
