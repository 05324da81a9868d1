"""Small hand-built Transformers with a selection head, for tests, benchmarks and docs.

:func:`selection_transformer`: tokens 0..T-1, slots ``[X | P_0..P_(T-1) | C | O]``. One
attention head with query C and key ``delta P_0``: token 0 wins every query by the margin
``delta``. The value is ``X + sum_t v_t P_t``, written into O; the read-out is O at token 0.
Hardmax returns ``x + v_0``; softmax at lambda returns
``x + (v_0 + e^(-lambda delta) sum_{t>0} v_t) / (1 + (T-1) e^(-lambda delta))``.
With ``delta = 0`` every key is the same constant: hardmax and softmax both average all
tokens. With ``query_reads_x`` the query is X instead of C: token 0 wins where
``delta x > 0`` and the others tie where ``delta x < 0``, so on a box around 0 no key wins
by a margin (and hardmax jumps where softmax does not).

>>> T, D = selection_transformer()
>>> [str(v) for v in T(["1/2"])]
['1/2']
"""

from __future__ import annotations

from ..exact import Q, rational
from ..models import Attention, AttentionHead, Block, Box, Embedding, Readout, Transformer


def selection_transformer(delta=1, values=(0, 3, -2), box=((-1, 1),), query_reads_x=False):
    """The selection example of the module doc, with ``len(values)`` tokens, and its box."""
    delta = rational(delta, path="delta")
    n = len(values)
    m = n + 3  # X, P_0..P_(n-1), C, O
    X, C, O = 0, n + 1, n + 2
    P = lambda t: 1 + t
    e = lambda i: [Q(1) if j == i else Q(0) for j in range(m)]
    offsets = [[Q(1) if j in (P(t), C) else Q(0) for j in range(m)] for t in range(n)]
    WK = [[delta if j == P(0) else Q(0) for j in range(m)]]
    WV = [[Q(1) if j == X else (rational(values[j - 1]) if 1 <= j <= n else Q(0)) for j in range(m)]]
    WO = [[Q(1)] if i == O else [Q(0)] for i in range(m)]
    head = AttentionHead([e(X) if query_reads_x else e(C)], WK, WV, WO)
    T = Transformer(1, m, n, Embedding([X], offsets, width=m, tokens=n), [Block(Attention([head]), None)],
                    Readout(0, [e(O)], [0], width=m, tokens=n))
    return T, Box([list(b) for b in box])
