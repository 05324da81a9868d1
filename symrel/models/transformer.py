"""Transformers with hardmax or softmax attention, tokens as columns (docs/theory.md#conventions).

The state is an ``m x T`` matrix Z (width m, T tokens). A block applies its
attention sublayer, then its feed-forward sublayer, each with a residual:

* attention: ``Z + sum_h W_O^h W_V^h Z . sigma((W_K^h Z)^T (W_Q^h Z))``, sigma per
  query column over the T keys; ``hardmax`` averages over the argmax set,
  ``softmax`` uses ``exp(lambda s)`` normalised;
* feed-forward (token-wise, shared weights): ``Z + W2 ReLU(W1 Z + b1) + b2``.

No layer norm, no mask. Hardmax Transformers evaluate exactly; softmax
Transformers evaluate with mpmath at a chosen precision
(:meth:`Transformer.evaluate_softmax`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from ..errors import DimensionError, InputError

from ..exact import Matrix, PublicView, Q, Rational, public_matrix, column, from_rationals, hstack, matrix, ones, rational, rows, vector, zeros
from .base import Model, as_point, check_dim, require_seq

if TYPE_CHECKING:  # sympy is the public number type, loaded only when a view is made
    import sympy

RULES = ("hardmax", "softmax")


def hardmax(scores: Sequence[Rational]) -> list[Rational]:
    """Weights ``1/|M|`` on the argmax set M of ``scores``, 0 elsewhere.

    >>> [str(w) for w in hardmax([1, 3, 3])]
    ['0', '1/2', '1/2']
    """
    top = max(scores)
    winners = [i for i, s in enumerate(scores) if s == top]
    w = Q(1, len(winners))
    zero = Q(0)
    return [w if s == top else zero for s in scores]


def argmax_set(scores: Sequence[Rational]) -> frozenset[int]:
    """The indices where ``scores`` is maximal."""
    top = max(scores)
    return frozenset(i for i, s in enumerate(scores) if s == top)


class AttentionHead:
    """One head: ``W_Q, W_K`` (``d_k x m``), ``W_V`` (``d_v x m``), ``W_O`` (``m x d_v``).

    ``WQ`` .. ``WO`` and ``matrices()`` read as ``sympy.ImmutableMatrix`` of Rationals;
    ``exact_WQ`` .. ``exact_WO`` and ``exact_matrices()`` are the ``Matrix`` data
    (:mod:`symrel.exact.public`).

    >>> h = AttentionHead([[1, 0]], [[0, "1/2"]], [[1, 1]], [[1], [0]])
    >>> h.WK, h.WO.shape
    (Matrix([[0, 1/2]]), (2, 1))
    """

    WQ, WK, WV, WO = PublicView(), PublicView(), PublicView(), PublicView()

    def __init__(self, WQ, WK, WV, WO, *, width: int | None = None, path: str = "head", exact_floats: bool = False):
        self.exact_WQ = matrix(WQ, path=f"{path}.WQ", shape=(None, width), exact_floats=exact_floats)
        m = self.exact_WQ.shape[1] if width is None else width
        self.exact_WK = matrix(WK, path=f"{path}.WK", shape=(self.exact_WQ.shape[0], m), exact_floats=exact_floats)
        self.exact_WV = matrix(WV, path=f"{path}.WV", shape=(None, m), exact_floats=exact_floats)
        self.exact_WO = matrix(WO, path=f"{path}.WO", shape=(m, self.exact_WV.shape[0]), exact_floats=exact_floats)
        self.width = m

    def scores(self, Z: Matrix) -> Matrix:
        """``(W_K Z)^T (W_Q Z)``: entry ``[s, t]`` is the score of key s for query t."""
        return (self.exact_WK * Z).transpose() * (self.exact_WQ * Z)

    def output(self, Z: Matrix, weights: Matrix) -> Matrix:
        """``W_O W_V Z A`` for the ``T x T`` weight matrix A (column t = query t)."""
        return self.exact_WO * (self.exact_WV * Z * weights)

    def num_parameters(self) -> int:
        return sum(M.shape[0] * M.shape[1] for M in (self.exact_WQ, self.exact_WK, self.exact_WV, self.exact_WO))

    def matrices(self) -> tuple:
        """``(WQ, WK, WV, WO)`` as ``sympy.ImmutableMatrix``."""
        return (self.WQ, self.WK, self.WV, self.WO)

    def exact_matrices(self) -> tuple:
        """``(WQ, WK, WV, WO)`` as ``Matrix`` over ``QQ``."""
        return (self.exact_WQ, self.exact_WK, self.exact_WV, self.exact_WO)

    def __eq__(self, other):
        return isinstance(other, AttentionHead) and self.exact_matrices() == other.exact_matrices()


class Attention:
    """An attention sublayer: heads reading the same Z, a rule and (softmax) a scale
    (``scale`` a sympy Rational or None; ``exact_scale`` in ``QQ``)."""

    scale = PublicView()

    def __init__(self, heads: Sequence[AttentionHead], rule: str = "hardmax", scale=None, *, path: str = "attention",
                 exact_floats: bool = False):
        require_seq(heads, "heads", f"{path}.heads", min_len=1)
        if rule not in RULES:
            raise InputError(f'expected rule "hardmax" or "softmax", got {rule!r}', path=f"{path}.rule")
        if rule == "softmax":
            if scale is None:
                raise InputError("expected a scale (lambda) for softmax attention", path=f"{path}.scale")
            scale = rational(scale, path=f"{path}.scale", exact_floats=exact_floats)
            if scale <= 0:
                raise InputError(f"expected a positive scale, got {scale}", path=f"{path}.scale")
        elif scale is not None:
            raise InputError("a hardmax sublayer takes no scale", path=f"{path}.scale")
        self.heads = list(heads)
        self.rule = rule
        self.exact_scale = scale

    def with_rule(self, rule: str, scale=None) -> "Attention":
        return Attention(self.heads, rule, scale)

    def hardmax_weights(self, head: AttentionHead, Z: Matrix) -> Matrix:
        """The ``T x T`` hardmax weights of a head (column t: weights of query t)."""
        S = head.scores(Z)
        cols = [hardmax(column(S, t)) for t in range(Z.shape[1])]
        T = Z.shape[1]
        return from_rationals([[cols[t][s] for t in range(T)] for s in range(T)], (T, T))

    def apply_hardmax(self, Z: Matrix) -> Matrix:
        out = Z
        for head in self.heads:
            out = out + head.output(Z, self.hardmax_weights(head, Z))
        return out

    def num_parameters(self) -> int:
        return sum(h.num_parameters() for h in self.heads)

    def __eq__(self, other):
        return isinstance(other, Attention) and (self.rule, self.exact_scale, self.heads) == (other.rule, other.exact_scale, other.heads)


class FeedForward:
    """The token-wise sublayer ``Z -> Z + W2 ReLU(W1 Z + b1) + b2``. ``W1``, ``b1``, ``W2``,
    ``b2`` and ``matrices()`` read as ``sympy.ImmutableMatrix`` (``b1``, ``b2`` columns);
    the ``exact_`` names are the ``Matrix`` data."""

    W1, b1, W2, b2 = PublicView(), PublicView(), PublicView(), PublicView()

    def __init__(self, W1, b1, W2, b2, *, width: int | None = None, path: str = "feedforward",
                 exact_floats: bool = False):
        self.exact_W1 = matrix(W1, path=f"{path}.W1", shape=(None, width), exact_floats=exact_floats)
        hidden, m = self.exact_W1.shape
        self.exact_b1 = vector(b1, path=f"{path}.b1", length=hidden, exact_floats=exact_floats)
        self.exact_W2 = matrix(W2, path=f"{path}.W2", shape=(m, hidden), exact_floats=exact_floats)
        self.exact_b2 = vector(b2, path=f"{path}.b2", length=m, exact_floats=exact_floats)
        self.width, self.hidden = m, hidden

    def hidden_preactivation(self, Z: Matrix) -> Matrix:
        """``W1 Z + b1`` (one column per token)."""
        T = Z.shape[1]
        return self.exact_W1 * Z + self.exact_b1 * ones(1, T)

    def apply(self, Z: Matrix) -> Matrix:
        T = Z.shape[1]
        zero = Q(0)
        H = self.hidden_preactivation(Z)
        H = from_rationals([[v if v > zero else zero for v in r] for r in rows(H)], H.shape)
        return Z + self.exact_W2 * H + self.exact_b2 * ones(1, T)

    def num_parameters(self) -> int:
        return self.hidden * self.width * 2 + self.hidden + self.width

    def matrices(self) -> tuple:
        """``(W1, b1, W2, b2)`` as ``sympy.ImmutableMatrix``."""
        return (self.W1, self.b1, self.W2, self.b2)

    def exact_matrices(self) -> tuple:
        """``(W1, b1, W2, b2)`` as ``Matrix`` over ``QQ``."""
        return (self.exact_W1, self.exact_b1, self.exact_W2, self.exact_b2)

    def __eq__(self, other):
        return isinstance(other, FeedForward) and self.exact_matrices() == other.exact_matrices()


class Block:
    """Attention sublayer (or None), then feed-forward sublayer (or None)."""

    def __init__(self, attention: Attention | None = None, feedforward: FeedForward | None = None):
        self.attention = attention
        self.feedforward = feedforward

    def apply_hardmax(self, Z: Matrix) -> Matrix:
        if self.attention is not None:
            Z = self.attention.apply_hardmax(Z)
        if self.feedforward is not None:
            Z = self.feedforward.apply(Z)
        return Z

    def num_parameters(self) -> int:
        return (self.attention.num_parameters() if self.attention else 0) + (
            self.feedforward.num_parameters() if self.feedforward else 0
        )

    def __eq__(self, other):
        return isinstance(other, Block) and (self.attention, self.feedforward) == (other.attention, other.feedforward)


class Embedding:
    """Token t's column is ``offsets[:, t] + sum_i x_i e_(input_rows[i])``. ``offsets`` reads
    as the ``width x tokens`` ``sympy.ImmutableMatrix`` (columns are tokens; the file
    format writes its transpose), ``exact_offsets`` is the ``Matrix``."""

    offsets = PublicView()

    def __init__(self, input_rows: Sequence[int], offsets, *, width: int, tokens: int, path: str = "embedding",
                 exact_floats: bool = False):
        require_seq(input_rows, "input rows", f"{path}.input_rows")
        self.input_rows = []
        for i, r in enumerate(input_rows):
            check_dim(r, "a row index", f"{path}.input_rows[{i}]", minimum=0)
            if r >= width:
                raise InputError(f"expected a row index below the width {width}, got {r}", path=f"{path}.input_rows[{i}]")
            self.input_rows.append(r)
        # offsets are given as T rows of m numbers; stored as the m x T matrix of columns
        off = matrix(offsets, path=f"{path}.offsets", shape=(tokens, width), exact_floats=exact_floats)
        self.exact_offsets = off.transpose()

    def embed(self, x: Sequence[Rational]) -> Matrix:
        m, T = self.exact_offsets.shape
        add = [[Q(0)] for _ in range(m)]
        for xi, r in zip(x, self.input_rows):
            add[r][0] += xi
        return self.exact_offsets + from_rationals(add, (m, 1)) * ones(1, T)

    def __eq__(self, other):
        return isinstance(other, Embedding) and self.input_rows == other.input_rows and self.exact_offsets == other.exact_offsets


class Readout:
    """``W . Z[:, token] + b``. ``W``, ``b`` read as ``sympy.ImmutableMatrix``; ``exact_W``,
    ``exact_b`` are the ``Matrix`` data (see :class:`~symrel.models.affine.AffineMap`)."""

    W = PublicView()
    b = PublicView()

    def __init__(self, token: int, W, b=None, *, width: int, tokens: int, path: str = "readout",
                 exact_floats: bool = False):
        check_dim(token, "a token index", f"{path}.token", minimum=0)
        if token >= tokens:
            raise InputError(f"expected a token index below {tokens}, got {token}", path=f"{path}.token")
        self.token = token
        self.exact_W = matrix(W, path=f"{path}.W", shape=(None, width), exact_floats=exact_floats)
        self.exact_b = zeros(self.exact_W.shape[0], 1) if b is None else vector(b, path=f"{path}.b", length=self.exact_W.shape[0], exact_floats=exact_floats)

    def apply(self, Z: Matrix) -> list[Rational]:
        col = from_rationals([[v] for v in column(Z, self.token)], (Z.shape[0], 1))
        return [r[0] for r in rows(self.exact_W * col + self.exact_b)]

    def __eq__(self, other):
        return isinstance(other, Readout) and (self.token, self.exact_W, self.exact_b) == (other.token, other.exact_W, other.exact_b)


class Transformer(Model):
    """A residual Transformer without layer norm (docs/format.md, ``kind: "transformer"``).

    >>> # no blocks: the read-out copies the input slot of token 0
    >>> emb = Embedding([0], [[0, 1], [0, 1]], width=2, tokens=2)
    >>> t = Transformer(1, 2, 2, emb, [], Readout(0, [[1, 0]], width=2, tokens=2))
    >>> [str(v) for v in t(["-1/2"])]
    ['-1/2']
    """

    kind = "transformer"

    def __init__(
        self,
        input_dim: int,
        width: int,
        tokens: int,
        embedding: Embedding,
        blocks: Sequence[Block],
        readout: Readout,
        *,
        path: str = "",
    ):
        p = f"{path}." if path else ""
        self.input_dim = check_dim(input_dim, "input_dim", f"{p}input_dim")
        self.width = check_dim(width, "width", f"{p}width")
        self.tokens = check_dim(tokens, "tokens", f"{p}tokens")
        if len(embedding.input_rows) != self.input_dim:
            raise DimensionError(
                f"expected {self.input_dim} input rows (one per input), got {len(embedding.input_rows)}",
                path=f"{p}embedding.input_rows",
            )
        if embedding.exact_offsets.shape != (self.width, self.tokens):
            raise DimensionError("expected offsets of tokens x width", path=f"{p}embedding.offsets")
        self.embedding = embedding
        self.blocks = list(blocks)
        for i, block in enumerate(self.blocks):
            for sub, name in ((block.attention, "attention"), (block.feedforward, "feedforward")):
                if sub is None:
                    continue
                widths = [h.width for h in sub.heads] if name == "attention" else [sub.width]
                if any(w != self.width for w in widths):
                    raise DimensionError(f"expected matrices of width {self.width}", path=f"{p}blocks[{i}].{name}")
        if readout.exact_W.shape[1] != self.width:
            raise DimensionError(f"expected a read-out of width {self.width}", path=f"{p}readout.W")
        self.readout = readout
        self.output_dim = readout.exact_W.shape[0]

    # -- exact hardmax evaluation ---------------------------------------------------
    def embed(self, x) -> sympy.ImmutableMatrix:
        """The initial state ``Z_0`` of the input point ``x`` (``width x tokens``, sympy Rationals)."""
        return public_matrix(self.exact_embed(x))

    def exact_embed(self, x) -> Matrix:
        """:meth:`embed` as a ``Matrix`` over ``QQ``."""
        return self.embedding.embed(as_point(x, self.input_dim))

    def states(self, x) -> list[sympy.ImmutableMatrix]:
        """``[Z_0, Z_1, ..., Z_B]``: the state after embedding and after every block (sympy matrices)."""
        return [public_matrix(Z) for Z in self.exact_states(x)]

    def exact_states(self, x) -> list[Matrix]:
        """:meth:`states` as ``Matrix`` over ``QQ``."""
        self._require_hardmax()
        Z = self.exact_embed(x)
        out = [Z]
        for block in self.blocks:
            Z = block.apply_hardmax(Z)
            out.append(Z)
        return out

    def _require_hardmax(self):
        for i, block in enumerate(self.blocks):
            if block.attention is not None and block.attention.rule != "hardmax":
                raise InputError(
                    "exact evaluation needs hardmax attention; this block uses softmax "
                    "(use evaluate_softmax, or with_rule('hardmax'))",
                    path=f"blocks[{i}].attention.rule",
                )

    def _evaluate_batch(self, X: Matrix) -> Matrix:
        self._require_hardmax()
        outs = []
        for x in zip(*rows(X)):
            Z = self.embedding.embed(list(x))
            for block in self.blocks:
                Z = block.apply_hardmax(Z)
            outs.append(self.readout.apply(Z))
        return from_rationals([list(r) for r in zip(*outs)], (self.output_dim, len(outs)))

    # -- softmax evaluation with mpmath ----------------------------------------------
    def evaluate_softmax(self, x, dps: int = 50, scale=None):
        """The output with softmax attention, computed with mpmath at ``dps``
        decimal digits. ``scale`` (a rational lambda) overrides every block's
        rule with softmax at that scale; otherwise each block's own rule is used
        (hardmax blocks stay exact hardmax). Returns a list of ``mpmath.mpf``."""
        from .softmax_eval import evaluate_softmax

        return evaluate_softmax(self, as_point(x, self.input_dim), dps=dps, scale=scale)

    def with_rule(self, rule: str, scale=None) -> "Transformer":
        """The same Transformer with every attention sublayer using ``rule``."""
        blocks = [
            Block(b.attention.with_rule(rule, scale) if b.attention is not None else None, b.feedforward)
            for b in self.blocks
        ]
        return Transformer(self.input_dim, self.width, self.tokens, self.embedding, blocks, self.readout)

    # -- sizes -------------------------------------------------------------------------
    def num_parameters(self) -> int:
        return sum(b.num_parameters() for b in self.blocks) + self.readout.exact_W.shape[0] * (self.width + 1)

    def nonzeros(self) -> int:
        from ..exact import nonzeros

        n = 0
        for b in self.blocks:
            if b.attention is not None:
                n += sum(nonzeros(M) for h in b.attention.heads for M in h.exact_matrices())
            if b.feedforward is not None:
                n += sum(nonzeros(M) for M in b.feedforward.exact_matrices())
        return n + nonzeros(self.readout.exact_W) + nonzeros(self.readout.exact_b)

    def sizes(self) -> dict:
        return {
            "kind": self.kind,
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "tokens": self.tokens,
            "width": self.width,
            "blocks": len(self.blocks),
            "heads": sum(len(b.attention.heads) for b in self.blocks if b.attention is not None),
            "parameters": self.num_parameters(),
            "nonzeros": self.nonzeros(),
        }

    def __eq__(self, other):
        return isinstance(other, Transformer) and (
            self.input_dim, self.width, self.tokens, self.embedding, self.blocks, self.readout
        ) == (other.input_dim, other.width, other.tokens, other.embedding, other.blocks, other.readout)

    def __repr__(self):
        return f"Transformer(input_dim={self.input_dim}, width={self.width}, tokens={self.tokens}, blocks={len(self.blocks)})"
