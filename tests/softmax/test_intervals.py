import mpmath
import pytest

from symrel.exact import Q
from symrel.softmax import intervals
from symrel.softmax.intervals import EnclosureMismatch, RationalInterval, available_backends, enclose
from symrel.softmax.lemmas import softmax_gap


def mp(q):
    return mpmath.mpf(int(q.numerator)) / int(q.denominator)


def test_every_backend_encloses_a_64_score_softmax_gap():
    scores = [Q((7 * i * i) % 41 - 20, 9) for i in range(64)]
    lam = Q(37, 3)
    enc = softmax_gap(scores, lam)
    assert set(enc.by_backend) == set(available_backends())
    with mpmath.workdps(100):
        s = [mp(v) for v in scores]
        top = max(s)
        w = [mpmath.exp(mp(lam) * (v - top)) for v in s]
        true = top - mpmath.fsum(wi * si for wi, si in zip(w, s)) / mpmath.fsum(w)
        for name, (lo, hi) in enc.by_backend.items():
            assert mp(lo) <= true <= mp(hi), name
            assert hi - lo < Q(1, 10**20), name


def test_flint_and_mpmath_agree_with_the_referee():
    pytest.importorskip("flint")
    enc = enclose(lambda B, a: B.log(B.exp(a) + 1) / a, Q(5, 3), backends=["taylor", "mpmath", "flint"])
    (tl, th), (ml, mh), (fl, fh) = (enc.by_backend[n] for n in ("taylor", "mpmath", "flint"))
    assert max(tl, ml, fl) <= min(th, mh, fh)


class BrokenBackend(intervals.MpmathBackend):
    """mpmath.iv with an exp shifted by 10^-20: a deliberately wrong enclosure."""

    name = "broken"

    def exp(self, x):
        return self.iv.exp(x) + self.iv.mpf(10) ** -20


def test_a_wrong_backend_enclosure_is_caught(monkeypatch):
    monkeypatch.setitem(intervals._BACKENDS, "broken", BrokenBackend)
    with pytest.raises(EnclosureMismatch, match="broken"):
        enclose(lambda B, a: B.exp(a), Q(1, 3), backends=["taylor", "broken"])


def test_rational_interval_arithmetic():
    x = RationalInterval(Q(-1), Q(2))
    assert (x * x).lo == -2 and (x * x).hi == 4
    with pytest.raises(ZeroDivisionError):
        Q(1) / x
    y = Q(1) / RationalInterval(Q(2), Q(4))
    assert (y.lo, y.hi) == (Q(1, 4), Q(1, 2))
