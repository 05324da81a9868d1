"""The checker's own semantics and reader of sequence Transformers (``kind:
"sequence-transformer"``, the models of tracr audits; docs/format.md, THEORY.md section 8).

The model reads ``BOS t_1 .. t_n`` (``1 <= n <= max_seq_len``, ``max_seq_len`` the number of
position rows minus one), so ``T = n + 1`` positions. Position p's residual vector starts at
``token_embedding[t_p] + position_embedding[p]``. Each layer applies, with a residual each,

* attention: head h has ``q = WQ z + bQ``, ``k = WK z + bK``, ``v = WV z + bV``; under
  hardmax, query t averages ``v_s`` over the argmax set of ``q_t . k_s`` among its keys (all
  positions, or ``s <= t`` when ``causal``); the sublayer adds ``sum_h WO_h mix_h + bO``;
  (the positive logit ``scale`` matters to the softmax enclosure only,
  :mod:`symrel.checking.softmax_enclosure`);
* an MLP ``z + W2 ReLU(W1 z + b1) + b2``.

The output at position p is ``U z_p``: a ``categorical`` output decodes to the label of its
unique largest entry (a :class:`Tie` otherwise), a ``numerical`` one (one row of ``U``) is
the number. Labels (tokens, outputs) are strings, integers, booleans, null or
``{"float": "p/q"}``, the exact value of a binary float; they compare by type and value
(:func:`label_key`). Matrices are lists of rows of ``QQ`` elements, applied by their
nonzeros. The reader checks what the file-format reader checks (the shapes against the
width and the head sizes, distinct tokens, the BOS among them, a positive scale, one label
per output row), naming the JSON path. Cost: ``O(L T (nnz + H T k))`` operations per input.

>>> m = READERS["sequence-transformer"]({"symrel": 1, "kind": "sequence-transformer", "tokens": ["BOS", "a", "b"],
...     "bos": "BOS", "token_embedding": [[0, 0], [1, 0], [0, 1]], "position_embedding": [[0, 0], [0, 0], [0, 0]],
...     "layers": [], "unembedding": [[1, 0], [0, 1]], "output": "categorical", "output_labels": ["x", "y"]}, "m")
>>> [m.decode_scores(s) for s in m.exact_scores(["a", "b"])], list(all_sequences(["a"], 2))
(['x', 'y'], [('a',), ('a', 'a')])
"""

from __future__ import annotations

import itertools

from ..exact import Q, to_fraction
from . import MalformedCertificate
from . import read
from .inputs import listed, matrix, need, record_of, vector
from .read import join

ZERO = Q(0)


class Tie(tuple):
    """The labels tied for the largest output score: no unique decoding."""

    def __repr__(self):
        return f"Tie{tuple(self)!r}"


def label_key(label):
    """Labels compare by type and value (so ``1``, ``True`` and ``1.0`` stay apart)."""
    return (type(label).__name__, label)


def label_from_json(obj, path: str):
    """The label ``obj`` stands for: a string, an integer, a boolean, None, or the binary float
    whose exact value ``{"float": "p/q"}`` is (any other rational is refused)."""
    if obj is None or type(obj) in (str, bool, int):
        return obj
    if type(obj) is dict and set(obj) == {"float"}:
        q = read.rational(obj["float"], join(path, "float"))
        try:
            f = float(to_fraction(q))
        except OverflowError:   # beyond the largest float: no float has this value
            f = None
        if f is None or Q(*f.as_integer_ratio()) != q:
            raise MalformedCertificate("expected the exact value of a binary float", path=join(path, "float"))
        return f
    raise read.refuse(path, 'a label: a string, integer, boolean, null or {"float": "p/q"}', obj)


def all_sequences(vocab, max_seq_len: int):
    """Every sequence of length 1..max_seq_len over ``vocab``, shorter first, then in
    lexicographic order of ``vocab``'s order: ``sum_n |V|^n`` of them."""
    for n in range(1, max_seq_len + 1):
        yield from itertools.product(vocab, repeat=n)


def _sparse(M) -> list:
    return [[(j, v) for j, v in enumerate(row) if v] for row in M]


def _affine(sparse, b, x) -> list:
    """``M x + b`` for ``M`` given by its nonzeros per row."""
    out = []
    for row, bi in zip(sparse, b):
        acc = bi
        for j, v in row:
            if x[j]:
                acc += v * x[j]
        out.append(acc)
    return out


class SequenceHead:
    def __init__(self, WQ, WK, WV, WO, bQ, bK, bV):
        self.exact_WQ, self.exact_WK, self.exact_WV, self.exact_WO = WQ, WK, WV, WO
        self.exact_bQ, self.exact_bK, self.exact_bV = bQ, bK, bV
        self._q, self._k, self._v, self._o = (_sparse(M) for M in (WQ, WK, WV, WO))

    def exact_data(self) -> tuple:
        return (self.exact_WQ, self.exact_WK, self.exact_WV, self.exact_WO, self.exact_bQ, self.exact_bK, self.exact_bV)


class SequenceAttention:
    def __init__(self, heads, bO, scale):
        self.heads, self.exact_bO, self.exact_scale = heads, bO, scale


class SequenceMLP:
    def __init__(self, W1, b1, W2, b2):
        self.exact_W1, self.exact_b1, self.exact_W2, self.exact_b2 = W1, b1, W2, b2
        self._1, self._2 = _sparse(W1), _sparse(W2)

    def apply(self, z) -> list:
        h = [v if v > 0 else ZERO for v in _affine(self._1, self.exact_b1, z)]
        return [a + b for a, b in zip(z, _affine(self._2, self.exact_b2, h))]


class SequenceLayer:
    def __init__(self, attention, mlp):
        self.attention, self.mlp = attention, mlp


class SequenceTransformer:
    """A Transformer on token sequences (module docstring)."""

    kind = "sequence-transformer"

    def __init__(self, tokens, bos, token_embedding, position_embedding, layers, unembedding, output, output_labels,
                 causal, data):
        self.tokens, self.bos, self.layers, self.output = tokens, bos, layers, output
        self.exact_token_embedding, self.exact_position_embedding = token_embedding, position_embedding
        self.exact_unembedding, self.output_labels, self.causal = unembedding, output_labels, causal
        self.width, self.max_seq_len = len(token_embedding[0]), len(position_embedding) - 1
        self._index = {label_key(t): i for i, t in enumerate(tokens)}
        self._unembed = _sparse(unembedding)
        self._data = data

    def __eq__(self, other):
        return type(other) is SequenceTransformer and other._data == self._data

    __hash__ = None

    def exact_embed(self, seq) -> list:
        """The residual vectors of ``BOS seq``; a sequence the model cannot read is refused."""
        if not 1 <= len(seq) <= self.max_seq_len:
            raise MalformedCertificate(f"expected 1 to {self.max_seq_len} tokens, got {len(seq)}", path="input")
        Z = []
        for p, t in enumerate([self.bos, *seq]):
            i = self._index.get(label_key(t))
            if i is None or (p > 0 and label_key(t) == label_key(self.bos)):
                raise MalformedCertificate(f"expected a token of the vocabulary, got {t!r}", path=f"input[{p - 1}]")
            Z.append([a + b for a, b in zip(self.exact_token_embedding[i], self.exact_position_embedding[p])])
        return Z

    def keys_of(self, t: int, T: int) -> range:
        """The key positions query t attends to."""
        return range(t + 1) if self.causal else range(T)

    def exact_scores(self, seq) -> list:
        """The hardmax output scores ``U z_p`` at the input positions 1..n."""
        Z = self.exact_embed(seq)
        T = len(Z)
        for layer in self.layers:
            att = layer.attention
            if att is not None:
                new = [[a + b for a, b in zip(z, att.exact_bO)] for z in Z]
                for head in att.heads:
                    Qs = [_affine(head._q, head.exact_bQ, z) for z in Z]
                    Ks = [_affine(head._k, head.exact_bK, z) for z in Z]
                    Vs = [_affine(head._v, head.exact_bV, z) for z in Z]
                    for t in range(T):
                        keys = self.keys_of(t, T)
                        logits = [sum((a * b for a, b in zip(Qs[t], Ks[s])), ZERO) for s in keys]
                        top = max(logits)
                        winners = [s for s, x in zip(keys, logits) if x == top]
                        w = Q(1, len(winners))
                        mix = [w * sum((Vs[s][i] for s in winners), ZERO) for i in range(len(head.exact_WV))]
                        add = _affine(head._o, [ZERO] * self.width, mix)
                        new[t] = [a + b for a, b in zip(new[t], add)]
                Z = new
            if layer.mlp is not None:
                Z = [layer.mlp.apply(z) for z in Z]
        zero = [ZERO] * len(self.exact_unembedding)
        return [_affine(self._unembed, zero, z) for z in Z[1:]]

    def decode_scores(self, scores: list):
        """A categorical output's label (a :class:`Tie` when the maximum is not unique), or a
        numerical output's number."""
        if self.output == "numerical":
            return scores[0]
        top = max(scores)
        winners = [i for i, s in enumerate(scores) if s == top]
        if len(winners) > 1:
            return Tie(tuple(self.output_labels[i] for i in winners))
        return self.output_labels[winners[0]]


def _rows(obj, key, path, cols=None, rows_=None) -> list:
    out = matrix(need(obj, key, path), join(path, key), cols=cols)
    if rows_ is not None and len(out) != rows_:
        raise MalformedCertificate(f"expected {rows_} rows, got {len(out)}", path=join(path, key))
    return out


def _bias(obj, key, path, length) -> list:
    return vector(obj[key], join(path, key), length) if key in obj else [ZERO] * length


def _head(H, hp, width) -> SequenceHead:
    record_of(H, hp, ("WQ", "WK", "WV", "WO", "bQ", "bK", "bV"))
    WQ = _rows(H, "WQ", hp, width)
    WK = _rows(H, "WK", hp, width, len(WQ))
    WV = _rows(H, "WV", hp, width)
    WO = _rows(H, "WO", hp, len(WV), width)
    return SequenceHead(WQ, WK, WV, WO, _bias(H, "bQ", hp, len(WQ)), _bias(H, "bK", hp, len(WK)),
                        _bias(H, "bV", hp, len(WV)))


def _sequence_transformer(obj, path: str) -> SequenceTransformer:
    tokens = [label_from_json(t, f"{path}.tokens[{i}]") for i, t in enumerate(listed(obj, "tokens", path))]
    if len(set(map(label_key, tokens))) != len(tokens):
        raise MalformedCertificate("expected distinct tokens", path=join(path, "tokens"))
    bos = label_from_json(need(obj, "bos", path), join(path, "bos"))
    if label_key(bos) not in set(map(label_key, tokens)):
        raise MalformedCertificate(f"expected the BOS token {bos!r} among the tokens", path=join(path, "bos"))
    causal = read.boolean(obj["causal"], join(path, "causal")) if "causal" in obj else False
    tok = _rows(obj, "token_embedding", path, rows_=len(tokens))
    if not tok[0]:
        raise MalformedCertificate("expected a non-empty embedding table", path=join(path, "token_embedding"))
    width = len(tok[0])
    pos = _rows(obj, "position_embedding", path, width)
    if len(pos) < 2:
        raise MalformedCertificate("expected at least 2 position rows (BOS and one token)",
                                   path=join(path, "position_embedding"))
    layers = []
    for i, L in enumerate(listed(obj, "layers", path, min_len=0)):
        lp = f"{path}.layers[{i}]"
        record_of(L, lp, ("attention", "mlp"))
        att = mlp = None
        if L.get("attention") is not None:
            ap = join(lp, "attention")
            A = record_of(L["attention"], ap, ("heads", "scale", "bO"))
            heads = [_head(H, f"{ap}.heads[{h}]", width) for h, H in enumerate(listed(A, "heads", ap))]
            scale = read.rational(need(A, "scale", ap), join(ap, "scale"))
            if scale <= 0:
                raise MalformedCertificate("expected a positive logit scale", path=join(ap, "scale"))
            att = SequenceAttention(heads, _bias(A, "bO", ap, width), scale)
        if L.get("mlp") is not None:
            fp = join(lp, "mlp")
            F = record_of(L["mlp"], fp, ("W1", "b1", "W2", "b2"))
            W1 = _rows(F, "W1", fp, width)
            mlp = SequenceMLP(W1, vector(need(F, "b1", fp), join(fp, "b1"), len(W1)), _rows(F, "W2", fp, len(W1), width),
                              vector(need(F, "b2", fp), join(fp, "b2"), width))
        layers.append(SequenceLayer(att, mlp))
    unembedding = _rows(obj, "unembedding", path, width)
    output = read.string(need(obj, "output", path), join(path, "output"), choices=("categorical", "numerical"))
    labels = None
    if output == "categorical":
        labels = [label_from_json(v, f"{path}.output_labels[{i}]") for i, v in enumerate(listed(obj, "output_labels", path))]
        if len(labels) != len(unembedding):
            raise MalformedCertificate(f"expected {len(unembedding)} output labels (one per unembedding row), got "
                                       f"{len(labels)}", path=join(path, "output_labels"))
    elif len(unembedding) != 1:
        raise MalformedCertificate("expected one unembedding row for a numerical output", path=join(path, "unembedding"))
    notes = read.array(obj.get("notes", []), join(path, "notes"))
    for i, note in enumerate(notes):
        read.string(note, f"{path}.notes[{i}]")
    data = (tuple(map(label_key, tokens)), label_key(bos), causal, tok, pos, unembedding, output, labels,
            [(layer.attention and ([h.exact_data() for h in layer.attention.heads], layer.attention.exact_bO,
                                   layer.attention.exact_scale),
              layer.mlp and (layer.mlp.exact_W1, layer.mlp.exact_b1, layer.mlp.exact_W2, layer.mlp.exact_b2))
             for layer in layers])
    return SequenceTransformer(tokens, bos, tok, pos, layers, unembedding, output, labels, causal, data)


READERS = {"sequence-transformer": _sequence_transformer}
