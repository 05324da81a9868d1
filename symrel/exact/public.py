"""The number type a user reads: sympy ``Rational``, whatever extras are installed.

Inside, symrel computes on elements of ``QQ``, whose type follows sympy's ground
types (``flint.fmpq``, ``gmpy2.mpq`` or ``PythonMPQ``). Those are exact, but they
are not :class:`numbers.Rational`, and under python-flint ``QQ(1, 4) ==
Fraction(1, 4)`` is silently False. So every number an object hands to its user
is converted once, where it leaves the library, by :func:`to_public`: a sympy
``Rational`` equals ``Fraction`` and ``int``, adds to them, prints with
``sympy.latex`` and gives decimals with ``.evalf(n)``.

A result object keeps its numbers in the inner type (the library goes on
computing with them) and declares its number attributes with :class:`Public`:
reading ``obj.lam`` gives the public type, :func:`inner` gives the stored one.

>>> from dataclasses import dataclass
>>> from fractions import Fraction
>>> from sympy import QQ
>>> @dataclass
... class Bound:
...     lam: object = Public()
...     points: list = Public(default=None)
>>> b = Bound(QQ(1, 4), [[QQ(1, 2), 3]])
>>> b.lam == Fraction(1, 4), type(b.lam).__name__, b.points
(True, 'Rational', [[1/2, 3]])
>>> QQ.of_type(inner(b, "lam"))
True
"""

from __future__ import annotations

import sympy
from sympy import QQ, ZZ

_MISSING = object()


def to_public(value):
    """``value`` with every element of ``QQ`` replaced by the equal sympy
    ``Rational`` (and every element of ``ZZ`` by the equal ``int``), inside
    lists, tuples and dicts too; an object with a ``to_public()`` method gives
    its result; anything else is returned unchanged.

    Complexity: linear in the number of entries.

    >>> to_public({"x": [QQ(-2, 7), (QQ(3), "text")]})
    {'x': [-2/7, (3, 'text')]}
    """
    tv = type(value)
    if tv is list:
        return [to_public(v) for v in value]
    if tv is tuple:
        return tuple(to_public(v) for v in value)
    if tv is dict:
        return {k: to_public(v) for k, v in value.items()}
    if tv is int or tv is bool or value is None or tv is str:
        return value
    if QQ.of_type(value):
        return sympy.Rational(int(value.numerator), int(value.denominator))
    if ZZ.of_type(value):
        return int(value)
    convert = getattr(value, "to_public", None)  # a small record of numbers (an Enclosure, say)
    return convert() if callable(convert) else value


class Public:
    """An attribute stored as given (symrel's inner numbers) and read through
    :func:`to_public`. Works as a dataclass field (``lam: Rational =
    Public()``, or ``Public(default=None)``) and on plain classes.

    The stored value stays available to the library as ``inner(obj, name)``."""

    def __init__(self, default=_MISSING):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:  # on the class: the dataclass default, if any
            if self.default is _MISSING:
                raise AttributeError(self.name)
            return self.default
        try:
            return to_public(obj.__dict__[self.name])
        except KeyError:
            raise AttributeError(self.name) from None

    def __set__(self, obj, value):
        obj.__dict__[self.name] = value


def inner(obj, name: str):
    """The value of the :class:`Public` attribute ``name`` of ``obj`` as stored
    (elements of ``QQ``), for computations inside symrel."""
    return obj.__dict__[name]
