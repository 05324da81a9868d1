"""The softmax-vs-hardmax lemmas (docs/theory.md#softmax-instead-of-hardmax), with rigorous evaluation.

For scores ``s_1..s_n`` and ``p = softmax_lambda(s)``:

* **max head** (value = score): ``0 <= max s - sum p_i s_i <= min((n-1)/(e lambda), ln(n)/lambda)``.
  Why: with ``d_i = max s - s_i >= 0``, ``p_i <= exp(-lambda d_i)`` and
  ``d exp(-lambda d) <= 1/(e lambda)`` for the n-1 non-maximal terms; and
  ``max s <= LSE = sum p_i s_i + H(p)/lambda`` with ``H(p) <= ln n``.
* **selection head** (winner w beats every other score by ``delta > 0``): weight on the
  winner ``p_w >= 1 - (n-1) exp(-lambda delta)``, so the output moves from ``v_w`` by
  at most ``(1 - p_w) max|v_s - v_w| <= 2 (n-1) exp(-lambda delta) max|v|``.

Every forward bound is an :class:`~symrel.softmax.intervals.Enclosure` (rational
referee, cross-checked against mpmath.iv and arb). The inverse forms return the
smallest threshold ``lambda*`` as an enclosure and a *certified* rational
``lambda >= lambda*``: the forward bound is re-evaluated at that rational with the
rational referee alone and compared with ``eps`` exactly.

>>> from symrel.exact import rational as r
>>> res = lambda_for_max_head(3, r("1/1000"))
>>> str(res.lam), res.bound <= r("1/1000")
('735759/1000', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

from ..errors import InputError
from ..exact import Public, Q, Rational, denominator, numerator, rational, rational_str
from .intervals import Enclosure, enclose

#: Significant decimal digits of a returned lambda (it is within 10^-(DIGITS-1) of lambda*).
DIGITS = 6


# -- formulas, written once for every interval backend ------------------------------------
def _gap_terms(B, n, lam):
    """``(n-1)/(e lambda)`` and ``ln(n)/lambda``."""
    e = B.exp(B.const(Q(1)))
    return (n - 1) / (e * lam), B.log(n) / lam


def _max_head_threshold_terms(B, n, eps):
    """``(n-1)/(e eps)`` and ``ln(n)/eps``: the lambda where each term equals eps."""
    e = B.exp(B.const(Q(1)))
    return (n - 1) / (e * eps), B.log(n) / eps


def _selection_loss(B, n, lam, delta):
    return (n - 1) * B.exp(-(lam * delta))


def _selection_error(B, n, lam, delta, vmax):
    return 2 * (n - 1) * B.exp(-(lam * delta)) * vmax


def _selection_threshold(B, n, delta, vmax, eps):
    return B.log(2 * (n - 1) * vmax / eps) / delta


def _min_of_two(formula, *args, backends=None) -> Enclosure:
    """Enclosure of ``min(t1, t2)`` where ``formula`` returns the pair ``(t1, t2)``."""
    first = enclose(lambda B, *a: formula(B, *a)[0], *args, backends=backends)
    second = enclose(lambda B, *a: formula(B, *a)[1], *args, backends=backends)
    by = {name: (min(first.by_backend[name][0], second.by_backend[name][0]),
                 min(first.by_backend[name][1], second.by_backend[name][1])) for name in first.by_backend}
    return Enclosure(min(first.lo, second.lo), min(first.hi, second.hi), by)


def _positive(x, name: str) -> Rational:
    q = rational(x, path=name)
    if q <= 0:
        raise InputError(f"expected a positive rational, got {rational_str(q)}", path=name)
    return q


def _count(n, name: str = "n") -> Rational:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"expected a number of scores >= 1, got {n!r}", path=name)
    return Q(n)


def _eps(eps) -> Rational:
    q = _positive(eps, "eps")
    if q >= 1:
        raise InputError(f"expected 0 < eps < 1, got {rational_str(q)}", path="eps")
    return q


def softmax_gap_formula(B, lam, *d):
    """``sum e_i d_i / sum e_i`` with ``e_i = exp(-lambda d_i)``, for any backend B."""
    e = [B.exp(-(lam * di)) for di in d]
    num, den = e[0] * d[0], e[0]
    for ei, di in zip(e[1:], d[1:]):
        num, den = num + ei * di, den + ei
    return num / den


# -- forward bounds ---------------------------------------------------------------------
def max_head_gap(n: int, lam, *, backends: list[str] | None = None) -> Enclosure:
    """Enclosure of ``min((n-1)/(e lambda), ln(n)/lambda)``, the bound on
    ``max s - softmax-average`` for a value = score head over n scores. O(1).

    >>> from symrel.exact import rational as r
    >>> g = max_head_gap(2, r(10))
    >>> r("0.0367879") < g.lo <= g.hi < r("0.0367880")
    True
    """
    n, lam = _count(n), _positive(lam, "lambda")
    if n == 1:
        return Enclosure(Q(0), Q(0), {})
    return _min_of_two(_gap_terms, n, lam, backends=backends)


def selection_weight_loss(n: int, lam, delta, *, backends: list[str] | None = None) -> Enclosure:
    """Enclosure of ``(n-1) exp(-lambda delta)``: the winner's weight is at least one minus it.

    >>> from symrel.exact import rational as r
    >>> w = selection_weight_loss(4, r(20), r("1/2"))
    >>> r("1.36e-4") < w.lo <= w.hi < r("1.37e-4")
    True
    """
    n, lam, delta = _count(n), _positive(lam, "lambda"), _positive(delta, "delta")
    return enclose(_selection_loss, n, lam, delta, backends=backends)


def selection_error(n: int, lam, delta, vmax, *, backends: list[str] | None = None) -> Enclosure:
    """Enclosure of ``2 (n-1) exp(-lambda delta) max|v|``, the bound on a selection
    head's output error. O(1)."""
    n, lam, delta = _count(n), _positive(lam, "lambda"), _positive(delta, "delta")
    vmax = rational(vmax, path="vmax")
    if vmax < 0:
        raise InputError("expected max|v| >= 0", path="vmax")
    if vmax == 0 or n == 1:
        return Enclosure(Q(0), Q(0), {})
    return enclose(_selection_error, n, lam, delta, vmax, backends=backends)


def softmax_gap(scores: Sequence, lam, *, backends: list[str] | None = None) -> Enclosure:
    """Enclosure of the actual ``max s - sum_i softmax_lambda(s)_i s_i`` for rational scores,
    computed as ``sum e_i d_i / sum e_i`` with ``d_i = max s - s_i``, ``e_i = exp(-lambda d_i)``
    (no cancellation, no overflow). O(n) exponentials per backend.

    >>> from symrel.exact import rational as r
    >>> g = softmax_gap([r(0), r(1)], r(1))
    >>> r("0.2689414") < g.lo <= g.hi < r("0.2689415")
    True
    """
    lam = _positive(lam, "lambda")
    s = [rational(v, path=f"scores[{i}]") for i, v in enumerate(scores)]
    top = max(s)
    d = [top - v for v in s]
    return enclose(softmax_gap_formula, lam, *d, backends=backends)


# -- inverse forms: the smallest lambda for a target eps --------------------------------
@dataclass
class LambdaBound:
    """A certified ``lam`` (exact rational) with ``bound(lam) <= eps``, where ``threshold``
    encloses the exact smallest such lambda and ``bound`` is the referee's upper bound of the
    error at ``lam``. Its numbers read as sympy Rationals (:mod:`symrel.exact.public`)."""

    lam: Rational = Public()
    eps: Rational = Public()
    bound: Rational = Public()
    threshold: Enclosure = Public()
    lemma: str
    steps: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "lambda": rational_str(self.lam),
            "eps": rational_str(self.eps),
            "bound_at_lambda": rational_str(self.bound),
            "threshold": [rational_str(self.threshold.lo), rational_str(self.threshold.hi)],
            "lemma": self.lemma,
        }


def ceil_significant(q: Rational, digits: int = DIGITS) -> Rational:
    """The smallest rational ``>= q`` of the form ``m 10^k`` with ``m`` of ``digits`` digits.

    >>> from symrel.exact import rational as r
    >>> str(ceil_significant(r("1234567/1000"), 3))
    '1240'
    """
    if q <= 0:
        return Q(0)
    num, den = numerator(q), denominator(q)
    k = len(str(num // den)) - digits if num >= den else -digits - (len(str(den // num)) - 1)
    while True:
        unit = Q(10) ** k
        m = -((-numerator(q / unit)) // denominator(q / unit))
        if m < 10**digits:
            return m * unit
        k += 1


def certify_smallest(
    forward_upper: Callable[[Rational], Rational], eps: Rational, threshold: Enclosure, lemma: str, digits: int = DIGITS
) -> LambdaBound:
    """Round the threshold's upper end up to ``digits`` significant digits and certify it:
    ``forward_upper(lam) <= eps`` with rational arithmetic; step up until it holds."""
    lam = ceil_significant(threshold.hi, digits) if threshold.hi > 0 else Q(0)
    if lam == 0:
        return LambdaBound(Q(0), eps, Q(0), threshold, lemma, ["the bound is 0 for every lambda"])
    for _ in range(100):
        bound = forward_upper(lam)
        if bound <= eps:
            return LambdaBound(lam, eps, bound, threshold, lemma)
        # the referee's bound is a hair above the true one: step up by one unit of the last digit
        lam = ceil_significant(lam * (1 + Q(1, 10**digits)), digits)
    raise ArithmeticError(f"could not certify a lambda near {threshold.hi} for {lemma}")  # pragma: no cover


def lambda_for_max_head(n: int, eps, *, digits: int = DIGITS, backends=None) -> LambdaBound:
    """The smallest lambda with ``min((n-1)/(e lambda), ln(n)/lambda) <= eps``, i.e.
    ``lambda* = min((n-1)/e, ln n)/eps``, as a certified rational upper bound.
    O(1). With n = 1 every lambda works and 0 is returned."""
    n, eps = _count(n), _eps(eps)
    lemma = f"max head over n={n} scores: max - softmax average <= min((n-1)/(e lambda), ln(n)/lambda)"
    if n == 1:
        return LambdaBound(Q(0), eps, Q(0), Enclosure(Q(0), Q(0)), lemma, ["n = 1: softmax equals hardmax"])
    threshold = _min_of_two(_max_head_threshold_terms, n, eps, backends=backends)
    return certify_smallest(lambda lam: max_head_gap(int(n), lam, backends=["taylor"]).hi, eps, threshold, lemma, digits)


def lambda_for_selection(n: int, delta, vmax, eps, *, digits: int = DIGITS, backends=None) -> LambdaBound:
    """The smallest lambda with ``2 (n-1) exp(-lambda delta) max|v| <= eps``, i.e.
    ``lambda* = ln(2 (n-1) max|v| / eps) / delta``, as a certified rational upper bound.

    >>> from symrel.exact import rational as r
    >>> res = lambda_for_selection(3, r(1), r(1), r("1e-6"))
    >>> str(res.lam), res.bound <= r("1e-6")
    ('152019/10000', True)
    """
    n, delta, eps = _count(n), _positive(delta, "delta"), _eps(eps)
    vmax = rational(vmax, path="vmax")
    lemma = f"selection head over n={n} scores, margin {rational_str(delta)}: error <= 2(n-1) exp(-lambda delta) max|v|"
    if n == 1 or vmax == 0 or 2 * (n - 1) * vmax <= eps:
        return LambdaBound(Q(0), eps, Q(0), Enclosure(Q(0), Q(0)), lemma, ["the bound is below eps at every lambda"])
    threshold = enclose(_selection_threshold, n, delta, vmax, eps, backends=backends)
    return certify_smallest(
        lambda lam: selection_error(int(n), lam, delta, vmax, backends=["taylor"]).hi, eps, threshold, lemma, digits
    )
