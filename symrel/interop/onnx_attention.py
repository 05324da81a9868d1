"""ONNX attention graphs read exactly into symrel Transformers.

The graph is executed symbolically, each tensor tracked by *what it is* in a
residual Transformer without layer norm (docs/theory.md#conventions), so that its
weight matrices can be read off exactly:

* the embedding: ``x E^T`` reshaped to ``(N, 1, m)`` plus a ``(T, m)`` offset
  constant, with E selecting input coordinates (symrel's embedding form);
* a *state* Z (``(N, T, m)``); a token-wise affine map of a state (``Z W^T + b``);
  the scores ``Q Transpose(K)`` of two such maps of the same state (no biases);
  optionally multiplied by a positive scalar lambda; ``Hardmax`` or ``Softmax``
  over the keys (last axis); the weights times a token-wise map V of the same
  state; times ``WO^T``: one head. Heads of the same state and rule add up, and
  ``state + heads`` is the next state (an attention sublayer);
* ``Relu`` of a token-wise map, times ``W2^T`` plus b2, added to its state: a
  feed-forward sublayer (merged into the previous attention sublayer's block
  when it reads that sublayer's output);
* the read-out: a token's column (``Transpose`` then ``MatMul`` by a unit
  vector then ``Reshape``, or ``Gather`` on the token axis), then affine.

This is the layout :mod:`symrel.interop.onnx_export` writes and the usual one
of hand-written attention graphs. A node outside it is refused with an error
naming the node. Note that an ONNX ``Hardmax`` means the first-maximiser rule;
the import gives symrel's averaging hardmax and says so in its notes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..exact import Q, from_rationals, identity, zeros
from ..models import Attention, AttentionHead, Block, Embedding, FeedForward, Readout, Transformer
from .onnx_graph import Constant, GraphTracer, exact_identity, exact_zeros


# -- what a tensor can be (besides a Constant) ---------------------------------------------------
@dataclass
class _XLin:  # A x + c, per-sample shape `feat`; A: feat + (d,)
    A: object
    c: object
    feat: tuple


@dataclass
class _State:
    index: int


@dataclass
class _Tok:  # token-wise W z_t + b of a state
    state: int
    W: object  # k x m (numpy object)
    b: object  # k
    transposed: bool = False


@dataclass
class _Scores:
    state: int
    WQ: object
    WK: object
    scale: object = None


@dataclass
class _Weights:
    state: int
    WQ: object
    WK: object
    rule: str
    scale: object


@dataclass
class _Mix:
    weights: _Weights
    WV: object


@dataclass
class _Heads:  # sum over heads of W_O (A (Z W_V^T)), added to nothing yet
    state: int
    rule: str
    scale: object
    heads: list = field(default_factory=list)  # (WQ, WK, WV, WO)


@dataclass
class _Hidden:
    state: int
    W1: object
    b1: object


@dataclass
class _FF:
    state: int
    W1: object
    b1: object
    W2: object
    b2: object


@dataclass
class _TokenCol:
    state: int
    token: int | None  # None: the state transposed, column not chosen yet
    W: object = None  # read-out so far (None: identity)
    b: object = None


def import_transformer(graph):
    """``(Transformer, notes)`` from a parsed graph (:class:`symrel.interop.onnx_graph.OnnxGraph`)."""
    return AttentionTracer(graph).run()


class AttentionTracer(GraphTracer):
    """A tensor is what it is in a residual Transformer (the module docstring)."""

    graph_kind = "an attention graph"

    def __init__(self, graph):
        super().__init__(graph)
        if len(graph.input_feat) != 1:
            raise graph.error(graph.nodes[0], f"expected an input of shape (N, d), got (N, {graph.input_feat})")
        self.d = graph.input_feat[0]
        np = self.np
        self.values[graph.input.name] = _XLin(exact_identity(np, self.d), exact_zeros(np, (self.d,)), (self.d,))
        self.embedding = None
        self.states = []  # for each state: (block index it ends, "attention"/"feedforward"/"embedding")
        self.blocks: list[list] = []  # [attention or None, feedforward or None]
        self.saw_hardmax = False
        # symrel's exporter records its blocks; without the hint an attention sublayer
        # and the feed-forward sublayer reading its output share a block
        import json

        try:
            self.layout = json.loads(graph.metadata.get("symrel_blocks", "null"))
        except ValueError:
            self.layout = None

    def run(self):
        out = self.trace()
        if isinstance(out, _State):
            raise self.g.error(self.g.nodes[-1], "expected a read-out of one token, got the whole state")
        if not isinstance(out, _TokenCol) or out.token is None:
            raise self.g.error(self.g.nodes[-1], "expected the graph output to be a read-out of one token")
        return self._build(out)

    # -- helpers
    def _is_zero(self, a):
        return a is None or not any(v for v in self.np.asarray(a).reshape(-1))

    # -- operations
    def op_MatMul(self, node):
        a, b = self.get(node, 0), self.get(node, 1)
        np = self.np
        if isinstance(a, _XLin) and isinstance(b, Constant):
            M = b.a
            return _XLin(np.matmul(M.T, a.A), np.matmul(a.c, M), a.feat[:-1] + (M.shape[1],))
        if isinstance(a, _State) and isinstance(b, Constant):
            M = b.a
            return _Tok(a.index, np.ascontiguousarray(M.T), exact_zeros(np, (M.shape[1],)))
        if isinstance(a, _Tok) and not a.transposed and isinstance(b, Constant):
            M = b.a
            return _Tok(a.state, np.matmul(M.T, a.W), np.matmul(a.b, M))
        if isinstance(a, _Tok) and isinstance(b, _Tok) and b.transposed and not a.transposed:
            if a.state != b.state or not (self._is_zero(a.b) and self._is_zero(b.b)):
                self.fail(node, "scores Q K^T of bias-free maps of the same state")
            return _Scores(a.state, a.W, b.W)
        if isinstance(a, _Weights) and isinstance(b, _Tok) and not b.transposed:
            if b.state != a.state or not self._is_zero(b.b):
                self.fail(node, "attention weights times a bias-free value map of the same state")
            return _Mix(a, b.W)
        if isinstance(a, _Mix) and isinstance(b, Constant):
            w = a.weights
            return _Heads(w.state, w.rule, w.scale, [(w.WQ, w.WK, a.WV, np.ascontiguousarray(b.a.T))])
        if isinstance(a, _Hidden) and isinstance(b, Constant):
            return _FF(a.state, a.W1, a.b1, np.ascontiguousarray(b.a.T), exact_zeros(np, (b.a.shape[1],)))
        if isinstance(a, _TokenCol) and a.token is None and isinstance(b, Constant):
            e = [v for v in b.a.reshape(-1)]
            if b.a.ndim != 2 or b.a.shape[1] != 1 or sorted(e) != [Q(0)] * (len(e) - 1) + [Q(1)]:
                self.fail(node, "a unit vector (T x 1) choosing the read-out token")
            return _TokenCol(a.state, e.index(Q(1)))
        if isinstance(a, _TokenCol) and a.token is not None and isinstance(b, Constant):
            M = b.a
            W = M.T if a.W is None else np.matmul(M.T, a.W)
            bb = np.matmul(a.b, M) if a.b is not None else None
            return replace(a, W=np.ascontiguousarray(W), b=bb)
        self.fail(node, "a MatMul of the Transformer layout (see symrel.interop.onnx_attention)")

    def op_Add(self, node):
        a, b = self.get(node, 0), self.get(node, 1)
        if isinstance(a, Constant) and not isinstance(b, Constant):
            a, b = b, a
        if isinstance(a, _XLin) and isinstance(b, Constant):
            return self._embedding(node, a, b.a)
        if isinstance(a, _Tok) and isinstance(b, Constant):
            return replace(a, b=a.b + b.a.reshape(-1))
        if isinstance(a, _FF) and isinstance(b, Constant):
            return replace(a, b2=a.b2 + b.a.reshape(-1))
        if isinstance(a, _TokenCol) and a.token is not None and isinstance(b, Constant):
            W = a.W
            if W is None:
                raise self.g.error(node, "expected a read-out matrix before its bias")
            bb = b.a.reshape(-1) if a.b is None else a.b + b.a.reshape(-1)
            return replace(a, b=bb)
        if isinstance(a, _Heads) and isinstance(b, _Heads):
            if (a.state, a.rule, a.scale) != (b.state, b.rule, b.scale):
                self.fail(node, "heads of the same state, rule and scale")
            return _Heads(a.state, a.rule, a.scale, a.heads + b.heads)
        if isinstance(b, _State):
            a, b = b, a
        if isinstance(a, _State) and isinstance(b, _Heads) and b.state == a.index:
            att = Attention([self._head(h) for h in b.heads], b.rule, b.scale)
            self.blocks.append([att, None])
            return self._new_state("attention")
        if isinstance(a, _State) and isinstance(b, _FF) and b.state == a.index:
            ff = FeedForward(*[self._mat(M) if M.ndim == 2 else list(M) for M in (b.W1, b.b1, b.W2, b.b2)])
            k = len(self.blocks) - 1
            hinted = self.layout is None or (k < len(self.layout) and self.layout[k][1])
            if self.states[a.index] == "attention" and self.blocks[-1][1] is None and hinted:
                self.blocks[-1][1] = ff
            else:
                self.blocks.append([None, ff])
            return self._new_state("feedforward")
        self.fail(node, "an Add of the Transformer layout (a bias, a residual, or heads)")

    def op_Relu(self, node):
        a = self.get(node, 0)
        if not isinstance(a, _Tok) or a.transposed:
            self.fail(node, "Relu of a token-wise affine map of a state (a feed-forward hidden layer)")
        return _Hidden(a.state, a.W, a.b)

    def op_Transpose(self, node):
        a = self.get(node, 0)
        perm = list(self.g.attrs(node).get("perm", []))
        if perm != [0, 2, 1]:
            self.fail(node, "a Transpose with perm [0, 2, 1]")
        if isinstance(a, _Tok):
            return replace(a, transposed=not a.transposed)
        if isinstance(a, _State):
            return _TokenCol(a.index, None)
        self.fail(node, "a transpose of a key map or of a state")

    def op_Mul(self, node):
        a, b = self.get(node, 0), self.get(node, 1)
        if isinstance(a, Constant):
            a, b = b, a
        if isinstance(a, _Scores) and isinstance(b, Constant) and b.a.size == 1:
            lam = b.a.reshape(-1)[0]
            if lam <= 0:
                self.fail(node, "a positive scale lambda")
            return replace(a, scale=lam if a.scale is None else a.scale * lam)
        self.fail(node, "scores times a positive scalar (the softmax scale)")

    def _rule(self, node, rule):
        a = self.get(node, 0)
        axis = self.g.attrs(node).get("axis", -1)
        if not isinstance(a, _Scores) or axis not in (-1, 2):
            self.fail(node, f"{node.op_type} over the keys (axis -1) of attention scores")
        scale = a.scale
        if rule == "hardmax":
            self.saw_hardmax = True
            scale = None  # a positive scale does not move the argmax
        elif scale is None:
            scale = Q(1)
        return _Weights(a.state, a.WQ, a.WK, rule, scale)

    def op_Hardmax(self, node):
        return self._rule(node, "hardmax")

    def op_Softmax(self, node):
        return self._rule(node, "softmax")

    def op_Reshape(self, node):
        a = self.get(node, 0)
        shape = [int(v) for v in self.const(node, 1).reshape(-1)]
        if isinstance(a, _XLin):
            feat = tuple(a.feat[i] if s == 0 else s for i, s in enumerate(shape[1:]))
            if -1 in feat or int(self.np.prod(feat)) != int(self.np.prod(a.feat)):
                self.fail(node, "a reshape of the embedded input with explicit sizes")
            return _XLin(a.A.reshape(feat + (self.d,)), a.c.reshape(feat), feat)
        if isinstance(a, _TokenCol) and a.token is not None and a.W is None and len(shape) == 2:
            return a  # (N, m, 1) -> (N, m): the same column
        self.fail(node, "a reshape of the embedded input or of the chosen token's column")

    def op_Gather(self, node):
        a = self.get(node, 0)
        idx = self.const(node, 1).reshape(-1)
        if not isinstance(a, _State) or self.g.attrs(node).get("axis", 0) != 1 or len(idx) != 1:
            self.fail(node, "Gather of one token (axis 1) of a state")
        return _TokenCol(a.index, int(idx[0]) % self.T)

    # -- building blocks
    def _embedding(self, node, x: _XLin, offsets):
        if self.embedding is not None or len(x.feat) != 2 or x.feat[0] != 1 or offsets.ndim != 2:
            self.fail(node, "the embedding: x E^T reshaped to (N, 1, m) plus (T, m) offsets")
        T, m = offsets.shape
        if m != x.feat[1] or not self._is_zero(x.c):
            self.fail(node, "offsets of width m and no other constant in the embedding")
        E = x.A[0]  # m x d
        rows_ = []
        for i in range(self.d):
            col = [E[r, i] for r in range(m)]
            if sorted(col) != [Q(0)] * (m - 1) + [Q(1)]:
                self.fail(node, f"an embedding that copies input {i} into one row (a unit column of E)")
            rows_.append(col.index(Q(1)))
        self.T, self.m = T, m
        self.embedding = Embedding(rows_, [[offsets[t, r] for r in range(m)] for t in range(T)], width=m, tokens=T)
        return self._new_state("embedding")

    def _new_state(self, how):
        self.states.append(how)
        return _State(len(self.states) - 1)

    def _mat(self, M):
        return from_rationals([list(r) for r in M], M.shape)

    def _head(self, h):
        WQ, WK, WV, WO = h
        return AttentionHead(self._mat(WQ), self._mat(WK), self._mat(WV), self._mat(WO))

    def _build(self, out: _TokenCol):
        if self.embedding is None:
            raise self.g.error(self.g.nodes[0], "expected an embedding of the input")
        if out.state != len(self.states) - 1:
            raise self.g.error(self.g.nodes[-1], "expected the read-out to read the last state")
        W = identity(self.m) if out.W is None else self._mat(out.W)
        b = zeros(W.shape[0], 1) if out.b is None else list(out.b)
        readout = Readout(out.token, W, b, width=self.m, tokens=self.T)
        blocks = [Block(a, f) for a, f in self.blocks]
        notes = []
        if self.saw_hardmax:
            notes.append("ONNX Hardmax (first maximiser) imported as symrel's hardmax (average over ties): "
                         "the two differ at score ties, see symrel.crossval.ties")
        return Transformer(self.d, self.m, self.T, self.embedding, blocks, readout), notes
