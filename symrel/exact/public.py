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

A model's or domain's defining data (weights, breakpoints, half-spaces) follow the
idiom of ``Box.bounds`` / ``Box.exact_bounds``: the inner data live under an
``exact_`` name, which every part of symrel reads, and a :class:`PublicView` of the
same name without the prefix gives the user a read-only public copy
(:func:`public_view`: a ``sympy.ImmutableMatrix`` for a matrix).

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

from .numbers import Q

_MISSING = object()
_MPQ, _MPZ = Q.dtype, Q.integers


def to_public(value):
    """``value`` with every element of ``QQ`` replaced by the equal sympy
    ``Rational`` (and every element of ``ZZ`` by the equal ``int``), inside
    lists, tuples and dicts too; an object with a ``to_public()`` method gives
    its result; anything else is returned unchanged.

    Complexity: linear in the number of entries.

    >>> to_public({"x": [Q(-2, 7), (Q(3), "text")]})
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
    if isinstance(value, _MPQ):
        import sympy  # the public number type: sympy is loaded when a number is first handed out

        return sympy.Rational(int(value.numerator), int(value.denominator))
    if isinstance(value, _MPZ):
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


def public_matrix(M):
    """The ``Matrix`` (or list of rows) ``M`` over ``QQ`` as a ``sympy.ImmutableMatrix``
    of sympy Rationals: read-only, indexed ``M[i, j]``, printable with ``sympy.latex``.

    Complexity: linear in the number of entries.

    >>> from symrel.exact import matrix
    >>> public_matrix(matrix([[1, "1/2"]]))
    Matrix([[1, 1/2]])
    """
    import sympy

    data = M.to_list() if hasattr(M, "to_list") else [list(r) for r in M]
    m = M.shape[0] if hasattr(M, "shape") else len(data)
    n = M.shape[1] if hasattr(M, "shape") else (len(data[0]) if data else 0)
    return sympy.ImmutableMatrix(m, n, [sympy.Rational(int(v.numerator), int(v.denominator))
                                        for r in data for v in r])


class _KeptList(tuple):
    """A list as a view keeps it (unchangeable); handed out again as a fresh list."""


class _KeptDict(tuple):
    """A dict as a view keeps it (its items); handed out again as a fresh dict."""


def _frozen(value):
    tv = type(value)
    if tv is list:
        return _KeptList(_frozen(v) for v in value)
    if tv is tuple:
        return tuple(_frozen(v) for v in value)
    if tv is dict:
        return _KeptDict((k, _frozen(v)) for k, v in value.items())
    return value


def _thawed(value):
    tv = type(value)
    if tv is _KeptList:
        return [_thawed(v) for v in value]
    if tv is tuple:
        return tuple(_thawed(v) for v in value)
    if tv is _KeptDict:
        return {k: _thawed(v) for k, v in value}
    return value


def public_view(value, *, as_matrix: bool = False):
    """The public form of a model's defining data: a ``Matrix`` (or, with
    ``as_matrix``, a list of rows) becomes a ``sympy.ImmutableMatrix`` of Rationals
    (:func:`public_matrix`); anything else goes through :func:`to_public`.

    >>> public_view([Q(1, 2), Q(3)]), public_view([[Q(1, 2)]], as_matrix=True)
    ([1/2, 3], Matrix([[1/2]]))
    """
    if value is None:
        return None
    if as_matrix or hasattr(value, "to_Matrix"):
        return public_matrix(value)
    return to_public(value)


class PublicView:
    """A read-only attribute ``name``: the public form (:func:`public_view`) of the inner
    attribute ``exact_<name>``, which the library reads and sets.

    The view is made on first reading and kept while ``exact_<name>`` is the same object
    (the inner data of a model are never changed in place); a matrix is handed out as the
    kept ``ImmutableMatrix``, a list or dict as a fresh one, so no reader can change another's.

    >>> from symrel.exact import matrix
    >>> class Map:
    ...     W = PublicView()
    ...     def __init__(self, W):
    ...         self.exact_W = matrix(W)
    >>> f = Map([[1, "1/2"]])
    >>> f.W, f.W is f.W, Q.of_type(f.exact_W.to_list()[0][1])
    (Matrix([[1, 1/2]]), True, True)
    >>> f.W = [[2]]
    Traceback (most recent call last):
    ...
    AttributeError: W is read-only: the public view of exact_W
    """

    def __init__(self, *, as_matrix: bool = False, doc: str | None = None):
        self.as_matrix = as_matrix
        self.__doc__ = doc

    def __set_name__(self, owner, name):
        self.name, self.exact, self.slot = name, "exact_" + name, "_public_" + name
        if self.__doc__ is None:
            self.__doc__ = f"``exact_{name}`` as sympy numbers (read-only; see :mod:`symrel.exact.public`)."

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        value = getattr(obj, self.exact)
        kept = obj.__dict__.get(self.slot)
        if kept is None or kept[0] is not value:
            kept = (value, _frozen(public_view(value, as_matrix=self.as_matrix)))
            obj.__dict__[self.slot] = kept
        return _thawed(kept[1])

    def __set__(self, obj, value):
        raise AttributeError(f"{self.name} is read-only: the public view of {self.exact}")


def inner(obj, name: str):
    """The value of the :class:`Public` attribute ``name`` of ``obj`` as stored
    (elements of ``QQ``), for computations inside symrel."""
    return obj.__dict__[name]
