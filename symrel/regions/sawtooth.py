"""The depth family of docs/theory.md#linear-regions-theorem-44: composed sawtooth selection heads.

A *sawtooth selection head* on [0,1] with k piece-tokens: token t = 1..k has
score ``2 c_t u - c_t^2`` with ``c_t = (2t-1)/(2k)`` (so the nearest centre
wins) and value ``k u - (t-1)`` (t odd) or ``t - k u`` (t even); the carrier,
token 0, has centre ``c_0 = -1``, so its score ``-2u - 1`` is below all others
on [0,1]. The selected value is the sawtooth ``s(u)``, which maps each of
``[(t-1)/k, t/k]`` onto [0,1]; composing L layers gives ``k^L`` pieces, and
acting on q coordinates independently ``k^(qL)`` regions of ``[0,1]^q``.

symrel construction (the paper's own matrices are not available): T = k + 1
tokens, columns ``[X (q) | P (T, one-hot position) | C (1) | V (q per layer)]``.
Each layer is two blocks:

1. feed-forward only: hidden unit (coordinate i, piece j)
   ``ReLU((alpha_j - 1) X_i + 2B P_j + (beta_j - B) C)`` with ``B = k + 1``
   equals ``v_j(u) - u + B`` at token j and 0 at every other token (as block 1
   of docs/theory.md#maxout-layer--three-transformer-blocks-theorems-31-and-32), so ``V_i += sum_j (.) - B`` holds ``v_t(u) - u`` at
   piece token t;
2. attention only: head i has query ``(X_i, C)``, key ``(sum_t 2c_t P_t,
   -sum_t c_t^2 P_t)``, value ``V_i`` written into ``X_i``, so
   ``X_i <- u + (v_t(u) - u) = s(u)`` on every token.

Each layer uses fresh V slots, so nothing needs clearing. Read-out: ``X`` of
the carrier. Ties (u = t/k) average two equal values, so the model is
continuous.

>>> tf = sawtooth_transformer(2, 2)
>>> [str(tf([x])[0]) for x in ("0", "1/8", "1/4", "3/8", "1/2")]
['0', '1/2', '1', '1/2', '0']
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import Q
from ..models import Attention, AttentionHead, Block, Embedding, FeedForward, Readout, Transformer


def sawtooth_function_values(k: int, t: int):
    """``(alpha, beta)`` with ``v_t(u) = alpha u + beta``."""
    return (Q(k), Q(-(t - 1))) if t % 2 == 1 else (Q(-k), Q(t))


def sawtooth_transformer(k: int, L: int, q: int = 1) -> Transformer:
    """The hardmax Transformer composing L sawtooth selection layers on q coordinates.

    ``k >= 2`` pieces per layer (``T = k + 1`` tokens), ``L >= 1`` layers,
    ``q >= 1`` coordinates. It has ``2 L`` blocks and ``k^(qL)`` linear regions on
    ``[0,1]^q`` (counted exactly in the tests).
    """
    for name, v, lo in (("k", k, 2), ("L", L, 1), ("q", q, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise InputError(f"expected an integer >= {lo}", path=name)
    T = k + 1
    X, P, C = 0, q, q + T
    V0 = q + T + 1
    m = V0 + q * L
    B = Q(k + 1)
    centres = [Q(-1)] + [Q(2 * t - 1, 2 * k) for t in range(1, T)]

    offsets = []
    for t in range(T):
        col = [Q(0)] * m
        col[P + t] = Q(1)
        col[C] = Q(1)
        offsets.append(col)
    embedding = Embedding(list(range(q)), offsets, width=m, tokens=T)

    blocks = []
    for layer in range(L):
        # block 1: the per-token values v_t(u) - u into fresh slots V[layer]
        W1, b1 = [], []
        W2 = [[Q(0)] * (q * k) for _ in range(m)]
        b2 = [Q(0)] * m
        for i in range(q):
            for j in range(1, T):
                alpha, beta = sawtooth_function_values(k, j)
                row = [Q(0)] * m
                row[X + i] = alpha - 1
                row[P + j] = 2 * B
                row[C] = beta - B
                W1.append(row)
                b1.append(Q(0))
                W2[V0 + layer * q + i][len(W1) - 1] = Q(1)
            b2[V0 + layer * q + i] = -B
        blocks.append(Block(None, FeedForward(W1, b1, W2, b2, width=m)))
        # block 2: one selection head per coordinate
        heads = []
        for i in range(q):
            WQ = [[Q(0)] * m for _ in range(2)]
            WQ[0][X + i] = Q(1)
            WQ[1][C] = Q(1)
            WK = [[Q(0)] * m for _ in range(2)]
            for t in range(T):
                WK[0][P + t] = 2 * centres[t]
                WK[1][P + t] = -centres[t] ** 2
            WV = [[Q(0)] * m]
            WV[0][V0 + layer * q + i] = Q(1)
            WO = [[Q(0)] for _ in range(m)]
            WO[X + i][0] = Q(1)
            heads.append(AttentionHead(WQ, WK, WV, WO, width=m))
        blocks.append(Block(Attention(heads, "hardmax"), None))
    readout_W = [[Q(1) if c == X + i else Q(0) for c in range(m)] for i in range(q)]
    readout = Readout(0, readout_W, [Q(0)] * q, width=m, tokens=T)
    return Transformer(q, m, T, embedding, blocks, readout)


def depth_table(rows_kLq, count=None) -> list[dict]:
    """Exact region counts of the family beside ``k^(qL)`` and the growth form
    ``(T-1)^(q(floor(D/3)-1))`` of the German summary, at ``D = 3L`` blocks as
    docs/theory.md counts them (three blocks per layer; this builder uses two), with
    the implied constant ``C = exact / (T-1)^(q(floor(D/3)-1))``.

    >>> [r["exact"] for r in depth_table([(2, 1, 1), (3, 1, 1)])]
    [2, 3]
    """
    from ..models import Box
    from .count import count_regions

    out = []
    for k, L, q in rows_kLq:
        tf = sawtooth_transformer(k, L, q)
        res = count_regions(tf, Box([[0, 1]] * q)) if count is None else count(tf, Box([[0, 1]] * q))
        T, D = k + 1, 3 * L
        growth = (T - 1) ** (q * (D // 3 - 1))
        out.append({
            "k": k, "L": L, "q": q, "T": T, "blocks_built": len(tf.blocks), "D_theory": D,
            "exact": res.count, "k^(qL)": k ** (q * L), "(T-1)^(q(floor(D/3)-1))": growth,
            "implied_C": Q(res.count, growth), "seconds": round(res.seconds, 3),
        })
    return out
