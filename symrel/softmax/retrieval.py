"""Attention retrieval (Paper B, docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b): the inverse temperature beta that
puts weight ``>= 1 - eps`` on the maximal key.

With n keys whose utilities ``beta u`` leave a gap ``eta`` between the maximal key and every
other, softmax attention puts weight ``>= 1/(1 + (n-1) exp(-beta eta))`` on the maximal key.
That is ``>= 1 - eps`` iff ``(n-1) exp(-beta eta) <= eps/(1-eps)``, i.e.
``beta >= beta* = ln((n-1)(1-eps)/eps)/eta``.

>>> from symrel.exact import rational as r
>>> str(retrieval_beta(10, 1, r("1/100")))
'135847/20000'
"""

from __future__ import annotations

from ..exact import Q, Rational
from .intervals import Enclosure, enclose
from .lemmas import DIGITS, LambdaBound, _count, _eps, _positive, certify_smallest


def _threshold(B, n, eta, eps):
    return B.log((n - 1) * (1 - eps) / eps) / eta


def _loss(B, n, beta, eta):
    return (n - 1) * B.exp(-(beta * eta))


def retrieval_weight_lower(n: int, beta, eta, *, backends=None) -> Enclosure:
    """Enclosure of ``1/(1 + (n-1) exp(-beta eta))``, the least weight on the maximal key.

    >>> from symrel.exact import rational as r
    >>> w = retrieval_weight_lower(2, r(5), r(1))
    >>> r("0.99330714") < w.lo <= w.hi < r("0.99330715")
    True
    """
    n, beta, eta = _count(n), _positive(beta, "beta"), _positive(eta, "eta")
    return enclose(lambda B, n, beta, eta: 1 / (1 + _loss(B, n, beta, eta)), n, beta, eta, backends=backends)


def retrieval_bound(n: int, eta, eps, *, digits: int = DIGITS, backends=None) -> LambdaBound:
    """The certified beta with its threshold enclosure (see :func:`retrieval_beta`).
    The certificate: ``(n-1) exp(-beta eta) <= eps/(1-eps)`` with the rational referee."""
    n, eta, eps = _count(n), _positive(eta, "eta"), _eps(eps)
    lemma = (f"retrieval over n={n} keys with utility gap {eta}: weight on the maximal key "
             f">= 1/(1+(n-1)exp(-beta eta)) >= 1 - eps")
    if (n - 1) * (1 - eps) <= eps:
        return LambdaBound(Q(0), eps, Q(0), Enclosure(Q(0), Q(0)), lemma, ["weight >= 1/n >= 1 - eps at every beta"])
    threshold = enclose(_threshold, n, eta, eps, backends=backends)
    target = eps / (1 - eps)

    def loss_upper(beta: Rational) -> Rational:
        # 1 - 1/(1+L) = L/(1+L) <= eps  iff  L <= eps/(1-eps); report the weight loss L/(1+L)
        L = enclose(_loss, n, beta, eta, backends=["taylor"]).hi
        return L / (1 + L) if L <= target else eps + 1

    return certify_smallest(loss_upper, eps, threshold, lemma, digits)


def retrieval_beta(n: int, eta, eps, *, digits: int = DIGITS) -> Rational:
    """The smallest beta (a certified rational upper bound of ``beta*``, within
    ``10^-(digits-1)`` relative) with weight ``>= 1 - eps`` on the maximal one of ``n`` keys
    when the utility gap is ``eta``. Returns 0 when every beta works. O(1).

    >>> from symrel.exact import rational as r
    >>> b = retrieval_beta(5, r("1/2"), r("1e-3"))
    >>> str(b), b * r("1/2") > 8    # ln(4 * 999) = 8.29...
    ('165861/10000', True)
    """
    return retrieval_bound(n, eta, eps, digits=digits).lam
