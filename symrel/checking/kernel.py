"""The checker's own arithmetic on affine forms: integers only, keyed by variable index.

A rational is a pair of Python ints ``(p, q)``, ``q > 0`` (:data:`PAIR_ONE` is ``(1, 1)``). An
affine form in the variables ``y_0, y_1, ..`` is a :class:`Form` ``(den, const, coeffs)`` of
ints with one common denominator:

    (const + sum_v coeffs[v] * y_v) / den,   den > 0,   no zero coefficient,   gcd(den, const, coeffs) = 1,

so equal forms are equal triples (``==`` compares them, the dict order aside), and
:func:`key` (a tuple of ints) is cheap to build and to hash. A linear combination brings its
terms to the least common denominator, adds integers and divides by the gcd once
(:func:`combine`). Numbers are read from a certificate once, straight into integers
(:func:`symrel.checking.read.rational_pair`, the checker's own reader); a variable index
that is a boolean, a string or a float is refused (the other indices of a certificate are
read by :mod:`symrel.checking.read`).

Sizes are bounded. Every step's forms are compared with recorded ones, whose numbers are
within the digit limit (``--max-digits``), so growth through the layers stops at the first
step; within a step, a combination whose common denominator would outgrow
:data:`FORM_DIGITS_FACTOR` times that limit stops the check with exit 2 naming the limit
``form-digits`` (:func:`combine`, and a recorded form's own common denominator,
:func:`read_form`), before the arithmetic becomes slow.

This is written apart from the provers' forms (:mod:`symrel.exact.forms`), which the
checker does not use.

>>> x, y = var(0), var(1)
>>> f = combine([((1, 2), x), ((-1, 3), y)], (1, 1))          # x/2 - y/3 + 1
>>> f
Form(den=6, const=6, coeffs={0: 3, 1: -2})
>>> key(combine([((2, 1), f)])) == key(combine([(PAIR_ONE, x), ((-2, 3), y)], (2, 1)))
True
>>> key(read_form(["2", [[1, "-2/3"], [0, 1]]])) == key(combine([((2, 1), f)]))
True
>>> [str(b) for b in bounds(f, [(-1, 1), (0, 2)])]    # over x in [-1, 1], y in [0, 2]
['-1/6', '3/2']
"""

from __future__ import annotations

from math import gcd, lcm
from typing import NamedTuple

from ..exact import Q
from ..exact.numbers import current_limits
from . import MalformedCertificate
from .read import rational_pair

#: the keys of a read-out step's record (of a maxout net's read-out and of a Transformer's)
READOUT_KEYS = ("model", "layer", "nodes", "outputs")

#: the rationals 1, -1 and 0 as pairs ``(p, q)``
PAIR_ONE = (1, 1)
PAIR_MINUS_ONE = (-1, 1)
PAIR_ZERO = (0, 1)

#: a form's common denominator may have at most this many times the digits allowed in a
#: number read from a file (``--max-digits``, 10,000 by default); beyond it the check stops
#: with exit 2 naming the limit ``form-digits``
FORM_DIGITS_FACTOR = 10
#: a combination whose denominators have at most this many bits in all is never refused (and
#: the limit is not looked up: most combinations of a certificate are of small numbers)
SMALL_BITS = 256


class Form(NamedTuple):
    """The affine form ``(const + sum_v coeffs[v] * y_v) / den`` (module docstring)."""

    den: int
    const: int
    coeffs: dict


ZERO_FORM = Form(1, 0, {})
#: ``_new_form(Form, (den, const, coeffs))`` is ``Form(den, const, coeffs)`` without the
#: NamedTuple's Python-level ``__new__`` (a form is built tens of thousands of times a check)
_new_form = tuple.__new__


def var(v: int) -> Form:
    """The form ``y_v``."""
    return _new_form(Form, (1, 0, {v: 1}))


def constant(a) -> Form:
    """The constant form ``a`` (a pair ``(p, q)``)."""
    return _new_form(Form, (a[1], a[0], {}))


def pair(q) -> tuple[int, int]:
    """An element of Q (a model's entry) as ``(p, q)``."""
    return int(q.numerator), int(q.denominator)


def to_q(a):
    """A pair ``(p, q)`` as an element of Q."""
    return Q(a[0], a[1])


def combine(pairs, const=PAIR_ZERO) -> Form:
    """``const + sum a * f`` over ``(a, f)`` in ``pairs`` (``a`` a pair, ``f`` a form).

    Cost: one pass over the coefficients of the forms, in integers."""
    pairs = [(a, f) for a, f in pairs if a[0]]
    cp, cq = const
    if not pairs:
        g = gcd(cp, cq)
        return _new_form(Form, (cq // g, cp // g, {}))
    if len(pairs) == 1 and not cp and pairs[0][0] == PAIR_ONE:
        return pairs[0][1]
    dens = [cq, *[a[1] * f[0] for a, f in pairs]]
    size = len(dens) * max(dens).bit_length()     # a bound on the bit length of their lcm
    den = lcm(*dens) if size <= SMALL_BITS or size <= form_bits() else _bounded_lcm(dens)
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
        return _new_form(Form, (den, c, {v: x for v, x in acc.items() if x}))
    return _new_form(Form, (den // g, c // g, {v: x // g for v, x in acc.items() if x}))


def form_bits() -> int:
    """The most bits a form's common denominator may have: :data:`FORM_DIGITS_FACTOR` times
    the digit limit of numbers read (``--max-digits``), in bits (computed once per limits)."""
    limits = current_limits()
    if _FORM_BITS[0] is not limits:
        _FORM_BITS[:] = [limits, int(FORM_DIGITS_FACTOR * limits.max_digits * 3.3219280948873626)]
    return _FORM_BITS[1]


#: the limits :func:`form_bits` last read, and its value for them
_FORM_BITS = [None, 0]


def _bounded_lcm(dens) -> int:
    """The lcm of ``dens``, one at a time, stopping with :class:`MalformedCertificate` (exit 2)
    naming the limit as soon as it has more than :func:`form_bits` bits: a row of a weight
    matrix with many large distinct denominators would otherwise cost time quadratic in their
    total size before any comparison could fail."""
    bits, den = form_bits(), 1
    for q in dens:
        den = lcm(den, q)
        if den.bit_length() > bits:
            raise MalformedCertificate(
                f"limit form-digits reached: a linear combination has a common denominator of more than "
                f"{FORM_DIGITS_FACTOR} x {current_limits().max_digits} digits (--max-digits)")
    return den


def neg(f: Form) -> Form:
    """``-f``."""
    return _new_form(Form, (f[0], -f[1], {v: -x for v, x in f[2].items()}))


def minus(f: Form, g: Form) -> Form:
    """``f - g``."""
    return combine([(PAIR_ONE, f), (PAIR_MINUS_ONE, g)])


def key(f: Form) -> tuple:
    """A hashable key of a form: equal forms, equal keys."""
    return f[0], f[1], tuple(sorted(f[2].items()))


def single_var(f: Form):
    """``v`` when ``f`` is the form ``y_v`` itself, else None."""
    if f[0] == 1 and f[1] == 0 and len(f[2]) == 1:
        (v, a), = f[2].items()
        if a == 1:
            return v
    return None


def read_form(obj, path=None) -> Form:
    """The form recorded as ``[constant, [[v, a], ..]]`` (entries with ``a = 0`` allowed, a
    variable listed twice refused; ``v`` an integer index, ``a`` a number).

    ``path`` is the form's JSON path, a string or ``(format, *values)`` (formatted only on
    failure, so that reading costs nothing more): a malformed form is refused at the field
    that is wrong inside it.

    >>> try:
    ...     read_form([0, [[1, "1/2"], [True, 1]]], ("steps[{}].certificate.outputs[{}]", 3, 0))
    ... except MalformedCertificate as err:
    ...     print(err)
    steps[3].certificate.outputs[0][1][1][0]: expected a variable index (an integer >= 0), got True
    """
    try:
        return _read_form(obj)
    except MalformedCertificate as err:
        if path is None:
            raise
        if isinstance(path, tuple):
            path = path[0].format(*path[1:])
        from .refusals import form_fault   # the wording of a refusal, loaded for one

        raise MalformedCertificate(str(err.message), path=path + form_fault(obj, rational_pair)) from None


def _read_form(obj) -> Form:
    if not isinstance(obj, list) or len(obj) != 2 or not isinstance(obj[1], list):
        raise MalformedCertificate(f"expected a form [constant, [[variable, coefficient], ..]], got {obj!r:.80}")
    const, items = obj
    nums = [rational_pair(const)]
    vs = []
    for item in items:
        if type(item) is not list or len(item) != 2:
            raise MalformedCertificate(f"expected a term [variable, coefficient], got {item!r:.80}")
        v = item[0]
        if type(v) is not int or v < 0:   # a boolean, a string or a float is not an index
            raise MalformedCertificate(f"expected a variable index (an integer >= 0), got {v!r}")
        vs.append(v)
        nums.append(rational_pair(item[1]))
    if len(set(vs)) != len(vs):
        raise MalformedCertificate("expected each variable once in a form, got one listed twice")
    dens = [q for _, q in nums]
    size = len(dens) * max(dens).bit_length()     # a bound on the bit length of their lcm
    den = lcm(*dens) if size <= SMALL_BITS or size <= form_bits() else _bounded_lcm(dens)
    ints = [p * (den // q) for p, q in nums]
    g = gcd(den, *ints)
    if g != 1:
        den, ints = den // g, [x // g for x in ints]
    return _new_form(Form, (den, ints[0], {v: x for v, x in zip(vs, ints[1:]) if x}))


def bounds(f: Form, ranges):
    """``(min, max)`` of ``f`` over the box ``ranges`` (``ranges[v] = (lo, hi)`` in Q), in Q.
    Raises IndexError naming the first variable outside ``ranges``."""
    return extreme(f, ranges, 0), extreme(f, ranges, 1)


def extreme(f: Form, ranges, end: int):
    """``min`` (``end = 0``) or ``max`` (``end = 1``) of ``f`` over the box ``ranges``: each
    variable at the end of its range that its coefficient's sign makes smallest (largest).
    Raises IndexError naming the first variable outside ``ranges``."""
    d, c, co = f
    total = Q(c)
    n = len(ranges)
    other = 1 - end
    for v, a in co.items():
        if not 0 <= v < n:
            raise IndexError(min(u for u in co if not 0 <= u < n))
        total += a * ranges[v][end if a > 0 else other]
    return total / d if d != 1 else total


# -- matrices of a model, read once into pairs ------------------------------------------
def int_rows(M):
    """A matrix's rows (a list of rows) as their nonzero ``(column, (p, q))`` entries (read once per matrix)."""
    return [[(j, pair(a)) for j, a in enumerate(row) if a] for row in M]


def add_sparse(u, v):
    """The sum of two sparse vectors of pairs (as :func:`int_rows` rows)."""
    out = dict(u)
    for j, (p, q) in v:
        a, b = out.get(j, (0, 1))
        n, d = a * q + p * b, b * q
        g = gcd(n, d)
        out[j] = (n // g, d // g)
    return sorted((j, a) for j, a in out.items() if a[0])


def int_vector(b):
    """A vector's entries (a list) as pairs ``(p, q)``."""
    return [pair(a) for a in b]


def mat_apply(M, col, bias=None):
    """``M col (+ bias)`` for ``M`` as :func:`int_rows` and ``bias`` as :func:`int_vector`."""
    b = bias if bias is not None else [PAIR_ZERO] * len(M)
    return [combine([(a, col[j]) for j, a in row], c) for row, c in zip(M, b)]
