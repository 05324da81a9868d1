"""Sequence Transformers over a token vocabulary, evaluated exactly (THEORY.md section 8).

The model reads ``BOS t_1 .. t_n`` (``n <= max_seq_len``), so ``T = n + 1`` positions.
Position p's residual vector starts at ``token_embedding[t_p] + position_embedding[p]``
(position 0 holds BOS). Each layer applies, with a residual each,

* multi-head attention: head h has ``q = WQ z + bQ``, ``k = WK z + bK``, ``v = WV z + bV``;
  the logit of key s for query t is ``scale * q_t . k_s`` (only ``s <= t`` when
  ``causal``); the weights are hardmax (average over the argmax set) or
  ``softmax`` of the logits; the sublayer adds ``sum_h WO_h (sum_s w_s v_s) + bO`` to
  every position;
* a ReLU MLP: ``z + W2 ReLU(W1 z + b1) + b2``.

The output at position p is ``U z_p``; a ``categorical`` output decodes to the label of
its unique largest entry, a ``numerical`` one (``U`` with one row) is the number itself.
Vectors are plain lists of exact rationals (token-major) and matrices are stored with
their nonzeros per row, because compiled models are sparse: the exact hardmax
evaluation of one input costs ``O(L T (nnz + H T k))`` rational operations.

>>> m = SequenceTransformer(
...     tokens=["BOS", "a", "b"], bos="BOS",
...     token_embedding=[[0, 0, 1], [1, 0, 1], [0, 1, 1]],
...     position_embedding=[[0, 0, 0], [0, 0, 0], [0, 0, 0]],
...     layers=[], unembedding=[[1, 0, 0], [0, 1, 0]],
...     output="categorical", output_labels=["x", "y"])
>>> m.decode(["a", "b"])
['x', 'y']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence


from ..errors import DimensionError, InputError
from ..exact import PublicView, Q, Rational, rational, sparse_rows, to_public
from .base import check_dim, require_seq

if TYPE_CHECKING:  # sympy is the public number type, loaded only when a view is made
    import sympy

ZERO = Q(0)
OUTPUT_KINDS = ("categorical", "numerical")


def _matrix(rows_, path: str, shape=(None, None)) -> list[list[Rational]]:
    require_seq(rows_, "rows", path)
    out = []
    for i, r in enumerate(rows_):
        require_seq(r, "numbers", f"{path}[{i}]")
        out.append([rational(v, path=f"{path}[{i}][{j}]") for j, v in enumerate(r)])
    n, m = shape
    if n is not None and len(out) != n:
        raise DimensionError(f"expected {n} rows, got {len(out)}", path=path)
    width = m if m is not None else (len(out[0]) if out else 0)
    for i, r in enumerate(out):
        if len(r) != width:
            raise DimensionError(f"expected {width} columns, got {len(r)}", path=f"{path}[{i}]")
    return out


def _vector(v, path: str, length: int | None) -> list[Rational]:
    if v is None:
        return [ZERO] * (length or 0)
    require_seq(v, "numbers", path)
    out = [rational(x, path=f"{path}[{j}]") for j, x in enumerate(v)]
    if length is not None and len(out) != length:
        raise DimensionError(f"expected {length} numbers, got {len(out)}", path=path)
    return out


def affine(sparse, b: list[Rational], x: list[Rational]) -> list[Rational]:
    """``M x + b`` for ``M`` given by :func:`sparse_rows`."""
    out = []
    for row, bi in zip(sparse, b):
        acc = bi
        for j, v in row:
            xj = x[j]
            if xj:  # residual streams are mostly zero (one-hot encodings)
                acc += v * xj
        out.append(acc)
    return out


class SequenceHead:
    """One attention head: ``WQ, WK`` (``k x m``), ``WV`` (``k_v x m``), ``WO`` (``m x k_v``), biases.

    The matrices read as ``sympy.ImmutableMatrix`` of Rationals and the biases as lists of
    Rationals; the ``exact_`` names hold the inner rows of ``QQ`` (:mod:`symrel.exact.public`)."""

    WQ, WK, WV, WO = (PublicView(as_matrix=True) for _ in range(4))
    bQ, bK, bV = PublicView(), PublicView(), PublicView()

    def __init__(self, WQ, WK, WV, WO, bQ=None, bK=None, bV=None, *, width: int, path: str = "head"):
        self.exact_WQ = _matrix(WQ, f"{path}.WQ", (None, width))
        self.exact_WK = _matrix(WK, f"{path}.WK", (len(self.exact_WQ), width))
        self.exact_WV = _matrix(WV, f"{path}.WV", (None, width))
        self.exact_WO = _matrix(WO, f"{path}.WO", (width, len(self.exact_WV)))
        self.exact_bQ = _vector(bQ, f"{path}.bQ", len(self.exact_WQ))
        self.exact_bK = _vector(bK, f"{path}.bK", len(self.exact_WK))
        self.exact_bV = _vector(bV, f"{path}.bV", len(self.exact_WV))
        self._q, self._k, self._v, self._o = (sparse_rows(M) for M in (self.exact_WQ, self.exact_WK, self.exact_WV, self.exact_WO))

    def project(self, Z):
        """Queries, keys and values of every position."""
        return ([affine(self._q, self.exact_bQ, z) for z in Z], [affine(self._k, self.exact_bK, z) for z in Z],
                [affine(self._v, self.exact_bV, z) for z in Z])

    def write(self, mix: list[Rational]) -> list[Rational]:
        """``WO mix``: what the head adds to a position whose value mixture is ``mix``."""
        return affine(self._o, [ZERO] * len(self.exact_WO), mix)

    def data(self):
        """``(WQ, WK, WV, WO, bQ, bK, bV)`` as sympy matrices and lists."""
        return (self.WQ, self.WK, self.WV, self.WO, self.bQ, self.bK, self.bV)

    def exact_data(self):
        """:meth:`data` as the inner rows and lists of ``QQ``."""
        return (self.exact_WQ, self.exact_WK, self.exact_WV, self.exact_WO, self.exact_bQ, self.exact_bK, self.exact_bV)

    def __eq__(self, other):
        return isinstance(other, SequenceHead) and self.exact_data() == other.exact_data()


class SequenceAttention:
    """Heads reading the same residual stream, the output bias ``bO`` and the logit ``scale``
    (sympy Rationals; ``exact_bO``, ``exact_scale`` in ``QQ``)."""

    bO, scale = PublicView(), PublicView()

    def __init__(self, heads: Sequence[SequenceHead], bO=None, scale=1, *, width: int, path: str = "attention"):
        require_seq(heads, "heads", f"{path}.heads", min_len=1)
        self.heads = list(heads)
        self.exact_bO = _vector(bO, f"{path}.bO", width)
        self.exact_scale = rational(scale, path=f"{path}.scale")
        if self.exact_scale <= 0:
            raise InputError(f"expected a positive logit scale, got {self.exact_scale}", path=f"{path}.scale")

    def __eq__(self, other):
        return isinstance(other, SequenceAttention) and (self.heads, self.exact_bO, self.exact_scale) == (other.heads, other.exact_bO, other.exact_scale)


class SequenceMLP:
    """``z -> z + W2 ReLU(W1 z + b1) + b2`` at every position (``W1``, ``W2`` read as
    ``sympy.ImmutableMatrix``, ``b1``, ``b2`` as lists of Rationals; the ``exact_`` names in ``QQ``)."""

    W1, W2 = PublicView(as_matrix=True), PublicView(as_matrix=True)
    b1, b2 = PublicView(), PublicView()

    def __init__(self, W1, b1, W2, b2, *, width: int, path: str = "mlp"):
        self.exact_W1 = _matrix(W1, f"{path}.W1", (None, width))
        self.exact_b1 = _vector(b1, f"{path}.b1", len(self.exact_W1))
        self.exact_W2 = _matrix(W2, f"{path}.W2", (width, len(self.exact_W1)))
        self.exact_b2 = _vector(b2, f"{path}.b2", width)
        self._1, self._2 = sparse_rows(self.exact_W1), sparse_rows(self.exact_W2)

    def apply(self, z: list[Rational]) -> list[Rational]:
        h = [v if v > 0 else ZERO for v in affine(self._1, self.exact_b1, z)]
        return [a + b for a, b in zip(z, affine(self._2, self.exact_b2, h))]

    def __eq__(self, other):
        return isinstance(other, SequenceMLP) and (self.exact_W1, self.exact_b1, self.exact_W2, self.exact_b2) == (other.exact_W1, other.exact_b1, other.exact_W2, other.exact_b2)


class SequenceLayer:
    """An attention sublayer (or None), then an MLP (or None)."""

    def __init__(self, attention: SequenceAttention | None = None, mlp: SequenceMLP | None = None):
        self.attention, self.mlp = attention, mlp

    def __eq__(self, other):
        return isinstance(other, SequenceLayer) and (self.attention, self.mlp) == (other.attention, other.mlp)


def hardmax_mix(logits: list[Rational], values: list[list[Rational]]) -> list[Rational]:
    """The average of ``values[s]`` over the argmax set of ``logits``."""
    top = max(logits)
    winners = [s for s, x in enumerate(logits) if x == top]
    w = Q(1, len(winners))
    return [w * sum((values[s][i] for s in winners), ZERO) for i in range(len(values[0]))]


class SequenceTransformer:
    """A Transformer on token sequences (``kind: "sequence-transformer"``, docs/format.md).

    ``token_embedding`` (a row per token), ``position_embedding`` (a row per position) and
    ``unembedding`` read as ``sympy.ImmutableMatrix``; the ``exact_`` names hold the rows in ``QQ``."""

    kind = "sequence-transformer"
    token_embedding, position_embedding, unembedding = (PublicView(as_matrix=True) for _ in range(3))

    def __init__(self, *, tokens, bos, token_embedding, position_embedding, layers, unembedding,
                 output: str = "categorical", output_labels=None, causal: bool = False, notes=(), path: str = ""):
        p = f"{path}." if path else ""
        require_seq(tokens, "tokens", f"{p}tokens", min_len=1)
        self.tokens = list(tokens)
        if len(set(map(label_key, self.tokens))) != len(self.tokens):
            raise InputError("expected distinct tokens", path=f"{p}tokens")
        if label_key(bos) not in set(map(label_key, self.tokens)):
            raise InputError(f"expected the BOS token {bos!r} among the tokens", path=f"{p}bos")
        self.bos = bos
        self.exact_token_embedding = _matrix(token_embedding, f"{p}token_embedding", (len(self.tokens), None))
        self.width = check_dim(len(self.exact_token_embedding[0]), "the residual width", f"{p}token_embedding[0]")
        self.exact_position_embedding = _matrix(position_embedding, f"{p}position_embedding", (None, self.width))
        if len(self.exact_position_embedding) < 2:
            raise InputError("expected at least 2 position rows (BOS and one token)", path=f"{p}position_embedding")
        self.max_seq_len = len(self.exact_position_embedding) - 1
        require_seq(layers, "layers", f"{p}layers")
        self.layers = list(layers)
        for i, layer in enumerate(self.layers):
            if not isinstance(layer, SequenceLayer):
                raise InputError("expected a SequenceLayer", path=f"{p}layers[{i}]")
        self.exact_unembedding = _matrix(unembedding, f"{p}unembedding", (None, self.width))
        if output not in OUTPUT_KINDS:
            raise InputError(f"expected output 'categorical' or 'numerical', got {output!r}", path=f"{p}output")
        self.output = output
        if output == "categorical":
            require_seq(output_labels, "output labels", f"{p}output_labels", min_len=1)
            if len(output_labels) != len(self.exact_unembedding):
                raise DimensionError(f"expected {len(self.exact_unembedding)} output labels (one per unembedding row), "
                                     f"got {len(output_labels)}", path=f"{p}output_labels")
            self.output_labels = list(output_labels)
        else:
            if len(self.exact_unembedding) != 1:
                raise DimensionError("expected one unembedding row for a numerical output", path=f"{p}unembedding")
            self.output_labels = None
        self.causal = bool(causal)
        self.notes = [str(n) for n in notes]
        self._index = {label_key(t): i for i, t in enumerate(self.tokens)}
        self._unembed = sparse_rows(self.exact_unembedding)

    # -- evaluation ---------------------------------------------------------------
    def embed(self, seq: Sequence) -> list[list[sympy.Rational]]:
        """The residual vectors of ``BOS seq`` (one list per position), in sympy Rationals."""
        return to_public(self.exact_embed(seq))

    def exact_embed(self, seq: Sequence) -> list[list[Rational]]:
        """:meth:`embed` in ``QQ``."""
        if not 1 <= len(seq) <= self.max_seq_len:
            raise InputError(f"expected 1 to {self.max_seq_len} tokens, got {len(seq)}", path="input")
        Z = []
        for p, t in enumerate([self.bos, *seq]):
            i = self._index.get(label_key(t))
            if i is None or (p > 0 and label_key(t) == label_key(self.bos)):
                raise InputError(f"expected a token of the vocabulary, got {t!r}", path=f"input[{p - 1}]")
            Z.append([a + b for a, b in zip(self.exact_token_embedding[i], self.exact_position_embedding[p])])
        return Z

    def keys_of(self, t: int, T: int) -> range:
        """The key positions query t attends to."""
        return range(t + 1) if self.causal else range(T)

    def residuals(self, seq: Sequence) -> list[list[list[sympy.Rational]]]:
        """The residual stream after the embedding and after every sublayer (hardmax), in
        sympy Rationals."""
        return to_public(self.exact_residuals(seq))

    def exact_residuals(self, seq: Sequence) -> list[list[list[Rational]]]:
        """:meth:`residuals` in ``QQ``."""
        Z = self.exact_embed(seq)
        out = [Z]
        T = len(Z)
        for layer in self.layers:
            att = layer.attention
            if att is not None:
                new = [[a + b for a, b in zip(z, att.exact_bO)] for z in Z]
                for head in att.heads:
                    Qs, Ks, Vs = head.project(Z)
                    for t in range(T):
                        keys = self.keys_of(t, T)
                        logits = [sum((a * b for a, b in zip(Qs[t], Ks[s])), ZERO) for s in keys]
                        add = head.write(hardmax_mix(logits, [Vs[s] for s in keys]))
                        new[t] = [a + b for a, b in zip(new[t], add)]
                Z = new
                out.append(Z)
            if layer.mlp is not None:
                Z = [layer.mlp.apply(z) for z in Z]
                out.append(Z)
        return out

    def scores(self, seq: Sequence) -> list[list[sympy.Rational]]:
        """The exact hardmax output scores ``U z_p`` at the input positions 1..n (sympy Rationals)."""
        return to_public(self.exact_scores(seq))

    def exact_scores(self, seq: Sequence) -> list[list[Rational]]:
        """:meth:`scores` in ``QQ``."""
        Z = self.exact_residuals(seq)[-1]
        zero = [ZERO] * len(self.exact_unembedding)
        return [affine(self._unembed, zero, z) for z in Z[1:]]

    def decode_scores(self, scores: list[Rational]):
        """A categorical output's label (a :class:`Tie` when the maximum is not unique)
        or a numerical output's number."""
        if self.output == "numerical":
            return scores[0]
        top = max(scores)
        winners = [i for i, s in enumerate(scores) if s == top]
        if len(winners) > 1:
            return Tie(tuple(self.output_labels[i] for i in winners))
        return self.output_labels[winners[0]]

    def decode(self, seq: Sequence) -> list:
        """The hardmax model's decoded output at every input position."""
        return to_public([self.decode_scores(s) for s in self.exact_scores(seq)])

    # -- sizes ----------------------------------------------------------------------
    def sizes(self) -> dict:
        heads = [len(l.attention.heads) for l in self.layers if l.attention is not None]
        hidden = [len(l.mlp.exact_W1) for l in self.layers if l.mlp is not None]
        return {"kind": self.kind, "width": self.width, "max_seq_len": self.max_seq_len, "tokens": len(self.tokens),
                "layers": len(self.layers), "attention_sublayers": len(heads), "heads": sum(heads),
                "mlp_sublayers": len(hidden), "mlp_hidden": hidden, "outputs": len(self.exact_unembedding),
                "output": self.output, "causal": self.causal}

    def __eq__(self, other):
        return isinstance(other, SequenceTransformer) and (
            self.tokens, label_key(self.bos), self.exact_token_embedding, self.exact_position_embedding, self.layers,
            self.exact_unembedding, self.output, self.output_labels, self.causal,
        ) == (other.tokens, label_key(other.bos), other.exact_token_embedding, other.exact_position_embedding, other.layers,
              other.exact_unembedding, other.output, other.output_labels, other.causal)

    def __repr__(self):
        return (f"SequenceTransformer(width={self.width}, layers={len(self.layers)}, "
                f"max_seq_len={self.max_seq_len}, output={self.output!r})")


class Tie(tuple):
    """The labels tied for the largest output score: no unique decoding."""

    def __repr__(self):
        return f"Tie{tuple(self)!r}"


def label_key(label):
    """Labels compare by type and value (so ``1``, ``True`` and ``1.0`` stay apart)."""
    return (type(label).__name__, label)


def all_sequences(vocab: Sequence, max_seq_len: int):
    """Every sequence of length 1..max_seq_len over ``vocab``, shorter first, then in
    lexicographic order of ``vocab``'s order: ``sum_n |V|^n`` of them.

    >>> list(all_sequences(["a", "b"], 2))
    [('a',), ('b',), ('a', 'a'), ('a', 'b'), ('b', 'a'), ('b', 'b')]
    """
    import itertools

    for n in range(1, max_seq_len + 1):
        yield from itertools.product(vocab, repeat=n)


def count_sequences(vocab_size: int, max_seq_len: int) -> int:
    """``sum_{n=1..N} |V|^n``."""
    return sum(vocab_size**n for n in range(1, max_seq_len + 1))
