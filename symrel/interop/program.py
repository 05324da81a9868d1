"""Every symrel model as a short list of tensor operations (a "program").

The float back-ends (numpy, PyTorch, ONNX) all run the same program, so a
model is lowered once, here, and each back-end only knows how to run eight
operations. A program is a list of named stages; back-ends report the state
after every stage, which the cross-validation compares layer by layer with the
exact trace (:func:`exact_trace`) of the same stages.

States: a net's state is a batch of vectors ``(N, n)``; a Transformer's is
``(N, T, m)`` (tokens as rows, the layout of ML libraries), flattened token by
token (feature ``t*m + i`` is row i of token t) when compared.

>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(1, [DenseLayer([[2], [2]], [0, -1]), DenseLayer([[1, -2]], [0], "none")])
>>> [s.name for s in lower(net).stages]
['layers[0]', 'layers[1]']
>>> [[str(v) for v in r] for r in rows(exact_trace(net, [["3/4"]])[-1][1])]
[['1/2']]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..errors import InputError
from ..exact import Matrix, Q, Rational, from_rationals, rows, vstack, zeros
from ..exact.scaled import ScaledBatch
from ..models import CPWL1D, MaxoutNet, ReLUNet, Transformer, as_batch, hardmax, to_maxout
from ..exact import column as _column


# -- operations ------------------------------------------------------------------------------
@dataclass
class Affine:
    """``x -> W x + b`` on the last axis."""

    W: Matrix
    b: Matrix


@dataclass
class Relu:
    """``max(x, 0)`` entrywise."""


@dataclass
class GroupMax:
    """The last axis, of size ``q * rank``, split into q consecutive groups of
    ``rank``; each group replaced by its maximum (a maxout layer)."""

    rank: int


@dataclass
class Embed:
    """``x (N, d) -> Z (N, T, m)``: token t is ``offsets[:, t] + E x``."""

    E: Matrix  # m x d
    offsets: Matrix  # m x T


@dataclass
class AttentionOp:
    """``Z + sum_h (sigma(S_h) V_h) W_O^T`` with ``S_h[t, s] = (W_Q z_t) . (W_K z_s)``."""

    heads: list  # of (WQ, WK, WV, WO)
    rule: str  # "hardmax" or "softmax"
    scale: Rational | None = None


@dataclass
class FeedForwardOp:
    """``Z + ReLU(Z W1^T + b1) W2^T + b2`` token by token."""

    W1: Matrix
    b1: Matrix
    W2: Matrix
    b2: Matrix


@dataclass
class ReadoutOp:
    """``W z_token + b``: ``(N, T, m) -> (N, k)``."""

    token: int
    W: Matrix
    b: Matrix


@dataclass
class Stage:
    name: str
    ops: list


@dataclass
class Program:
    """A lowered model: ``input_dim``, ``output_dim``, ``stages``; ``tokens`` and
    ``width`` for Transformers (``None`` for nets)."""

    kind: str
    input_dim: int
    output_dim: int
    stages: list[Stage]
    tokens: int | None = None
    width: int | None = None
    notes: list[str] = field(default_factory=list)

    def parameters(self):
        """``(path, matrix)`` for every weight matrix and bias of the program."""
        for st in self.stages:
            for k, op in enumerate(st.ops):
                base = st.name  # at most one operation with parameters per stage
                if isinstance(op, (Affine, ReadoutOp)):
                    yield f"{base}.W", op.W
                    yield f"{base}.b", op.b
                elif isinstance(op, Embed):
                    yield f"{base}.E", op.E
                    yield f"{base}.offsets", op.offsets
                elif isinstance(op, FeedForwardOp):
                    for nm in ("W1", "b1", "W2", "b2"):
                        yield f"{base}.{nm}", getattr(op, nm)
                elif isinstance(op, AttentionOp):
                    for h, mats in enumerate(op.heads):
                        for nm, M in zip(("WQ", "WK", "WV", "WO"), mats):
                            yield f"{base}.heads[{h}].{nm}", M
                    if op.scale is not None:
                        yield f"{base}.scale", from_rationals([[op.scale]], (1, 1))


# -- lowering ----------------------------------------------------------------------------------
def lower(model) -> Program:
    """The program of a relu, maxout, cpwl1d or transformer model."""
    if isinstance(model, ReLUNet):
        stages = [
            Stage(f"layers[{k}]", [Affine(L.affine.W, L.affine.b)] + ([Relu()] if L.activation == "relu" else []))
            for k, L in enumerate(model.layers)
        ]
        return Program("relu", model.input_dim, model.output_dim, stages)
    if isinstance(model, CPWL1D):
        model = to_maxout(model)
    if isinstance(model, MaxoutNet):
        stages = [Stage(f"layers[{k}]", _maxout_ops(L)) for k, L in enumerate(model.layers)]
        if model.readout is not None:
            stages.append(Stage("readout", [Affine(model.readout.W, model.readout.b)]))
        return Program("maxout", model.input_dim, model.output_dim, stages)
    if isinstance(model, Transformer):
        return _lower_transformer(model)
    raise InputError(f"cannot lower a model of kind {getattr(model, 'kind', type(model).__name__)}", path="kind")


def _maxout_ops(layer) -> list:
    """A maxout layer as one affine map onto all pieces, then a group max. Units
    of lower rank repeat their first piece (the max is unchanged), so every
    group has the layer's largest rank."""
    k = max(layer.ranks)
    Ws, bs = [], []
    for u in layer.units:
        pad = k - u.rank
        W, b = u.pieces.W, u.pieces.b
        if pad:
            W = vstack(W, *([from_rationals([rows(W)[0]], (1, W.shape[1]))] * pad))
            b = vstack(b, *([from_rationals([[rows(b)[0][0]]], (1, 1))] * pad))
        Ws.append(W)
        bs.append(b)
    ops = [Affine(vstack(*Ws), vstack(*bs))]
    if k > 1:
        ops.append(GroupMax(k))
    return ops


def _lower_transformer(t: Transformer) -> Program:
    m, T, d = t.width, t.tokens, t.input_dim
    E = [[Q(0)] * d for _ in range(m)]
    for i, r in enumerate(t.embedding.input_rows):
        E[r][i] += 1
    stages = [Stage("embedding", [Embed(from_rationals(E, (m, d)), t.embedding.offsets)])]
    for i, block in enumerate(t.blocks):
        if block.attention is not None:
            att = block.attention
            stages.append(Stage(f"blocks[{i}].attention", [AttentionOp([h.matrices() for h in att.heads], att.rule, att.scale)]))
        if block.feedforward is not None:
            stages.append(Stage(f"blocks[{i}].feedforward", [FeedForwardOp(*block.feedforward.matrices())]))
    stages.append(Stage("readout", [ReadoutOp(t.readout.token, t.readout.W, t.readout.b)]))
    return Program("transformer", d, t.output_dim, stages, tokens=T, width=m)


# -- the exact trace -------------------------------------------------------------------------------
def first_maximiser(scores) -> list[Rational]:
    """Weight 1 on the first index of the argmax set: ONNX's ``Hardmax``.

    >>> [str(w) for w in first_maximiser([1, 3, 3])]
    ['0', '1', '0']
    """
    top = max(scores)
    i = list(scores).index(top)
    return [Q(1) if j == i else Q(0) for j in range(len(scores))]


HARDMAX_RULES: dict[str, Callable] = {"average": hardmax, "first": first_maximiser}


def _attention_exact(att, Z: Matrix, weights: Callable) -> Matrix:
    """An attention sublayer on the state Z (m x T) with a chosen hardmax rule."""
    T = Z.shape[1]
    out = Z
    for head in att.heads:
        S = head.scores(Z)
        cols = [weights(_column(S, t)) for t in range(T)]
        A = from_rationals([[cols[t][s] for t in range(T)] for s in range(T)], (T, T))
        out = out + head.output(Z, A)
    return out


def _flatten_tokens(Z: Matrix) -> list[Rational]:
    """Z (m x T) as one vector, token by token."""
    return [v for col in zip(*rows(Z)) for v in col]


def exact_trace(model, points, *, hardmax_rule: str = "average") -> list[tuple[str, Matrix]]:
    """The exact state after every stage of :func:`lower` on a batch: a list of
    ``(stage name, features x N matrix)``, the last being the output.

    ``hardmax_rule="first"`` evaluates hardmax attention with ONNX's rule
    (weight 1 on the first maximiser) instead of symrel's average; a callable
    ``scores -> weights`` is used as it is.
    """
    X = as_batch(points, model.input_dim)
    if isinstance(model, CPWL1D):
        model = to_maxout(model)
    if isinstance(model, (ReLUNet, MaxoutNet)):
        # common-denominator integer form (symrel.exact.scaled): the models' own fast path
        S, out = ScaledBatch.from_matrix(X), []
        for k, L in enumerate(model.layers):
            S = L.apply_scaled(S)
            out.append((f"layers[{k}]", S.to_matrix()))
        if isinstance(model, MaxoutNet) and model.readout is not None:
            out.append(("readout", model.readout._evaluate_batch(out[-1][1])))
        return out
    if isinstance(model, Transformer):
        rule = hardmax_rule if callable(hardmax_rule) else HARDMAX_RULES[hardmax_rule]
        return _transformer_trace(model, X, rule)
    raise InputError(f"cannot trace a model of kind {getattr(model, 'kind', type(model).__name__)}", path="kind")


def _transformer_trace(t: Transformer, X: Matrix, weights) -> list[tuple[str, Matrix]]:
    t._require_hardmax()
    names = [s.name for s in _lower_transformer(t).stages]
    per_point = []
    for x in zip(*rows(X)) if X.shape[1] else []:
        Z = t.embedding.embed(list(x))
        states = [_flatten_tokens(Z)]
        for block in t.blocks:
            if block.attention is not None:
                Z = _attention_exact(block.attention, Z, weights)
                states.append(_flatten_tokens(Z))
            if block.feedforward is not None:
                Z = block.feedforward.apply(Z)
                states.append(_flatten_tokens(Z))
        states.append(t.readout.apply(Z))
        per_point.append(states)
    out = []
    for k, name in enumerate(names):
        cols = [p[k] for p in per_point]
        n = len(cols[0]) if cols else (t.output_dim if name == "readout" else t.width * t.tokens)
        out.append((name, from_rationals([list(r) for r in zip(*cols)], (n, len(cols))) if cols else zeros(n, 0)))
    return out
