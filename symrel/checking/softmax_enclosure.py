"""The checker's own enclosure of a sequence Transformer's softmax output scores.

A tracr-audit certificate records, per input, integer intervals ``[lo/2^P, hi/2^P]``
(``P = bits``) for the output scores of the model run with ``softmax(c * logits)``
in every attention sublayer. The enclosure is *defined* (docs/format.md, THEORY.md
section 8) by fixed-point interval arithmetic at scale ``2^P`` with outward rounding, so
it has exactly one value; this module computes it from that definition, written apart from
the audit's :mod:`symrel.models.sequence_softmax` so that a slip in either makes the
recorded end points differ. Its ``exp`` enclosures are the checker's own series
(:func:`symrel.checking.exp_bounds.exp_bounds`). The definition, per operation:

* weights: a matrix's entries are taken at the scale ``2^-S``, ``S`` the least exponent
  making every entry of the matrix dyadic with that denominator (96 when some entry is not
  dyadic), as ``[floor(w 2^S), ceil(w 2^S)]``; its bias at ``2^-(S+P)``; embeddings and the
  attention output bias at ``2^-P``;
* ``W x + b``: exact integer interval products (by the sign for a point weight, min and max
  of the four products otherwise), summed, then the lower end shifted down by S bits
  (floor) and the upper end up (ceiling); ReLU clips both ends at 0;
* a logit ``q . k`` (scale ``2^-2P``) times ``c * scale = n/d``: ``floor(lo n / (d 2^P))``,
  ``ceil(hi n / (d 2^P))``;
* softmax weights: with ``M`` the largest upper logit, each ``l - M`` rounded outward to a
  multiple of ``2^-G`` (``G = EXP_GRID``), ``E^- <= exp <= E^+`` at ``EXP_BITS`` bits, the
  weight of key s is ``[floor(E^-_s / (E^-_s + sum_(j != s) E^+_j)),
  min(ceil(E^+_s / (E^+_s + sum_(j != s) E^-_j)), 1)]`` at ``2^-P`` (0 and 1 when a
  denominator vanishes);
* the mixture ``sum_s w_s v_s``: each product by the sign of the value end, shifted by P
  bits outward.

Cost per input: the hardmax evaluation's on integers of ``O(P)`` bits plus ``2 H T^2``
exp enclosures per attention sublayer (cached across inputs).
"""

from __future__ import annotations

from functools import lru_cache

from ..exact import Q, denominator, numerator
from .sequences import label_key
from .exp_bounds import exp_bounds

#: the format's parameters: fixed-point bits, exp precision, exp argument grid
BITS = 64
EXP_BITS = 64
EXP_GRID = 40


def _down(q, shift: int) -> int:
    """``floor(q 2^shift)``."""
    return (numerator(q) << shift) // denominator(q)


def _up(q, shift: int) -> int:
    """``ceil(q 2^shift)``."""
    return -((-numerator(q) << shift) // denominator(q))


def _shift_out(lo: int, hi: int, s: int) -> tuple[int, int]:
    """``[lo, hi] / 2^s`` rounded outward to integers."""
    return lo >> s, -((-hi) >> s)


class _Matrix:
    """A weight matrix at its scale ``2^-S``: rows of nonzero ``(column, lo, hi)``, and its
    bias ``(lo, hi)`` at ``2^-(S + P)``."""

    def __init__(self, M, bias, bits: int):
        self.S = S = _scale(M)
        self.rows = [[(j, _down(w, S), _up(w, S)) for j, w in enumerate(row) if w] for row in M]
        self.bias = [(_down(v, S + bits), _up(v, S + bits)) for v in bias] if bias is not None else [(0, 0)] * len(M)

    def apply(self, x):
        """``W x + b`` for the interval vector ``x = [(lo, hi), ..]``."""
        out = []
        for row, (lo, hi) in zip(self.rows, self.bias):
            for j, wl, wh in row:
                a, c = x[j]
                if not (a or c):
                    continue
                if wl == wh:
                    lo, hi = (lo + wl * a, hi + wl * c) if wl >= 0 else (lo + wl * c, hi + wl * a)
                else:
                    products = (wl * a, wl * c, wh * a, wh * c)
                    lo, hi = lo + min(products), hi + max(products)
            out.append(_shift_out(lo, hi, self.S))
        return out


def _scale(M) -> int:
    """The least S with every entry of M a multiple of ``2^-S``; 96 when some entry is not dyadic."""
    S = 0
    for row in M:
        for w in row:
            d = denominator(w)
            if d & (d - 1):
                return 96
            S = max(S, d.bit_length() - 1)
    return S


def _point(vector, bits: int):
    return [(_down(v, bits), _up(v, bits)) for v in vector]


def _plus(x, y):
    return [(a + c, b + d) for (a, b), (c, d) in zip(x, y)]


@lru_cache(maxsize=1 << 16)
def _exp(num: int, den: int) -> tuple:
    return exp_bounds(Q(num, den), EXP_BITS)


def _weights(logits, bits: int):
    """The softmax weights of interval logits (scale ``2^-P``), at ``2^-P``."""
    top = max(hi for _, hi in logits)
    drop = bits - EXP_GRID
    lows, highs = [], []
    for lo, hi in logits:
        if drop > 0:
            a, b = _shift_out(lo - top, hi - top, drop)
            den = 1 << EXP_GRID
        else:
            a, b, den = lo - top, hi - top, 1 << bits
        lows.append(_exp(a, den)[0])
        highs.append(_exp(b, den)[1])
    all_lo, all_hi = sum(lows, Q(0)), sum(highs, Q(0))
    out = []
    for el, eh in zip(lows, highs):
        w_lo = el / (el + all_hi - eh) if el else Q(0)
        rest = eh + all_lo - el
        w_hi = eh / rest if rest else Q(1)
        out.append((_down(w_lo, bits), min(_up(w_hi, bits), 1 << bits)))
    return out


def _mixture(weights, values, bits: int):
    """``sum_s w_s v_s`` with ``w_s >= 0``, at ``2^-P``."""
    acc = [[0, 0] for _ in values[0]]
    for (wl, wh), v in zip(weights, values):
        for i, (a, b) in enumerate(v):
            acc[i][0] += wl * a if a >= 0 else wh * a
            acc[i][1] += wh * b if b >= 0 else wl * b
    return [_shift_out(lo, hi, bits) for lo, hi in acc]


class _Weights:
    """A model's weights in fixed point (made once per model)."""

    def __init__(self, model, bits: int):
        self.tok = [_point(r, bits) for r in model.exact_token_embedding]
        self.pos = [_point(r, bits) for r in model.exact_position_embedding]
        self.layers = []
        for layer in model.layers:
            att = mlp = None
            if layer.attention is not None:
                a = layer.attention
                heads = [tuple(_Matrix(M, b, bits) for M, b in ((h.exact_WQ, h.exact_bQ), (h.exact_WK, h.exact_bK),
                                                           (h.exact_WV, h.exact_bV), (h.exact_WO, None)))
                         for h in a.heads]
                att = (heads, _point(a.exact_bO, bits), a.exact_scale)
            if layer.mlp is not None:
                f = layer.mlp
                mlp = (_Matrix(f.exact_W1, f.exact_b1, bits), _Matrix(f.exact_W2, f.exact_b2, bits))
            self.layers.append((att, mlp))
        self.unembed = _Matrix(model.exact_unembedding, None, bits)


class SoftmaxEnclosure:
    """Output-score intervals at the input positions: ``lo[p][i] / 2^bits <= score <= hi[p][i] / 2^bits``."""

    def __init__(self, bits: int, lo, hi):
        self.bits, self.lo, self.hi = bits, lo, hi

    def interval(self, p: int, i: int):
        d = 1 << self.bits
        return Q(self.lo[p][i], d), Q(self.hi[p][i], d)

    def to_json(self) -> dict:
        return {"bits": self.bits, "lo": [list(r) for r in self.lo], "hi": [list(r) for r in self.hi]}


def softmax_enclosure(model, seq, factor=1, bits: int = BITS) -> SoftmaxEnclosure:
    """The enclosure (module docstring) of ``model``'s output scores on ``BOS seq`` with every
    logit multiplied by ``factor``.

    >>> from symrel.models.sequence import SequenceTransformer
    >>> m = SequenceTransformer(tokens=["BOS", "a"], bos="BOS", token_embedding=[[1], [2]],
    ...     position_embedding=[[0], [0]], layers=[], unembedding=[[1]], output="numerical")
    >>> softmax_enclosure(m, ["a"]).interval(0, 0) == (2, 2)
    True
    """
    cache = model.__dict__.setdefault("_checker_weights", {})
    W = cache.get(bits) or cache.setdefault(bits, _Weights(model, bits))
    factor = Q(factor) if not Q.of_type(factor) else factor
    model.exact_embed(seq)  # refuses a sequence the model cannot read
    Z = [_plus(W.tok[model._index[label_key(t)]], W.pos[p]) for p, t in enumerate([model.bos, *seq])]
    T = len(Z)
    for att, mlp in W.layers:
        if att is not None:
            heads, bO, scale = att
            c = scale * factor
            n, d = numerator(c), denominator(c) << bits
            new = [_plus(z, bO) for z in Z]
            for WQ, WK, WV, WO in heads:
                qs, ks, vs = [WQ.apply(z) for z in Z], [WK.apply(z) for z in Z], [WV.apply(z) for z in Z]
                for t in range(T):
                    keys = model.keys_of(t, T)
                    logits = []
                    for s in keys:
                        lo = hi = 0
                        for (a, b), (e, f) in zip(qs[t], ks[s]):
                            if a == b and e == f:
                                lo, hi = lo + a * e, hi + a * e
                            else:
                                products = (a * e, a * f, b * e, b * f)
                                lo, hi = lo + min(products), hi + max(products)
                        logits.append(((lo * n) // d, -((-hi * n) // d)))
                    mix = _mixture(_weights(logits, bits), [vs[s] for s in keys], bits)
                    new[t] = _plus(new[t], WO.apply(mix))
            Z = new
        if mlp is not None:
            W1, W2 = mlp
            Z = [_plus(z, W2.apply([(max(lo, 0), max(hi, 0)) for lo, hi in W1.apply(z)])) for z in Z]
    scores = [W.unembed.apply(z) for z in Z[1:]]
    return SoftmaxEnclosure(bits, tuple(tuple(lo for lo, _ in s) for s in scores),
                            tuple(tuple(hi for _, hi in s) for s in scores))

