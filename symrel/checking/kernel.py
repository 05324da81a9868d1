"""The checker's own arithmetic on affine forms: integers only, keyed by variable index.

A rational is a pair of Python ints ``(p, q)``, ``q > 0``. An affine form in the variables
``y_0, y_1, ..`` is a triple ``(d, c, coeffs)`` of ints with one common denominator:

    (c + sum_v coeffs[v] * y_v) / d,   d > 0,   no zero coefficient,   gcd(d, c, coeffs) = 1,

so equal forms are equal triples (``==`` compares them, the dict order aside), and
:func:`key` (a tuple of ints) is cheap to build and to hash. A linear combination brings its terms to the least common denominator, adds
integers and divides by the gcd once (:func:`combine`). Numbers are read from a certificate
once, straight into integers (:func:`symrel.exact.rational_ints`).

This is written apart from the provers' forms (:mod:`symrel.exact.forms`), which the
checker does not use.

>>> x, y = var(0), var(1)
>>> f = combine([((1, 2), x), ((-1, 3), y)], (1, 1))          # x/2 - y/3 + 1
>>> f
(6, 6, {0: 3, 1: -2})
>>> key(combine([((2, 1), f)])) == key(combine([((1, 1), x), ((-2, 3), y)], (2, 1)))
True
>>> key(read_form(["2", [[1, "-2/3"], [0, 1]]])) == key(combine([((2, 1), f)]))
True
>>> [str(b) for b in bounds(f, [(-1, 1), (0, 2)])]    # over x in [-1, 1], y in [0, 2]
['-1/6', '3/2']
"""

from __future__ import annotations

from math import gcd, lcm

from ..exact import Q, rational, rational_ints

ONE = (1, 1)
ZERO_FORM = (1, 0, {})


def var(v: int):
    """The form ``y_v``."""
    return 1, 0, {v: 1}


def constant(a):
    """The constant form ``a`` (a pair ``(p, q)``)."""
    return a[1], a[0], {}


def pair(q) -> tuple[int, int]:
    """An element of Q (a model's entry) as ``(p, q)``."""
    return int(q.numerator), int(q.denominator)


def to_q(a):
    """A pair ``(p, q)`` as an element of Q."""
    return rational(a[0]) / rational(a[1])


def combine(pairs, const=(0, 1)):
    """``const + sum a * f`` over ``(a, f)`` in ``pairs`` (``a`` a pair, ``f`` a form).

    Cost: one pass over the coefficients of the forms, in integers."""
    pairs = [(a, f) for a, f in pairs if a[0]]
    cp, cq = const
    if not pairs:
        g = gcd(cp, cq)
        return cq // g, cp // g, {}
    if len(pairs) == 1 and not cp and pairs[0][0] == ONE:
        return pairs[0][1]
    den = lcm(cq, *[a[1] * f[0] for a, f in pairs])
    c = cp * (den // cq)
    acc: dict[int, int] = {}
    get = acc.get
    for (p, q), (d, fc, co) in pairs:
        m = p * (den // (q * d))
        c += m * fc
        for v, x in co.items():
            acc[v] = get(v, 0) + m * x
    g = gcd(den, c, *acc.values())
    if g == 1:
        return den, c, {v: x for v, x in acc.items() if x}
    return den // g, c // g, {v: x // g for v, x in acc.items() if x}


def neg(f):
    """``-f``."""
    return f[0], -f[1], {v: -x for v, x in f[2].items()}


def minus(f, g):
    """``f - g``."""
    return combine([(ONE, f), ((-1, 1), g)])


def key(f) -> tuple:
    """A hashable key of a form: equal forms, equal keys."""
    return f[0], f[1], tuple(sorted(f[2].items()))



def single_var(f):
    """``v`` when ``f`` is the form ``y_v`` itself, else None."""
    if f[0] == 1 and f[1] == 0 and len(f[2]) == 1:
        (v, a), = f[2].items()
        if a == 1:
            return v
    return None


def read_form(obj):
    """The form recorded as ``[constant, [[v, a], ..]]`` (entries with ``a = 0`` allowed, a
    variable listed twice refused)."""
    const, items = obj
    nums = [rational_ints(const)]
    vs = []
    for v, a in items:
        vs.append(int(v))
        nums.append(rational_ints(a))
    if len(set(vs)) != len(vs):
        raise ValueError("a variable listed twice in a form")
    den = lcm(*[q for _, q in nums])
    ints = [p * (den // q) for p, q in nums]
    g = gcd(den, *ints)
    if g != 1:
        den, ints = den // g, [x // g for x in ints]
    return den, ints[0], {v: x for v, x in zip(vs, ints[1:]) if x}


def bounds(f, ranges):
    """``(min, max)`` of ``f`` over the box ``ranges`` (``ranges[v] = (lo, hi)`` in Q), in Q.
    Raises IndexError naming the first variable outside ``ranges``."""
    d, c, co = f
    lo = hi = rational(c)
    n = len(ranges)
    for v, a in co.items():
        if not 0 <= v < n:
            raise IndexError(min(u for u in co if not 0 <= u < n))
        l, u = ranges[v]
        if a > 0:
            lo += a * l
            hi += a * u
        else:
            lo += a * u
            hi += a * l
    if d != 1:
        lo, hi = lo / d, hi / d
    return lo, hi


def lower_bound(f, ranges):
    """``min`` of ``f`` over the box ``ranges`` (the first half of :func:`bounds`)."""
    d, c, co = f
    lo = rational(c)
    n = len(ranges)
    for v, a in co.items():
        if not 0 <= v < n:
            raise IndexError(min(u for u in co if not 0 <= u < n))
        lo += a * ranges[v][0 if a > 0 else 1]
    return lo / d if d != 1 else lo


def upper_bound(f, ranges):
    """``max`` of ``f`` over the box ``ranges`` (the second half of :func:`bounds`)."""
    return -lower_bound(neg(f), ranges)


def as_rational_form(f):
    """``f`` as ``(const, {v: coeff})`` over Q (for the checks that work in Q)."""
    d, c, co = f
    inv = Q(1) / rational(d)
    return rational(c) * inv, {v: rational(x) * inv for v, x in co.items()}
