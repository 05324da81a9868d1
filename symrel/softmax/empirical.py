"""Numeric cross-validation of a softmax bound: evaluate the softmax Transformer at many
points with mpmath (50+ digits) and compare with the exact hardmax output.

This is evaluation, not proof. The points are random grid points of the box, its
vertices, and **near-tie** points: along random segments the hardmax argmax sets of the
heads change; bisection (exact rationals) finds where, and points are placed at
distances ``c/(lambda * slope)`` from the tie, where the score gap is of order
``1/lambda`` and a max head's error is largest (for two near-maximal scores at gap g the
error ``g/(1 + e^(lambda g))`` peaks near ``lambda g = 1.28``).

>>> from symrel.compiler import compile_maxout
>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> from symrel.exact import rational as r
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
>>> D = Box([[-1, 1]])
>>> T = compile_maxout(net, D).transformer
>>> chk = empirical_check(T, D, r(100), r("1/100"), points=12, seed=1)
>>> chk.violations, chk.ratio >= 1      # ratio = bound / worst observed error
([], True)
"""

from __future__ import annotations

import math
import random
import sys
from dataclasses import dataclass, field

import mpmath

from ..exact import Public, Q, Rational, column, denominator, numerator, rational, rows, to_float

#: Offsets from a tie, in units of ``1/(lambda * slope)``.
TIE_OFFSETS = (Q(1, 2), Q(32, 25), Q(3))


def _mpf(q: Rational):
    return mpmath.mpf(numerator(q)) / denominator(q)


def softmax_error(T, x, lam, dps: int = 50):
    """``max_j |T_softmax(lam)(x)_j - T_hardmax(x)_j|`` with mpmath at ``dps`` digits."""
    with mpmath.workdps(dps):
        soft = T.evaluate_softmax(x, dps=dps, scale=lam)
        hard = T.evaluate_exact(x)
        return max(abs(s - _mpf(h)) for s, h in zip(soft, hard))


def head_scores(T, x) -> list[tuple[tuple[int, int], list[list[Rational]]]]:
    """The exact hardmax scores of every head: ``((block, head), S)`` with ``S[s][t]``."""
    Z = T.exact_embed(x)
    out = []
    for b, block in enumerate(T.blocks):
        if block.attention is not None:
            for h, head in enumerate(block.attention.heads):
                out.append(((b, h), rows(head.scores(Z))))
        Z = block.apply_hardmax(Z)
    return out


def _float_scores(T, x, weights=None) -> list[tuple[tuple[int, int, int], list[float]]]:
    """Hardmax scores of every head and query token, in floats: used only to *locate* ties
    (the points returned are exact and every error is computed at 50 digits)."""
    out = []

    def attend(key, scores):
        out.append((key, scores))
        top = max(scores)
        winners = [i for i, v in enumerate(scores) if v == top]
        return [1.0 / len(winners) if v == top else 0.0 for v in scores]

    _float_forward(T, x, attend, weights)
    return out


def _signature(T, x, weights=None):
    return tuple((key, frozenset(i for i, v in enumerate(s) if v == max(s))) for key, s in _float_scores(T, x, weights))


def _top_gap(T, x, key, weights=None) -> Rational:
    for k, s in _float_scores(T, x, weights):
        if k == key:
            top = sorted(s, reverse=True)
            gap = top[0] - top[1] if len(top) > 1 else 0.0
            return rational(max(gap, 0.0), exact_floats=True)
    return Q(0)


def _simpler(p: Rational) -> Rational:
    """``p`` moved by at most 10^-12 to a rational with a small denominator (readable points)."""
    from fractions import Fraction

    f = Fraction(numerator(p), denominator(p)).limit_denominator(10**12)
    return Q(f.numerator, f.denominator)


def near_tie_points(T, domain, lam, count: int, seed: int = 0, tries: int | None = None) -> list[list[Rational]]:
    """Up to ``count`` exact points of the box near a change of some head's argmax set,
    at score gaps of order ``1/lam`` (module doc). Cost: O(count) x 40 hardmax evaluations."""
    rng = random.Random(seed)
    lam = rational(lam)
    fw = _FloatWeights(T)
    pts: list[list[Rational]] = []
    for _ in range(tries if tries is not None else 8 * count):
        if len(pts) >= count:
            break
        a, b = ([rational(v) for v in p] for p in domain.sample(2, seed=rng.randrange(2**30), denominator=997))
        sa, sb = _signature(T, a, fw), _signature(T, b, fw)
        if sa == sb:
            continue
        lo, hi = Q(0), Q(1)
        at = lambda p: [u + p * (v - u) for u, v in zip(a, b)]
        for _ in range(40):
            mid = (lo + hi) / 2
            if _signature(T, at(mid), fw) == sa:
                lo = mid
            else:
                hi = mid
        s_lo, s_hi = _signature(T, at(lo), fw), _signature(T, at(hi), fw)
        changed = [k for (k, a1), (_, a2) in zip(s_lo, s_hi) if a1 != a2]
        if not changed:
            continue
        key = changed[0]
        h = Q(1, 64)
        slope = max(_top_gap(T, at(max(lo - h, Q(0))), key, fw), _top_gap(T, at(min(hi + h, Q(1))), key, fw)) / h
        pts.append(at(_simpler(lo)))
        if slope <= 0:
            continue
        for c in TIE_OFFSETS:
            for sgn in (1, -1):
                p = lo + sgn * c / (lam * slope)
                if 0 <= p <= 1:
                    pts.append(at(_simpler(p)))
    return pts[:count] if len(pts) > count else pts


def _errors_at(T, lam, dps, xs) -> list:
    return [softmax_error(T, x, lam, dps) for x in xs]


@dataclass
class EmpiricalCheck:
    """Worst observed error over the points, the bound, their ratio (bound / worst), and
    every point where the observed error exceeds the bound. Its exact numbers read as sympy
    Rationals (:mod:`symrel.exact.public`); the observed errors are mpmath numbers."""

    lam: Rational = Public()
    bound: Rational = Public()
    points: int
    worst: object
    worst_point: list = Public()
    violations: list = Public(default=())

    @property
    def ratio(self):
        return _mpf(self.bound) / self.worst if self.worst else mpmath.inf

    @property
    def holds(self) -> bool:
        return not self.violations

    def to_json(self) -> dict:
        from ..exact import rational_str

        return {"lambda": rational_str(self.lam), "bound": rational_str(self.bound), "points": self.points,
                "worst_observed": mpmath.nstr(self.worst, 12), "ratio": mpmath.nstr(self.ratio, 6),
                "worst_point": [rational_str(v) for v in self.worst_point], "violations": len(self.violations)}


def empirical_check(T, domain, lam, bound, *, points: int = 100, seed: int = 0, dps: int = 50,
                    tie_fraction=Q(1, 2), extra_points=(), executor=None, progress: bool = False) -> EmpiricalCheck:
    """Evaluate the softmax version of ``T`` at ``points`` points of the box (random, vertices,
    near-tie; plus ``extra_points``) and compare with ``bound``. Cost: O(points) mpmath
    evaluations of T, spread over ``executor`` (any ``concurrent.futures.Executor``) when
    given; ``progress`` reports on standard error."""
    lam, bound = rational(lam), rational(bound)
    n_tie = int(points * tie_fraction)
    pts = near_tie_points(T, domain, lam, n_tie, seed=seed)
    pts += list(domain.vertices())[: max(0, min(16, points - len(pts)))]
    pts += domain.sample(max(0, points - len(pts)), seed=seed + 1, denominator=1000)
    pts += [list(p) for p in extra_points]
    worst, worst_point, bad = mpmath.mpf(0), pts[0], []
    limit = _mpf(bound)
    from ..parallel import chunked, map_ordered

    errors = [e for part in map_ordered(_errors_at, chunked(pts, executor), executor, shared=(T, lam, dps)) for e in part]
    for i, (x, err) in enumerate(zip(pts, errors), 1):
        if progress and (i % max(1, len(pts) // 10) == 0 or i == len(pts)):
            print(f"empirical check: {i}/{len(pts)} points", file=sys.stderr)
        if err > worst:
            worst, worst_point = err, x
        if err > limit:
            bad.append((x, err))
    return EmpiricalCheck(lam, bound, len(pts), worst, worst_point, bad)


def _floats(M) -> list[list[float]]:
    return [[to_float(v) for v in r] for r in rows(M)]


class _FloatWeights:
    """Every weight of a Transformer as floats, converted once."""

    def __init__(self, T):
        self.T = T
        self.heads = [[tuple(_floats(M) for M in h.exact_matrices()) for h in b.attention.heads] if b.attention else None
                      for b in T.blocks]
        self.ffs = [(_floats(b.feedforward.exact_W1), [r[0] for r in _floats(b.feedforward.exact_b1)], _floats(b.feedforward.exact_W2),
                     [r[0] for r in _floats(b.feedforward.exact_b2)]) if b.feedforward else None for b in T.blocks]
        self.readout = (_floats(T.readout.exact_W), [to_float(v) for v in column(T.readout.exact_b, 0)])


def _float_forward(T, x, attend, weights: _FloatWeights | None = None) -> list[float]:
    """The Transformer in plain Python floats; ``attend((block, head, query), scores)``
    returns the attention weights of one query."""
    fw = weights if weights is not None else _FloatWeights(T)
    mat = lambda A, B: [[sum(a * B[k][j] for k, a in enumerate(r)) for j in range(len(B[0]))] for r in A]
    Z = _floats(T.exact_embed(x))
    n = len(Z[0])
    for b, block in enumerate(T.blocks):
        if block.attention is not None:
            out = [list(r) for r in Z]
            for h, (WQ, WK, WV, WO) in enumerate(fw.heads[b]):
                Qm, K, V = mat(WQ, Z), mat(WK, Z), mat(WV, Z)
                for t in range(n):
                    w = attend((b, h, t), [sum(K[r][u] * Qm[r][t] for r in range(len(K))) for u in range(n)])
                    o = mat(WO, [[sum(V[r][u] * w[u] for u in range(n))] for r in range(len(V))])
                    for r in range(len(out)):
                        out[r][t] += o[r][0]
            Z = out
        if fw.ffs[b] is not None:
            W1, b1, W2, b2 = fw.ffs[b]
            H = [[max(v + b1[i], 0.0) for v in r] for i, r in enumerate(mat(W1, Z))]
            U = mat(W2, H)
            Z = [[z + u + b2[i] for z, u in zip(rz, ru)] for i, (rz, ru) in enumerate(zip(Z, U))]
    W, c = fw.readout
    y = mat(W, [[Z[i][T.readout.token]] for i in range(len(Z))])
    return [y[i][0] + c[i] for i in range(len(c))]


def float_softmax_output(T, x, lam, *, shift: bool = True) -> list[float]:
    """The softmax Transformer evaluated in plain Python floats, the way a quick script would:
    ``math.exp(lam * score)`` (``shift=False``) or ``math.exp(lam * (score - max))``.
    Shown only to exhibit what goes wrong at a certified lambda: ``OverflowError`` without
    the shift, and answers rounded to the hardmax value (``1 - tiny == 1``) with it."""
    lam = to_float(rational(lam))

    def attend(_, scores):
        top = max(scores) if shift else 0.0
        e = [math.exp(lam * (v - top)) for v in scores]
        return [v / sum(e) for v in e]

    return _float_forward(T, x, attend)
