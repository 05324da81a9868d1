"""Exact rational scalars: the field, its limits on parsed numbers, printing and conversion.

Every number in symrel is an element of the rational field :data:`Q`, whose element
type is sympy's ground type, chosen here as sympy chooses it (``SYMPY_GROUND_TYPES``,
else python-flint, else gmpy2, else pure Python): ``flint.fmpq`` with python-flint,
``gmpy2.mpq`` with gmpy2, sympy's pure-Python ``PythonMPQ`` otherwise. All three
compare, add and multiply exactly. With python-flint or gmpy2 the type is used directly, so
reading, evaluating and checking do not import sympy (a 0.4 s import); the numbers
are the very elements of sympy's ``QQ`` once sympy is loaded. Pure-Python ground
types take ``PythonMPQ`` from sympy, which is then imported, so that every ground
type computes on the element type of sympy's ``QQ`` and gives the same results.

User data becomes a rational through :func:`symrel.exact.rational` and the one number
grammar (:mod:`symrel.exact.number_text`, docs/format.md, "Numbers"): a Python/JSON integer,
a string ``"3"``, ``"-2/7"``, ``"0.125"``, ``"1e-3"`` (ASCII only), a
:class:`fractions.Fraction`, a sympy ``Rational``, an element of ``QQ``; a float only when the
caller asks for its exact binary value (``exact_floats=True``). This module holds the field,
the limits (:class:`NumberLimits`) and the printing; the trusted checker loads it, not the grammar.

>>> from symrel.exact import rational
>>> q = rational("-2/7")
>>> format_rational(q)
'-2/7'
>>> format_rational(rational("0.125") + rational(1))
'9/8'
>>> format_rational(rational(0.1, exact_floats=True))
'3602879701896397/36028797018963968'
"""

from __future__ import annotations

import os
import sys
from fractions import Fraction
from typing import NamedTuple


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

    >>> from symrel.exact import rational
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
