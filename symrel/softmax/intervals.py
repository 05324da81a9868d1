"""Interval backends for the softmax lemmas: exact rational intervals (the referee),
mpmath.iv, and python-flint's ``arb`` balls.

Each backend turns an exact rational into an interval value, offers ``exp`` and
``log`` on such values (the operators ``+ - * /`` are the values' own), and turns
a result back into an exact rational pair ``(lo, hi)`` with ``lo <= true value <= hi``.
A formula is written once against this small interface and evaluated by every
backend; :func:`enclose` compares the results.

* ``taylor``: :class:`RationalInterval` with :mod:`symrel.softmax.taylor` for exp/log.
  Pure rational arithmetic, so it is the referee on every proof path.
* ``mpmath``: ``mpmath.iv`` (always installed). Enclosure bugs have been reported in it,
  hence the cross-check.
* ``flint``: ``flint.arb`` ball arithmetic, used when python-flint is installed
  (much faster on long softmax sums, see ``benchmarks/bench_softmax.py``).

>>> from symrel.exact import rational as r
>>> f = lambda B, x: B.exp(x) * x
>>> enc = enclose(f, r("1/3"))
>>> r("0.46520414169536") < enc.lo < enc.hi < r("0.46520414169537")
True
>>> sorted(enc.by_backend) == sorted(available_backends())
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import SymrelError
from ..exact import Q, Rational, rational, to_public
from . import taylor


class EnclosureMismatch(SymrelError):
    """Two backends returned disjoint enclosures of the same real number: at least one of
    them is wrong (the rational referee is trusted; the other backend is not)."""


class _Backend:
    """What every backend shares: ``run(fn, *args)`` sets the backend's precision, lifts the
    exact rational arguments *inside* it (lifting them before would round them at the
    default 53 bits), evaluates and returns the rational ends of the result."""

    bits: int

    def _swap_precision(self, bits: int) -> int | None:
        """Set the working precision, returning the old one (None: nothing to restore)."""
        return None

    def run(self, fn, *args):
        old = self._swap_precision(self.bits)
        try:
            return self.bounds(fn(self, *[self.const(a) if Q.of_type(a) else a for a in args]))
        finally:
            if old is not None:
                self._swap_precision(old)


# -- the rational referee --------------------------------------------------------------
class RationalInterval:
    """A closed interval ``[lo, hi]`` with exact rational ends; exact interval arithmetic.

    >>> from symrel.exact import rational as r
    >>> x = RationalInterval(r(1), r(2))
    >>> y = (x - x) * x
    >>> (str(y.lo), str(y.hi))
    ('-2', '2')
    """

    __slots__ = ("lo", "hi")

    def __init__(self, lo: Rational, hi: Rational | None = None):
        self.lo = lo
        self.hi = lo if hi is None else hi
        if self.lo > self.hi:
            raise ValueError(f"empty interval [{self.lo}, {self.hi}]")

    @staticmethod
    def _lift(other) -> "RationalInterval":
        if isinstance(other, RationalInterval):
            return other
        return RationalInterval(rational(other) if not Q.of_type(other) else other)

    def __add__(self, other):
        o = self._lift(other)
        return RationalInterval(self.lo + o.lo, self.hi + o.hi)

    __radd__ = __add__

    def __neg__(self):
        return RationalInterval(-self.hi, -self.lo)

    def __sub__(self, other):
        return self + (-self._lift(other))

    def __rsub__(self, other):
        return self._lift(other) - self

    def __mul__(self, other):
        o = self._lift(other)
        p = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        return RationalInterval(min(p), max(p))

    __rmul__ = __mul__

    def __truediv__(self, other):
        o = self._lift(other)
        if o.lo <= 0 <= o.hi:
            raise ZeroDivisionError("interval division by an interval containing 0")
        return self * RationalInterval(1 / o.hi, 1 / o.lo)

    def __rtruediv__(self, other):
        return self._lift(other) / self

    def __repr__(self):
        return f"[{self.lo}, {self.hi}]"


class TaylorBackend(_Backend):
    """Exact rational intervals; exp and log from :mod:`symrel.softmax.taylor`."""

    name = "taylor"

    def __init__(self, bits: int = taylor.BITS):
        self.bits = bits

    def const(self, q: Rational) -> RationalInterval:
        return RationalInterval(q)

    def exp(self, x: RationalInterval) -> RationalInterval:
        return RationalInterval(taylor.exp_bounds(x.lo, self.bits)[0], taylor.exp_bounds(x.hi, self.bits)[1])

    def log(self, x: RationalInterval) -> RationalInterval:
        if x.lo <= 0:
            raise ValueError("log of an interval reaching 0")
        return RationalInterval(taylor.log_bounds(x.lo, self.bits)[0], taylor.log_bounds(x.hi, self.bits)[1])

    def bounds(self, x: RationalInterval) -> tuple[Rational, Rational]:
        return x.lo, x.hi


# -- mpmath.iv -----------------------------------------------------------------------------
def _mpf_tuple_to_rational(t) -> Rational | None:
    """An mpf value tuple ``(sign, man, exp, bc)`` as an exact rational; None if not finite."""
    sign, man, exp, _ = t
    if not man:
        # zero has exp 0; inf / nan are encoded with man 0 and a special exp
        return Q(0) if exp == 0 else None
    v = Q(int(man) << exp, 1) if exp >= 0 else Q(int(man), 1 << (-exp))
    return -v if sign else v


class MpmathBackend(_Backend):
    """``mpmath.iv`` intervals at ``bits`` bits of precision."""

    name = "mpmath"

    def __init__(self, bits: int = taylor.BITS):
        self.bits = bits
        from mpmath import iv

        self.iv = iv

    def const(self, q: Rational):
        return self.iv.mpf(int(q.numerator)) / int(q.denominator)

    def exp(self, x):
        return self.iv.exp(x)

    def log(self, x):
        return self.iv.log(x)

    def bounds(self, x) -> tuple[Rational | None, Rational | None]:
        a, b = x._mpi_
        return _mpf_tuple_to_rational(a), _mpf_tuple_to_rational(b)

    def _swap_precision(self, bits):
        old, self.iv.prec = self.iv.prec, bits
        return old


# -- python-flint arb -------------------------------------------------------------------
class FlintBackend(_Backend):
    """``flint.arb`` balls at ``bits`` bits of precision (python-flint, optional)."""

    name = "flint"

    def __init__(self, bits: int = taylor.BITS):
        import flint

        self.flint = flint
        self.bits = bits

    def const(self, q: Rational):
        return self.flint.arb(self.flint.fmpq(int(q.numerator), int(q.denominator)))

    def exp(self, x):
        return x.exp()

    def log(self, x):
        return x.log()

    @staticmethod
    def _exact(ball) -> Rational | None:
        if not ball.is_finite():
            return None
        man, exp = ball.man_exp()
        man, exp = int(man), int(exp)
        return Q(man << exp, 1) if exp >= 0 else Q(man, 1 << (-exp))

    def bounds(self, x):
        return self._exact(x.lower()), self._exact(x.upper())

    def _swap_precision(self, bits):
        old, self.flint.ctx.prec = self.flint.ctx.prec, bits
        return old


_BACKENDS = {"taylor": TaylorBackend, "mpmath": MpmathBackend, "flint": FlintBackend}


def available_backends() -> list[str]:
    """Names of the backends usable here: ``taylor``, ``mpmath``, and ``flint`` when installed."""
    names = ["taylor", "mpmath"]
    try:
        import flint  # noqa: F401

        names.append("flint")
    except ImportError:
        pass
    return names


def backend(name: str, bits: int = taylor.BITS):
    """The backend called ``name`` (``taylor``, ``mpmath`` or ``flint``)."""
    if name not in _BACKENDS:
        raise ValueError(f"unknown interval backend {name!r} (known: {sorted(_BACKENDS)})")
    return _BACKENDS[name](bits)


@dataclass
class Enclosure:
    """A certified enclosure ``lo <= value <= hi`` (exact rationals, from the rational
    referee) and what every backend returned for the same formula."""

    lo: Rational
    hi: Rational
    by_backend: dict[str, tuple] = field(default_factory=dict)

    def contains(self, q: Rational) -> bool:
        return self.lo <= q <= self.hi

    def to_public(self) -> "Enclosure":
        """The same enclosure with its ends as sympy Rationals (what a result hands its user)."""
        return Enclosure(to_public(self.lo), to_public(self.hi), to_public(self.by_backend))


def _disjoint(a: tuple, b: tuple) -> bool:
    (alo, ahi), (blo, bhi) = a, b
    return (ahi is not None and blo is not None and ahi < blo) or (bhi is not None and alo is not None and bhi < alo)


def enclose(formula: Callable, *args, backends: list[str] | None = None, bits: int = taylor.BITS) -> Enclosure:
    """Evaluate ``formula(B, *args)`` with every backend B (rational ``args`` are lifted
    with ``B.const`` at the backend's precision) and return the referee's enclosure after checking that every other
    backend's enclosure meets it. Raises :class:`EnclosureMismatch` otherwise.

    Cost: one evaluation per backend.
    """
    names = available_backends() if backends is None else list(backends)
    if "taylor" not in names:
        names.insert(0, "taylor")
    results = {}
    for name in names:
        results[name] = backend(name, bits).run(formula, *args)
    ref = results["taylor"]
    for name, res in results.items():
        if _disjoint(ref, res):
            raise EnclosureMismatch(
                f"backend {name} encloses the value in [{res[0]}, {res[1]}], disjoint from the rational "
                f"referee's [{ref[0]}, {ref[1]}]"
            )
    return Enclosure(ref[0], ref[1], results)
