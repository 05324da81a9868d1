"""Exact rational scalars: parsing, printing and conversion.

Every number in symrel is an element of the rational field :data:`Q`, whose element
type is sympy's ground type, chosen here as sympy chooses it (``SYMPY_GROUND_TYPES``,
else python-flint, else gmpy2, else pure Python): ``flint.fmpq`` with python-flint,
``gmpy2.mpq`` with gmpy2, sympy's pure-Python ``PythonMPQ`` otherwise. All three
compare, add and multiply exactly; this module is the only place that turns user
data into them and back (number text through :mod:`symrel.exact.number_text`, the one
grammar). With python-flint or gmpy2 the type is used directly, so
reading, evaluating and checking do not import sympy (a 0.4 s import); the numbers
are the very elements of sympy's ``QQ`` once sympy is loaded. Pure-Python ground
types take ``PythonMPQ`` from sympy, which is then imported, so that every ground
type computes on the element type of sympy's ``QQ`` and gives the same results.

Accepted forms (docs/format.md, "Numbers"): a Python/JSON integer, a
string ``"3"``, ``"-2/7"``, ``"0.125"``, ``"1e-3"`` (ASCII only), a :class:`fractions.Fraction`,
a sympy ``Rational``, an element of ``QQ``. A float is refused unless the caller
asks for the exact binary value (``exact_floats=True``).

>>> q = rational("-2/7")
>>> format_rational(q)
'-2/7'
>>> format_rational(rational("0.125") + rational(1))
'9/8'
>>> format_rational(rational(0.1, exact_floats=True))
'3602879701896397/36028797018963968'
"""

from __future__ import annotations

import math
import os
import sys
from fractions import Fraction
from numbers import Integral
from typing import NamedTuple

from ..errors import InputError, LimitError

#: python-flint versions sympy uses without being asked (sympy.external.gmpy, sympy 1.14)
_FLINT_TESTED = ("0.6", "0.7", "0.8", "0.9", "0.10")


def _choose_ground_types() -> str:
    """``flint``, ``gmpy`` or ``python``: sympy's choice, made as sympy makes it, and passed
    on to sympy through ``SYMPY_GROUND_TYPES`` so that both agree once sympy is loaded
    (when sympy is loaded already, its choice is taken)."""
    if sys.modules.get("sympy") is not None:
        from sympy.external.gmpy import GROUND_TYPES

        return GROUND_TYPES
    want = os.environ.get("SYMPY_GROUND_TYPES", "auto").lower()
    chosen = "python"
    if want in ("auto", "flint"):
        try:
            import flint
            tested = ".".join(flint.__version__.split(".")[:2]) in _FLINT_TESTED
        except (ImportError, AttributeError):
            tested = None
        if tested or (tested is not None and want == "flint"):
            chosen = "flint"
    if chosen == "python" and want in ("auto", "flint", "gmpy", "gmpy2"):
        try:
            import gmpy2
            chosen = "gmpy" if int(gmpy2.version().split(".")[0]) >= 2 else "python"
        except ImportError:
            pass
    os.environ["SYMPY_GROUND_TYPES"] = chosen
    return chosen


#: which ground type symrel's (and sympy's) rationals are: ``flint``, ``gmpy`` or ``python``
GROUND_TYPES = _choose_ground_types()

if GROUND_TYPES == "flint":
    from flint import fmpq as _MPQ, fmpz as _MPZ
elif GROUND_TYPES == "gmpy":
    from gmpy2 import mpq as _MPQ, mpz as _MPZ
else:  # sympy's own pure-Python rationals: the element type of its QQ
    from sympy.external.pythonmpq import PythonMPQ as _MPQ

    _MPZ = int


class RationalField:
    """The field Q of the ground type: ``Q(p)`` and ``Q(p, q)`` make elements from ints (or
    elements), ``Q.of_type(v)`` tells an element, ``Q.dtype`` is the element type. It
    answers as sympy's ``QQ`` does for these, without loading sympy.

    >>> Q(6, 4) == Q(3, 2), Q.of_type(Q(1)), Q.of_type(1)
    (True, True, False)
    """

    def __init__(self, dtype, integers):
        self.dtype, self.integers = dtype, integers

    def __call__(self, *args):
        return self.dtype(*args)

    def of_type(self, value) -> bool:
        """Whether ``value`` is an element of Q (of the ground type)."""
        return isinstance(value, self.dtype)

    def __repr__(self):
        return "QQ"


#: The rational field every symrel number lives in.
Q = RationalField(_MPQ, _MPZ)
#: The type of elements of :data:`Q` under the current ground types.
Rational = _MPQ

class FloatLiteral(str):
    """The text of a JSON float (``0.5``) as read from a file, kept apart from
    decimal strings (``"0.5"``), which are exact. :func:`rational` refuses it
    unless ``exact_floats`` is set, then reads its binary value exactly."""

    def __repr__(self):  # never mistaken for the decimal string of the same text
        return f"FloatLiteral({str.__repr__(self)})"


class NumberLimits(NamedTuple):
    """Size limits on parsed numbers: digits of a numerator or denominator, and
    the absolute value of a decimal exponent. A number beyond them is refused
    with :class:`~symrel.errors.LimitError`, never expanded."""

    max_digits: int = 10_000
    max_exponent: int = 10_000


DEFAULT_LIMITS = NumberLimits()
_limits = [DEFAULT_LIMITS]


def current_limits() -> NumberLimits:
    """The number size limits in force (see :class:`number_limits`)."""
    return _limits[-1]


class number_limits:
    """Context manager setting the size limits for numbers parsed inside it.

    >>> with number_limits(max_digits=3):
    ...     rational("12345")
    Traceback (most recent call last):
    ...
    symrel.errors.LimitError: value: expected at most 3 digits, got a number with 5 (the digit limit)
    """

    def __init__(self, max_digits: int | None = None, max_exponent: int | None = None):
        cur = _limits[-1]
        self.limits = NumberLimits(
            cur.max_digits if max_digits is None else max_digits,
            cur.max_exponent if max_exponent is None else max_exponent,
        )

    def __enter__(self):
        _limits.append(self.limits)
        return self.limits

    def __exit__(self, *exc):
        _limits.pop()
        return False


class unlimited_int_digits:
    """Context lifting Python's limit on int <-> decimal text conversion (4,300 digits),
    which would otherwise break numbers that symrel's own limits allow (10,000 digits
    by default). symrel checks sizes itself before converting."""

    def __enter__(self):
        self.old = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else None
        if self.old:
            sys.set_int_max_str_digits(0)
        return self

    def __exit__(self, *exc):
        if self.old:
            sys.set_int_max_str_digits(self.old)
        return False


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
        limits = _limits[-1]
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
        from .number_text import number_from_text   # the grammar (a check does not load it)

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
        from .number_text import json_float

        return json_float(value, path=path, exact_floats=exact_floats, limits=limits)
    if isinstance(value, str):
        from .number_text import number_from_text

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


def numerator(q: Rational) -> int:
    """The numerator of ``q`` in lowest terms, as a Python int."""
    return int(q.numerator)


def denominator(q: Rational) -> int:
    """The (positive) denominator of ``q`` in lowest terms, as a Python int."""
    return int(q.denominator)


def format_rational(q: Rational) -> int | str:
    """The canonical JSON form of ``q``: an int when integral, else ``"p/q"``."""
    p, d = numerator(q), denominator(q)
    if d == 1:
        return p
    with unlimited_int_digits():
        return f"{p}/{d}"


def rational_str(q: Rational) -> str:
    """``q`` as text: ``"3"`` or ``"-2/7"``."""
    with unlimited_int_digits():
        return str(format_rational(q))


def to_fraction(q: Rational) -> Fraction:
    """``q`` as a :class:`fractions.Fraction`."""
    return Fraction(numerator(q), denominator(q))


def to_sympy(q: Rational):
    """``q`` as a sympy ``Rational`` (for symbolic display; imports sympy)."""
    import sympy

    return sympy.Rational(numerator(q), denominator(q))


def is_integral(q: Rational) -> bool:
    """Whether ``q`` is an integer."""
    return denominator(q) == 1


def sign(q: Rational) -> int:
    """-1, 0 or 1."""
    return (q > 0) - (q < 0)


def floor(q: Rational) -> int:
    """The largest integer <= q."""
    return numerator(q) // denominator(q)


def ceil(q: Rational) -> int:
    """The smallest integer >= q."""
    return -((-numerator(q)) // denominator(q))


def to_float(q: Rational) -> float:
    """``q`` rounded to the nearest float. For the numeric layer and plots only;
    never call this on a proof path."""
    return numerator(q) / denominator(q)


ZERO = Q(0)
ONE = Q(1)
