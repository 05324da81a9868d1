"""Strict typed accessors for certificate data: every field has one type.

Each accessor takes a value read from a certificate and its JSON path, returns the value
in its one accepted type, and otherwise raises
:class:`~symrel.checking.MalformedCertificate` (``symrel check-certificate`` exits 2)
naming the path and what was expected. The rules (docs/format.md, "What the checker
refuses"):

* a boolean is not a number (``True == 1`` in Python, not in a certificate);
* a string is not an index (``"1"`` is refused where an index is expected);
* an index lies in ``range(n)``; a list of indices holds no index twice;
* an exact number is a JSON integer or a string ``"3"``, ``"-2/7"``, ``"0.125"``,
  ``"1e-3"`` (docs/format.md, "Numbers"), within the digit and exponent limits; a JSON
  float is refused; the text is read by the checker's own copy of the ASCII number grammar
  (:func:`rational_pair`), not by the library's reader (docs/trust.md);
* an object holds exactly its listed keys (and its optional ones); an unknown key is
  refused with its own path.

Every accessor costs time linear in the size of the value it reads (a number's digits
are checked against the limit before they are converted).

>>> index(2, 3, "steps[0].certificate.winners[1]")
2
>>> try:
...     index("1", 3, "steps[0].certificate.winners[1]")
... except MalformedCertificate as err:
...     print(err)
steps[0].certificate.winners[1]: expected an index in 0..2 (a JSON integer), got the string '1'
"""

from __future__ import annotations

import re
from math import gcd

from ..exact import Q
from ..exact.numbers import current_limits, unlimited_int_digits
from . import MalformedCertificate

def describe(value) -> str:
    """What ``value`` is, in words, for a message (:func:`symrel.checking.refusals.describe`,
    loaded when a value is refused).

    >>> describe(None)
    'null'
    """
    from .refusals import describe as words

    return words(value)


def refuse(path: str, expected: str, value) -> MalformedCertificate:
    """The error for ``value`` at ``path`` that is not ``expected``."""
    return MalformedCertificate(f"expected {expected}, got {describe(value)}", path=path)


def integer(value, path: str) -> int:
    """A JSON integer (a boolean is not one).

    >>> integer(-3, "claim.count")
    -3
    >>> try:
    ...     integer(True, "symrel")
    ... except MalformedCertificate as err:
    ...     print(err)
    symrel: expected an integer, got the boolean true
    """
    if type(value) is not int:
        raise refuse(path, "an integer", value)
    return value


def natural(value, path: str) -> int:
    """A JSON integer >= 0.

    >>> natural(0, "claim.count")
    0
    """
    if type(value) is not int or value < 0:
        raise refuse(path, "an integer >= 0", value)
    return value


def index(value, n: int, path: str) -> int:
    """A JSON integer in ``range(n)`` (neither a boolean nor a string).

    >>> index(0, 1, "winners[0]")
    0
    >>> try:
    ...     index(3, 3, "winners[0]")
    ... except MalformedCertificate as err:
    ...     print(err)
    winners[0]: expected an index in 0..2 (a JSON integer), got the integer 3
    """
    if type(value) is not int or not 0 <= value < n:
        raise refuse(path, f"an index in 0..{n - 1} (a JSON integer)" if n > 0 else "no index (the range is empty)",
                     value)
    return value


def indices(values, n: int, path: str, distinct: bool = True) -> list:
    """A list of indices in ``range(n)``; with ``distinct`` (the default) none twice.

    >>> indices([2, 0], 3, "winners")
    [2, 0]
    >>> try:
    ...     indices([0, 0, 1], 3, "winners")
    ... except MalformedCertificate as err:
    ...     print(err)
    winners[1]: expected an index not listed before (a set holds each element once), got the integer 0
    """
    out = [index(v, n, f"{path}[{i}]") for i, v in enumerate(array(values, path))]
    if distinct:
        seen = set()
        for i, v in enumerate(out):
            if v in seen:
                raise refuse(f"{path}[{i}]", "an index not listed before (a set holds each element once)", v)
            seen.add(v)
    return out


# -- numbers: the checker's own copy of the grammar of docs/format.md, "Numbers" (the library's is
# symrel.exact.number_text), with the same limits. ASCII only: Python's \d, \s, isdigit and int()
# also take other scripts' digits ("٣" is 3 to int()) and superscripts.
_BLANK = r"[ \t\n\r\f\v]*"
_RATIO = re.compile(_BLANK + r"([+-]?[0-9]+)" + _BLANK + "/" + _BLANK + r"([+-]?[0-9]+)" + _BLANK)
_DECIMAL = re.compile(_BLANK + r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?" + _BLANK)
_SMALL_PAIRS = {i: (i, 1) for i in range(-256, 257)}


def _plain_pair(value):
    """:func:`rational_pair` of an int within the limit or ASCII ``"p"``, ``"p/q"``; else None."""
    tv = type(value)
    if tv is int:
        small = _SMALL_PAIRS.get(value)
        if small is not None:
            return small
        if value.bit_length() * 0.30103 < current_limits().max_digits - 1:
            return value, 1
        return None
    if tv is not str or not value.isascii() or len(value) > min(current_limits().max_digits, 4000):
        return None
    num, slash, den = value.partition("/")
    if not (num.isdigit() or (len(num) > 1 and num[0] in "+-" and num[1:].isdigit())):
        return None
    if not slash:
        return int(num), 1
    if not den.isdigit():
        return None
    p, q = int(num), int(den)
    if q == 0:
        return None
    g = gcd(p, q)
    return (p // g, q // g) if g != 1 else (p, q)


def _digits_within(digits: str, value, path: str) -> None:
    limit = current_limits().max_digits
    if len(digits) - digits.startswith(("+", "-")) > limit:
        raise MalformedCertificate(f"expected at most {limit} digits, got {describe(value)} (the digit limit)",
                                   path=path)


def rational_pair(value, path: str | None = None) -> tuple[int, int]:
    """An exact rational as ints ``(p, q)``, ``q > 0``, in lowest terms: a JSON integer or an
    ASCII string of the number grammar, within the digit and exponent limits (checked on the
    text, before any conversion); anything else is refused. Cost: linear in the text.

    >>> rational_pair("-4/6"), rational_pair(3), rational_pair("0.125"), rational_pair("1e2")
    ((-2, 3), (3, 1), (1, 8), (100, 1))
    >>> try:
    ...     rational_pair("\u00b2", "bound")
    ... except MalformedCertificate as err:
    ...     print(str(err).split(", got ")[1])
    the string '²': U+00B2 SUPERSCRIPT TWO is not ASCII (a number is written with 0-9, + -, ., / and e)
    """
    plain = _plain_pair(value)
    if plain is not None:
        return plain
    tv = type(value)
    if tv is int:  # beyond the fast path's estimate: its digits counted (when cheap) and checked
        with unlimited_int_digits():
            cheap = value.bit_length() <= 3.33 * current_limits().max_digits + 8
            _digits_within(str(abs(value)) if cheap else "0" * (current_limits().max_digits + 1), value, path)
        return value, 1
    if tv is not str:  # a FloatLiteral (a JSON float) is a str subclass: refused here
        raise refuse(path, 'an exact rational (a JSON integer or a string such as "1/2")', value)
    with unlimited_int_digits():
        return _pair_of_text(value, path)


def _pair_of_text(text: str, path) -> tuple[int, int]:
    m = _RATIO.fullmatch(text)
    if m:
        num, den = m.group(1), m.group(2)
        _digits_within(num, text, path)
        _digits_within(den, text, path)
        p, q = int(num), int(den)
        if q == 0:
            raise MalformedCertificate(f"expected a rational, got {describe(text)} with denominator 0", path=path)
        g = gcd(p, q) if q > 0 else -gcd(p, q)   # the sign on the numerator
        return p // g, q // g
    m = _DECIMAL.fullmatch(text)
    if m and (m.group(2) or m.group(3)):
        sign, whole, frac, exp = m.group(1), m.group(2) or "", m.group(3) or "", m.group(4)
        _digits_within(whole + frac, text, path)
        e = 0
        if exp is not None:
            limit = current_limits().max_exponent
            if len(exp.lstrip("+-")) > len(str(limit)) or abs(int(exp)) > limit:
                raise MalformedCertificate(f"expected a decimal exponent of at most {limit} in absolute value, "
                                           f"got {_refusals().shorten_number(exp)} (the exponent limit)", path=path)
            e = int(exp)
        p = int(whole + frac or "0")
        if sign == "-":
            p = -p
        e -= len(frac)
        if e >= 0:
            return p * 10**e, 1
        q = 10 ** (-e)
        g = gcd(p, q)
        return p // g, q // g
    raise MalformedCertificate('expected an exact rational such as "3", "-2/7", "0.125" or "1e-3", '
                               f"got {describe(text)}{_refusals().not_ascii(text)}", path=path)


def rational(value, path: str):
    """:func:`rational_pair` as an element of Q: a JSON integer or a string ``"3"``, ``"-2/7"``,
    ``"0.125"``, ``"1e-3"`` (docs/format.md, "Numbers"); a JSON float or a boolean is refused.

    >>> from symrel.exact import format_rational
    >>> format_rational(rational("-4/6", "bound"))
    '-2/3'
    >>> try:
    ...     rational("1e99999", "bound")
    ... except MalformedCertificate as err:
    ...     print(err)
    bound: expected a decimal exponent of at most 10000 in absolute value, got 99999 (the exponent limit)
    """
    p, q = rational_pair(value, path)
    return Q(p) if q == 1 else Q(p, q)


def rationals(values, path: str, length: int | None = None) -> list:
    """A list of exact rationals (``length`` of them when given). Plain entries (ints, ASCII
    ``"p"``, ``"p/q"``) are read in bulk; the entries' paths are built only when one is not.

    >>> rationals([1, "-2/4"], "point", length=2) == [Q(1), Q(-1, 2)]
    True
    """
    out = []
    put = out.append
    for v in array(values, path, length):
        pq = _plain_pair(v)
        if pq is None:
            return [rational(v, f"{path}[{i}]") for i, v in enumerate(values)]
        put(Q(pq[0]) if pq[1] == 1 else Q(*pq))
    return out


def boolean(value, path: str) -> bool:
    """A JSON boolean (``true`` or ``false``; neither 0 nor 1).

    >>> boolean(False, "claim.strict")
    False
    """
    if type(value) is not bool:
        raise refuse(path, "a boolean (true or false)", value)
    return value


def string(value, path: str, choices=None) -> str:
    """A JSON string (a JSON float is not one), one of ``choices`` when given.

    >>> string("box", "domain.kind", choices=("box", "polytope"))
    'box'
    """
    if type(value) is not str:
        raise refuse(path, "a string", value)
    if choices is not None and value not in choices:
        raise refuse(path, "one of " + ", ".join(map(repr, choices)), value)
    return value


def array(value, path: str, length: int | None = None) -> list:
    """A JSON list (of ``length`` entries when given).

    >>> array([1, 2], "point", length=2)
    [1, 2]
    >>> try:
    ...     array([1], "point", length=2)
    ... except MalformedCertificate as err:
    ...     print(err)
    point: expected a list of 2 entries, got a list of 1 entry
    """
    if type(value) is not list:
        raise refuse(path, "a list" if length is None else f"a list of {length} entries", value)
    if length is not None and len(value) != length:
        raise refuse(path, f"a list of {length} entr{'y' if length == 1 else 'ies'}", value)
    return value


def record(value, path: str, keys=(), optional=()) -> dict:
    """A JSON object holding every key of ``keys``, possibly keys of ``optional``, and no
    other key (an unknown key is refused with its own path).

    >>> record({"a": 1}, "claim", keys=("a",), optional=("b",))
    {'a': 1}
    >>> try:
    ...     record({"a": 1, "c": 2}, "claim", keys=("a",), optional=("b",))
    ... except MalformedCertificate as err:
    ...     print(err)
    claim.c: expected no key 'c' here (the keys of this object: a, b)
    >>> try:
    ...     record({}, "claim", keys=("a",))
    ... except MalformedCertificate as err:
    ...     print(err)
    claim.a: expected a key 'a' (missing)
    """
    if type(value) is not dict:
        raise refuse(path, "an object", value)
    for key in keys:
        if key not in value:
            raise MalformedCertificate(f"expected a key {key!r} (missing)", path=join(path, key))
    allowed = set(keys) | set(optional)
    for key in value:
        if key not in allowed:
            listed = ", ".join(sorted(allowed)) or "none"
            raise MalformedCertificate(f"expected no key {_short_key(key)!r} here (the keys of this object: {listed})",
                                       path=join(path, _short_key(key)))
    return value


def join(path: str, key) -> str:
    """``join("steps[0]", "rule")`` is ``"steps[0].rule"``; an int key gives ``[i]``.

    >>> join("steps", 3), join("", "claim")
    ('steps[3]', 'claim')
    """
    if type(key) is int:
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def _short_key(key: str) -> str:
    return key if len(key) <= 40 else key[:37] + "..."


def _refusals():
    """:mod:`symrel.checking.refusals`, the wording of a refusal, loaded when a value is refused."""
    from . import refusals

    return refusals
