"""The exact state after every stage of a model's lowered program, on a batch of points.

The cross-validation compares the float back-ends' states with this trace, stage by
stage (:mod:`symrel.crossval`). States: a net's state is a vector; a Transformer's is
``T`` token columns of ``m`` numbers, flattened token by token (feature ``t*m + i`` is
row i of token t).

>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(1, [DenseLayer([[2], [2]], [0, -1]), DenseLayer([[1, -2]], [0], "none")])
>>> [[str(v) for v in r] for r in rows(exact_trace(net, [["3/4"]])[-1][1])]
[['1/2']]
"""

from __future__ import annotations

from typing import Callable

from ..exact import Matrix, Q, Rational, from_rationals, rows, zeros
from ..exact import column as _column
from ..exact.scaled import ScaledBatch
from ..lowering import lower
from ..model_kinds import model_kind
from ..models import Transformer, as_batch, hardmax
from ..constructions import to_maxout


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
    """The exact state after every stage of the program (:func:`symrel.interop.float_program.float_program`) on a batch: a list of
    ``(stage name, features x N matrix)``, the last being the output.

    ``hardmax_rule="first"`` evaluates hardmax attention with ONNX's rule
    (weight 1 on the first maximiser) instead of symrel's average; a callable
    ``scores -> weights`` is used as it is.
    """
    trace = model_kind(model).function("trace", "trace")
    return trace(model, as_batch(points, model.input_dim), hardmax_rule)


def layers_trace(net, X: Matrix, hardmax_rule=None) -> list[tuple[str, Matrix]]:
    """The trace of a ReLU or maxout net (the ``trace`` of those kinds): its layers in the
    common-denominator integer form (:mod:`symrel.exact.scaled`), the models' own fast path."""
    S, out = ScaledBatch.from_matrix(X), []
    for k, L in enumerate(net.layers):
        S = L.apply_scaled(S)
        out.append((f"layers[{k}]", S.to_matrix()))
    if getattr(net, "readout", None) is not None:   # a maxout net's optional read-out
        out.append(("readout", net.readout._evaluate_batch(out[-1][1])))
    return out


def maxout_form_trace(model, X: Matrix, hardmax_rule=None) -> list[tuple[str, Matrix]]:
    """The trace of a model run as its maxout form (the CPWL kinds: their lattice form)."""
    return layers_trace(to_maxout(model), X)


def transformer_trace(t: Transformer, X: Matrix, hardmax_rule="average") -> list[tuple[str, Matrix]]:
    """The trace of a hardmax Transformer, with the rule ``hardmax_rule`` at ties."""
    rule = hardmax_rule if callable(hardmax_rule) else HARDMAX_RULES[hardmax_rule]
    return _transformer_trace(t, X, rule)


def _transformer_trace(t: Transformer, X: Matrix, weights) -> list[tuple[str, Matrix]]:
    t._require_hardmax()
    names = [s.name for s in lower(t).stages]
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
