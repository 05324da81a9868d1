"""Rigorous enclosure of a sequence Transformer's softmax output (THEORY.md section 8).

With every attention sublayer using ``softmax(c * logits)`` (``c = factor``; ``c = 1`` is
the model as compiled), the output scores ``U z_p`` are enclosed in intervals with
exact rational end points. Every quantity is an interval ``[a/2^P, b/2^P]`` of integers
``a <= b`` at the fixed scale ``2^P`` (``P = bits``); every operation rounds its lower
end down and its upper end up (floor and ceiling of exact integer quotients), so the
true real-number value always lies inside:

* affine maps and ReLU: interval arithmetic on the exact weights (a weight that is not a
  multiple of ``2^-S`` for the matrix's scale S becomes its own enclosing interval);
* logits: products of the query and key intervals, times the exact rational ``c * scale``;
* softmax weights: with ``E^-_s <= exp(l_s - M) <= E^+_s`` from the ``exp_bounds``
  function passed in (rational series with remainder; its arguments are first rounded
  outward to a multiple of ``2^-G``, which keeps them short, since ``exp`` is
  increasing), the weight of key s lies in
  ``[E^-_s / (E^-_s + sum_{j != s} E^+_j), E^+_s / (E^+_s + sum_{j != s} E^-_j)]``;
* the mixture ``sum_s w_s v_s`` with ``w_s >= 0``.

The function is deterministic, so a checker that passes the same ``exp_bounds`` numbers
recomputes the same end points exactly. It takes ``exp_bounds`` as an argument because
models import only the exact layer: the audit passes the prover's series
(:mod:`symrel.softmax.taylor`), the checker its own.

Cost per input: that of the hardmax evaluation on integers of ``O(P)`` bits, plus
``2 H T^2`` exp enclosures per attention sublayer.

>>> from symrel.models.sequence import SequenceTransformer
>>> m = SequenceTransformer(tokens=["BOS", "a"], bos="BOS", token_embedding=[[1], [2]],
...     position_embedding=[[0], [0]], layers=[], unembedding=[[1]], output="numerical")
>>> e = enclose(m, ["a"], exp_bounds=None)   # no attention: exp is never called
>>> e.interval(0, 0) == (2, 2)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..exact import Q, Rational, denominator, numerator
from .sequence import label_key

#: fixed-point bits of the enclosure (end points are integers over 2^BITS)
BITS = 64
#: bits of the exp enclosures' relative precision
EXP_BITS = 64
#: exp arguments are rounded outward to multiples of 2^-EXP_GRID
EXP_GRID = 40


@dataclass(frozen=True)
class Enclosure:
    """Output-score intervals at the input positions: ``lo[p][i] / 2^bits <= score <= hi[p][i] / 2^bits``."""

    bits: int
    lo: tuple
    hi: tuple

    def interval(self, p: int, i: int) -> tuple[Rational, Rational]:
        d = 1 << self.bits
        return Q(self.lo[p][i], d), Q(self.hi[p][i], d)

    def decode(self, p: int, labels):
        """The label whose score is certainly the largest at position p, or None."""
        row_lo, row_hi = self.lo[p], self.hi[p]
        for i, a in enumerate(row_lo):
            if all(a > b for j, b in enumerate(row_hi) if j != i):
                return labels[i]
        return None

    def certainly_not(self, p: int, i: int) -> bool:
        """Whether some other score certainly exceeds score i at position p."""
        return any(a > self.hi[p][i] for j, a in enumerate(self.lo[p]) if j != i)

    def to_json(self) -> dict:
        return {"bits": self.bits, "lo": [list(r) for r in self.lo], "hi": [list(r) for r in self.hi]}


def _floor(q: Rational, shift: int) -> int:
    return (numerator(q) << shift) // denominator(q)


def _ceil(q: Rational, shift: int) -> int:
    return -((-numerator(q) << shift) // denominator(q))


def _scale_of(values) -> int:
    """The least S with every value a multiple of 2^-S, capped at 64 bits beyond the largest power."""
    s = 0
    for v in values:
        d = denominator(v)
        if d & (d - 1):  # not dyadic: no exact scale; use a generous one
            return 96
        s = max(s, d.bit_length() - 1)
    return s


def _fixed_matrix(M, bits: int):
    """``(S, rows, bias_scale)``: rows of ``(j, lo, hi)`` integer weights at scale 2^S."""
    S = _scale_of(v for r in M for v in r)
    rows_ = [[(j, _floor(v, S), _ceil(v, S)) for j, v in enumerate(r) if v] for r in M]
    return S, rows_


def _fixed_bias(b, S: int, bits: int):
    return [(_floor(v, S + bits), _ceil(v, S + bits)) for v in b]


class _Fixed:
    """The model's weights as integers (cached per model and bits)."""

    def __init__(self, model, bits: int):
        self.bits = bits
        self.tok = [[(_floor(v, bits), _ceil(v, bits)) for v in r] for r in model.exact_token_embedding]
        self.pos = [[(_floor(v, bits), _ceil(v, bits)) for v in r] for r in model.exact_position_embedding]
        self.layers = []
        for layer in model.layers:
            att = mlp = None
            if layer.attention is not None:
                a = layer.attention
                heads = []
                for h in a.heads:
                    mats = []
                    for M, b in ((h.exact_WQ, h.exact_bQ), (h.exact_WK, h.exact_bK), (h.exact_WV, h.exact_bV), (h.exact_WO, None)):
                        S, rows_ = _fixed_matrix(M, bits)
                        mats.append((S, rows_, _fixed_bias(b if b is not None else [0] * len(M), S, bits)))
                    heads.append(mats)
                att = (heads, [(_floor(v, bits), _ceil(v, bits)) for v in a.exact_bO], a.exact_scale)
            if layer.mlp is not None:
                f = layer.mlp
                S1, r1 = _fixed_matrix(f.exact_W1, bits)
                S2, r2 = _fixed_matrix(f.exact_W2, bits)
                mlp = ((S1, r1, _fixed_bias(f.exact_b1, S1, bits)), (S2, r2, _fixed_bias(f.exact_b2, S2, bits)))
            self.layers.append((att, mlp))
        S, rows_ = _fixed_matrix(model.exact_unembedding, bits)
        self.unembed = (S, rows_, [(0, 0)] * len(rows_))


def _fixed(model, bits: int) -> _Fixed:
    cache = model.__dict__.setdefault("_fixed_cache", {})
    if bits not in cache:
        cache[bits] = _Fixed(model, bits)
    return cache[bits]


def _affine(mat, x):
    """Interval ``W x + b`` for ``mat = (S, rows, bias)`` and ``x = (lo, hi)`` lists."""
    S, rows_, bias = mat
    xl, xh = x
    out_l, out_h = [], []
    for row, (lo, hi) in zip(rows_, bias):
        for j, wl, wh in row:
            a, c = xl[j], xh[j]
            if not (a or c):
                continue
            if wl == wh:
                if wl >= 0:
                    lo += wl * a
                    hi += wl * c
                else:
                    lo += wl * c
                    hi += wl * a
            else:
                ps = (wl * a, wl * c, wh * a, wh * c)
                lo += min(ps)
                hi += max(ps)
        out_l.append(lo >> S)
        out_h.append(-((-hi) >> S))
    return out_l, out_h


def _dot(q, k, bits: int):
    """Interval ``q . k`` (both at scale 2^bits), at scale 2^(2 bits)."""
    lo = hi = 0
    for a, b, c, d in zip(q[0], q[1], k[0], k[1]):
        if a == b and c == d:
            lo += a * c
            hi += a * c
            continue
        ps = (a * c, a * d, b * c, b * d)
        lo += min(ps)
        hi += max(ps)
    return lo, hi


@lru_cache(maxsize=1 << 16)
def _exp(exp_bounds, num: int, den: int):
    """``exp_bounds(num/den)``, cached: the logits of the first layers recur across inputs."""
    return exp_bounds(Q(num, den), EXP_BITS)


def _softmax_weights(logits, exp_bounds, bits: int):
    """Enclosures of the softmax weights of interval logits (scale 2^bits)."""
    top = max(h for _, h in logits)
    drop = bits - EXP_GRID
    grid = 1 << EXP_GRID
    e_lo, e_hi = [], []
    for lo, hi in logits:
        a, b = lo - top, hi - top
        if drop > 0:
            a, b = a >> drop, -((-b) >> drop)
            den = grid
        else:
            den = 1 << bits
        e_lo.append(_exp(exp_bounds, a, den)[0])
        e_hi.append(_exp(exp_bounds, b, den)[1])
    total_lo, total_hi = sum(e_lo, Q(0)), sum(e_hi, Q(0))
    weights = []
    for el, eh in zip(e_lo, e_hi):
        wl = el / (el + total_hi - eh) if el else Q(0)
        rest = eh + total_lo - el
        wh = eh / rest if rest else Q(1)
        weights.append((_floor(wl, bits), min(_ceil(wh, bits), 1 << bits)))
    return weights


def _mix(weights, values, bits: int):
    """Interval ``sum_s w_s v_s`` with ``0 <= w_s``, at scale 2^bits."""
    k = len(values[0][0])
    out_l, out_h = [0] * k, [0] * k
    for (wl, wh), (vl, vh) in zip(weights, values):
        for i in range(k):
            a, b = vl[i], vh[i]
            out_l[i] += wl * a if a >= 0 else wh * a
            out_h[i] += wh * b if b >= 0 else wl * b
    return [v >> bits for v in out_l], [-((-v) >> bits) for v in out_h]


def enclose(model, seq, exp_bounds, *, factor=1, bits: int = BITS) -> Enclosure:
    """The softmax output scores of ``model`` on ``BOS seq`` at logit factor ``factor``,
    enclosed (module docstring). ``exp_bounds(a, bits) -> (lo, hi)`` encloses ``exp(a)``."""
    F = _fixed(model, bits)
    factor = Q(factor) if not Q.of_type(factor) else factor
    model.exact_embed(seq)  # validates the input
    idx = [model._index[label_key(t)] for t in [model.bos, *seq]]
    Z = []
    for p, i in enumerate(idx):
        Z.append(([a + c for (a, _), (c, _) in zip(F.tok[i], F.pos[p])],
                  [b + d for (_, b), (_, d) in zip(F.tok[i], F.pos[p])]))
    T = len(Z)
    for att, mlp in F.layers:
        if att is not None:
            heads, bO, scale = att
            c = scale * factor
            cn, cd = numerator(c), denominator(c) << bits
            new = [([a + o for a, (o, _) in zip(zl, bO)], [b + o for b, (_, o) in zip(zh, bO)]) for zl, zh in Z]
            for WQ, WK, WV, WO in heads:
                Qs = [_affine(WQ, z) for z in Z]
                Ks = [_affine(WK, z) for z in Z]
                Vs = [_affine(WV, z) for z in Z]
                for t in range(T):
                    keys = model.keys_of(t, T)
                    logits = []
                    for s in keys:
                        lo, hi = _dot(Qs[t], Ks[s], bits)
                        logits.append(((lo * cn) // cd, -((-hi * cn) // cd)))
                    w = _softmax_weights(logits, exp_bounds, bits)
                    add = _affine(WO, _mix(w, [Vs[s] for s in keys], bits))
                    nl, nh = new[t]
                    new[t] = ([a + b for a, b in zip(nl, add[0])], [a + b for a, b in zip(nh, add[1])])
            Z = new
        if mlp is not None:
            W1, W2 = mlp
            out = []
            for z in Z:
                hl, hh = _affine(W1, z)
                d = _affine(W2, ([v if v > 0 else 0 for v in hl], [v if v > 0 else 0 for v in hh]))
                out.append(([a + b for a, b in zip(z[0], d[0])], [a + b for a, b in zip(z[1], d[1])]))
            Z = out
    lo, hi = [], []
    for z in Z[1:]:
        a, b = _affine(F.unembed, z)
        lo.append(tuple(a))
        hi.append(tuple(b))
    return Enclosure(bits, tuple(lo), tuple(hi))
