"""The checker's own semantics and reader of Transformers (``kind: "transformer"``).

A Transformer of width m on T tokens maps ``x`` in R^d to R^k (docs/theory.md):

* the embedding: the state ``Z_0`` (m x T) is the offsets (given as T rows of m numbers)
  with ``x_i`` added to row ``input_rows[i]`` of every token's column;
* each block: an attention sublayer ``Z + sum_h W_O W_V Z A_h`` (then) a feed-forward
  sublayer ``Z + W_2 relu(W_1 Z + b_1) + b_2``, either absent; head h scores key s for query
  t as ``(W_K Z)_s . (W_Q Z)_t``; under ``hardmax`` the column t of ``A_h`` puts ``1/|M|``
  on the argmax set M of those scores, under ``softmax`` (with a positive ``scale``) the
  weights are ``exp(scale * score)`` normalised, which the checker never evaluates (a
  softmax-bound certificate bounds them, :mod:`symrel.checking.softmax`);
* the read-out ``W z + b`` of the column ``token`` of the last state.

The classes keep the names the checkers read (``exact_WQ``, ``exact_offsets`` as m rows of
T numbers, ``blocks``, ``readout.token``, ...; those of :mod:`symrel.models.transformer`), every
matrix as a list of rows and every bias as a list (no matrix class). The reader
checks what the file-format reader checks: every dimension against the width, the tokens
and the head sizes, row and token indices in range, a scale exactly for softmax attention,
and its sign; a refusal names the JSON path. Cost: one pass over the numbers.

>>> tf = READERS["transformer"]({"symrel": 1, "kind": "transformer", "input_dim": 1, "width": 1, "tokens": 1,
...     "embedding": {"input_rows": [0], "offsets": [[0]]}, "blocks": [],
...     "readout": {"token": 0, "W": [[2]], "b": [1]}}, "t")
>>> from symrel.exact import rational
>>> tf.output_dim, [str(v) for v in tf.evaluate_exact([rational(3)])]
(1, ['7'])
"""

from __future__ import annotations

from ..exact import Q
from . import MalformedCertificate
from . import read
from .inputs import listed, matrix, need, positive, record_of, vector
from .read import join

ZERO = Q(0)


def _matrix_of(obj, key, path, cols, rows_=None):
    """The matrix ``obj[key]`` over QQ (a list of rows): rows of ``cols`` numbers, ``rows_`` of them when given."""
    data = matrix(need(obj, key, path), join(path, key), cols=cols)
    if rows_ is not None and len(data) != rows_:
        raise MalformedCertificate(f"expected {rows_} rows, got {len(data)}", path=join(path, key))
    return data


def apply(M: list, x: list, b: list | None = None) -> list:
    """``M x (+ b)`` for the matrix ``M`` (a list of rows) and the vector ``x``."""
    out = [sum((a * v for a, v in zip(row, x) if a), ZERO) for row in M]
    return out if b is None else [v + c for v, c in zip(out, b)]


def columns(M: list, n: int) -> list:
    """The ``n`` columns of the matrix ``M`` (a list of rows of ``n`` entries), as lists."""
    return [[row[j] for row in M] for j in range(n)]


class Embedding:
    def __init__(self, input_rows: list, offsets):
        self.input_rows, self.exact_offsets = input_rows, offsets   # offsets: m rows of T numbers


class AttentionHead:
    def __init__(self, WQ, WK, WV, WO):
        self.exact_WQ, self.exact_WK, self.exact_WV, self.exact_WO = WQ, WK, WV, WO

    def exact_matrices(self) -> tuple:
        return self.exact_WQ, self.exact_WK, self.exact_WV, self.exact_WO


class Attention:
    def __init__(self, heads: list, rule: str, scale):
        self.heads, self.rule, self.exact_scale = heads, rule, scale


class FeedForward:
    """``z + W2 relu(W1 z + b1) + b2``: ``W1`` (hidden x width) and ``W2`` (width x hidden) lists
    of rows, ``b1`` and ``b2`` lists."""

    def __init__(self, W1, b1, W2, b2):
        self.exact_W1, self.exact_b1, self.exact_W2, self.exact_b2 = W1, b1, W2, b2
        self.width, self.hidden = len(W2), len(W1)

    def exact_matrices(self) -> tuple:
        return self.exact_W1, self.exact_b1, self.exact_W2, self.exact_b2


class Block:
    def __init__(self, attention: Attention | None, feedforward: FeedForward | None):
        self.attention, self.feedforward = attention, feedforward


class Readout:
    def __init__(self, token: int, W, b):
        self.token, self.exact_W, self.exact_b = token, W, b


class Transformer:
    """A hardmax or softmax Transformer (module docstring)."""

    kind = "transformer"

    def __init__(self, input_dim, width, tokens, embedding, blocks, readout, data):
        self.input_dim, self.width, self.tokens = input_dim, width, tokens
        self.embedding, self.blocks, self.readout = embedding, blocks, readout
        self.output_dim = len(readout.exact_W)
        self._data = data   # the numbers read, for equality

    def __eq__(self, other):
        return type(other) is Transformer and other._data == self._data

    __hash__ = None

    def num_parameters(self) -> int:
        """The numbers of the blocks' matrices and biases and of the read-out."""
        return sum(sum(len(r) if isinstance(r, list) else 1 for r in M) for block in self.blocks
                   for sub in (block.attention and block.attention.heads or []) + [block.feedforward] if sub is not None
                   for M in sub.exact_matrices()) + len(self.readout.exact_W) * (self.width + 1)

    def evaluate_exact(self, x) -> list:
        """The output at ``x`` under hardmax attention (a softmax block is refused: its weights
        are not rational). The state is one column of ``width`` numbers per token."""
        if len(x) != self.input_dim:
            raise ValueError(f"expected a point of {self.input_dim} coordinates, got {len(x)}")
        T = self.tokens
        Z = [[r[t] for r in self.embedding.exact_offsets] for t in range(T)]
        for xi, r in zip(x, self.embedding.input_rows):
            for z in Z:
                z[r] += xi
        for bi, block in enumerate(self.blocks):
            att = block.attention
            if att is not None:
                if att.rule != "hardmax":
                    raise MalformedCertificate("expected hardmax attention: a softmax block has no exact value",
                                               path=f"blocks[{bi}].attention.rule")
                out = [list(z) for z in Z]
                for head in att.heads:
                    K = [apply(head.exact_WK, z) for z in Z]
                    V = [apply(head.exact_WV, z) for z in Z]
                    for t in range(T):
                        q = apply(head.exact_WQ, Z[t])
                        S = [sum((a * b for a, b in zip(k, q)), ZERO) for k in K]
                        winners = [s for s in range(T) if S[s] == max(S)]
                        mean = [sum((V[s][i] for s in winners), ZERO) * Q(1, len(winners)) for i in range(len(V[0]))]
                        out[t] = [u + v for u, v in zip(out[t], apply(head.exact_WO, mean))]
                Z = out
            ff = block.feedforward
            if ff is not None:
                for t in range(T):
                    h = [v if v > ZERO else ZERO for v in apply(ff.exact_W1, Z[t], ff.exact_b1)]
                    Z[t] = [u + v for u, v in zip(Z[t], apply(ff.exact_W2, h, ff.exact_b2))]
        return apply(self.readout.exact_W, Z[self.readout.token], self.readout.exact_b)


def _attention(A, path: str, m: int) -> Attention:
    record_of(A, path, ("rule", "scale", "heads"))
    rule = read.string(need(A, "rule", path), join(path, "rule"), choices=("hardmax", "softmax"))
    scale = None
    if rule == "softmax":
        scale = read.rational(need(A, "scale", path), join(path, "scale"))
        if scale <= 0:
            raise MalformedCertificate(f"expected a positive scale, got {read.describe(A['scale'])}",
                                       path=join(path, "scale"))
    elif A.get("scale") is not None:
        raise MalformedCertificate("a hardmax sublayer takes no scale", path=join(path, "scale"))
    heads = []
    for hi, H in enumerate(listed(A, "heads", path)):
        hp = f"{path}.heads[{hi}]"
        record_of(H, hp, ("WQ", "WK", "WV", "WO"))
        WQ = _matrix_of(H, "WQ", hp, m)
        WK = _matrix_of(H, "WK", hp, m, len(WQ))
        WV = _matrix_of(H, "WV", hp, m)
        WO = _matrix_of(H, "WO", hp, len(WV), m)
        heads.append(AttentionHead(WQ, WK, WV, WO))
    return Attention(heads, rule, scale)


def _feedforward(F, path: str, m: int) -> FeedForward:
    record_of(F, path, ("W1", "b1", "W2", "b2"))
    W1 = _matrix_of(F, "W1", path, m)
    h = len(W1)
    b1 = vector(need(F, "b1", path), join(path, "b1"), h)
    W2 = _matrix_of(F, "W2", path, h, m)
    b2 = vector(need(F, "b2", path), join(path, "b2"), m)
    return FeedForward(W1, b1, W2, b2)


def _transformer(obj, path: str) -> Transformer:
    input_dim = positive(need(obj, "input_dim", path), join(path, "input_dim"))
    m = positive(need(obj, "width", path), join(path, "width"))
    T = positive(need(obj, "tokens", path), join(path, "tokens"))
    ep = join(path, "embedding")
    E = record_of(need(obj, "embedding", path), ep, ("input_rows", "offsets"))
    input_rows = read.array(need(E, "input_rows", ep), join(ep, "input_rows"), input_dim)
    input_rows = [read.index(r, m, f"{ep}.input_rows[{i}]") for i, r in enumerate(input_rows)]
    offsets = columns(_matrix_of(E, "offsets", ep, m, T), m)
    blocks = []
    for bi, B in enumerate(listed(obj, "blocks", path, min_len=0)):
        bp = f"{path}.blocks[{bi}]"
        record_of(B, bp, ("attention", "feedforward"))
        att = _attention(B["attention"], join(bp, "attention"), m) if B.get("attention") is not None else None
        ff = _feedforward(B["feedforward"], join(bp, "feedforward"), m) if B.get("feedforward") is not None else None
        blocks.append(Block(att, ff))
    rp = join(path, "readout")
    R = record_of(need(obj, "readout", path), rp, ("token", "W", "b"))
    token = read.index(need(R, "token", rp), T, join(rp, "token"))
    W = _matrix_of(R, "W", rp, m)
    b = vector(R["b"], join(rp, "b"), len(W)) if "b" in R else [ZERO] * len(W)
    layers = tuple((blk.attention and (blk.attention.rule, blk.attention.exact_scale,
                                       tuple(h.exact_matrices() for h in blk.attention.heads)),
                    blk.feedforward and blk.feedforward.exact_matrices()) for blk in blocks)
    data = (input_dim, m, T, tuple(input_rows), offsets, layers, token, W, b)
    return Transformer(input_dim, m, T, Embedding(input_rows, offsets), blocks, Readout(token, W, b), data)


READERS = {"transformer": _transformer}
