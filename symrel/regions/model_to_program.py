"""Model -> decision program: exact symbolic execution over affine forms.

On a cell of the input space every quantity a model computes is an affine
function of the input ``x in R^d``; we store it as a *form*, the tuple
``(a_1, ..., a_d, c)`` meaning ``a . x + c``. A model becomes a list of stages
acting on a vector of forms (the "registers"):

* :class:`AffineStage` ``r -> W r + b`` (no decision);
* :class:`ReluStage` one decision per ReLU: ``+`` or ``-`` (and ``0`` when the
  form is identically zero, in the open mode);
* :class:`MaxStage` one decision per maxout unit: which piece is the maximum;
* :class:`AttentionStage` hardmax attention: for every head and query, the
  argmax *set* over the keys is found by comparing key k with the current
  representative, ``<``, ``=`` (a tie, an equality) or ``>``;
* :class:`SegmentStage` which segment of a CPWL1D function holds x.

Every outcome of a decision comes with its constraint rows ``(form, rel)``,
``rel`` in ``"<"``, ``"<="``, ``"="``, meaning ``form(x) rel 0``.

Two modes. ``"exact"``: the outcomes of each decision *partition* the parent
set exactly (ReLU ``z >= 0`` / ``z < 0``; first maximiser; ties as equalities),
so the leaves partition the domain, lower-dimensional tie cells included; needed
for hardmax, which is discontinuous at ties. ``"open"``: every row is strict and
only full-dimensional (open) cells survive; their union is dense in the domain,
which decides everything about *continuous* models (ReLU, maxout, CPWL1D) and
counts full-dimensional activation regions of any model.

Decision order (the checker in :mod:`symrel.checking.regions` replays it):
stages in order; a ReLU stage decides its registers in increasing index; a max
stage its units in order; an attention stage head by head, query token by query
token, key token 1..T-1 compared with the smallest index of the current argmax
set.

>>> from symrel.models import CPWL1D
>>> run = Runner([CPWL1D([0, 1, 2], [0, 1, 0])], 1, "open")
>>> s = run.start()
>>> [c.label for c in run.choices(s)]
['s0', 's1']
>>> s = run.advance(s, 1)
>>> run.choices(s) is None, [str(v) for v in run.outputs(s)[0][0]]
(True, ['-1', '2'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..errors import InputError
from ..exact import Q, from_rationals, rows
from ..models import CPWL1D, MaxoutNet, ReLUNet, Transformer

ZERO, ONE = Q(0), Q(1)
MODES = ("open", "exact")


@dataclass(frozen=True)
class Choice:
    """One outcome of a decision: its label and its constraint rows."""

    label: str
    rows: tuple


def is_zero_form(f) -> bool:
    return not any(f)


def is_constant_form(f) -> bool:
    return not any(f[:-1])


def sub(f, g):
    return tuple(a - b for a, b in zip(f, g))


def neg(f):
    return tuple(-a for a in f)


def evaluate_form(f, x):
    """``a . x + c`` at the point x."""
    s = f[-1]
    for a, v in zip(f, x):
        if a:
            s += a * v
    return s


def _matmul_forms(W, forms, b=None):
    """``W r + b`` for a vector of forms r (W a DomainMatrix)."""
    k = len(forms[0]) if forms else W.shape[1]
    F = from_rationals(forms, (len(forms), k)) if forms else None
    out = rows(W * F) if F is not None else [[ZERO] * k for _ in range(W.shape[0])]
    if b is not None:
        for r, bi in zip(out, b):
            r[-1] += bi
    return [tuple(r) for r in out]


# -- stages --------------------------------------------------------------------------


class AffineStage:
    """``r -> W r + b``; W a DomainMatrix, b a list (or None)."""

    def __init__(self, W, b=None):
        self.W, self.b = W, b

    def prepare(self, forms, mode):
        return None

    def n_decisions(self, ctx):
        return 0

    def finish(self, forms, ctx, made):
        return _matmul_forms(self.W, forms, self.b)


class ReluStage:
    """ReLU on the registers ``indices`` (all when None); the rest pass through."""

    def __init__(self, indices=None):
        self.indices = indices

    def prepare(self, forms, mode):
        idx = list(range(len(forms))) if self.indices is None else self.indices
        return (idx, mode)

    def n_decisions(self, ctx):
        return len(ctx[0])

    def choices(self, forms, ctx, made):
        idx, mode = ctx
        z = forms[idx[len(made)]]
        if mode == "open":
            if is_zero_form(z):
                return [Choice("0", ())]
            return [Choice("+", ((neg(z), "<"),)), Choice("-", ((z, "<"),))]
        return [Choice("+", ((neg(z), "<="),)), Choice("-", ((z, "<"),))]

    def finish(self, forms, ctx, made):
        idx, _ = ctx
        out = list(forms)
        zero = tuple([ZERO] * len(forms[0]))
        for i, label in zip(idx, made):
            if label != "+":
                out[i] = zero
        return out


class MaxStage:
    """Maxout units: ``groups[u]`` lists the registers holding unit u's pieces;
    the output register u is the chosen piece."""

    def __init__(self, groups):
        self.groups = groups

    def prepare(self, forms, mode):
        return mode

    def n_decisions(self, ctx):
        return len(self.groups)

    def choices(self, forms, mode, made):
        pieces = [forms[i] for i in self.groups[len(made)]]
        out = []
        for j, lj in enumerate(pieces):
            rows_j = []
            if mode == "open":
                if any(pieces[i] == lj for i in range(j)):
                    continue  # an identical earlier piece stands for this one
                for i, li in enumerate(pieces):
                    if i != j and li != lj:
                        rows_j.append((sub(li, lj), "<"))
            else:
                for i, li in enumerate(pieces):
                    if i != j:
                        rows_j.append((sub(li, lj), "<" if i < j else "<="))
            out.append(Choice(str(j), tuple(rows_j)))
        return out

    def finish(self, forms, mode, made):
        return [forms[g[int(label)]] for g, label in zip(self.groups, made)]


class SegmentStage:
    """The segment of a CPWL1D function holding x (register 0); output its piece."""

    def __init__(self, f: CPWL1D):
        self.x = f.x
        self.pieces = f.pieces()

    def prepare(self, forms, mode):
        return (forms[0], mode)

    def n_decisions(self, ctx):
        return 1

    def choices(self, forms, ctx, made):
        u, mode = ctx
        out = []
        last = len(self.pieces) - 1
        for s in range(len(self.pieces)):
            rs = []
            if s > 0:  # x >= x_s
                rs.append((sub((ZERO, self.x[s]), _scaled(u, ONE)), "<" if mode == "open" else "<="))
            if s < last:  # x < x_{s+1}
                rs.append((sub(u, (ZERO, self.x[s + 1])), "<"))
            out.append(Choice(f"s{s}", tuple(rs)))
        return out

    def finish(self, forms, ctx, made):
        a, c = self.pieces[int(made[0][1:])]
        u = forms[0]
        return [tuple(a * v for v in u[:-1]) + (a * u[-1] + c,)]


def _scaled(f, a):
    return tuple(a * v for v in f)


class AttentionStage:
    """Hardmax attention on the flattened state (token t, row i at ``t*m + i``)."""

    def __init__(self, heads, T: int, m: int, path: str = "attention"):
        self.heads, self.T, self.m, self.path = heads, T, m, path

    def prepare(self, forms, mode):
        T, m = self.T, self.m
        Z = [forms[t * m : (t + 1) * m] for t in range(T)]
        scores = []
        for h, head in enumerate(self.heads):
            Qs = [_matmul_forms(head.WQ, Z[t]) for t in range(T)]
            Ks = [_matmul_forms(head.WK, Z[s]) for s in range(T)]
            S = [[_bilinear(Ks[s], Qs[t], f"{self.path}.heads[{h}] (key {s}, query {t})") for t in range(T)] for s in range(T)]
            scores.append(S)
        return (scores, mode)

    def n_decisions(self, ctx):
        return len(self.heads) * self.T * (self.T - 1)

    def _argmax_so_far(self, made_for_query):
        M = [0]
        for k, label in enumerate(made_for_query, start=1):
            if label == "=":
                M.append(k)
            elif label == ">":
                M = [k]
        return M

    def choices(self, forms, ctx, made):
        scores, mode = ctx
        T = self.T
        i = len(made)
        per_query = T - 1
        hq, k = divmod(i, per_query)
        h, t = divmod(hq, T)
        key = k + 1
        rep = self._argmax_so_far(made[hq * per_query : i])[0]
        S = scores[h]
        diff = sub(S[key][t], S[rep][t])
        if mode == "open":
            if is_zero_form(diff):
                return [Choice("=", ())]
            return [Choice("<", ((diff, "<"),)), Choice(">", ((neg(diff), "<"),))]
        return [Choice("<", ((diff, "<"),)), Choice("=", ((diff, "="),)), Choice(">", ((neg(diff), "<"),))]

    def finish(self, forms, ctx, made):
        T, m = self.T, self.m
        Z = [forms[t * m : (t + 1) * m] for t in range(T)]
        out = [list(z) for z in Z]
        per_query = T - 1
        for h, head in enumerate(self.heads):
            V = [_matmul_forms(head.WO * head.WV, Z[s]) for s in range(T)]
            for t in range(T):
                start = (h * T + t) * per_query
                M = self._argmax_so_far(made[start : start + per_query])
                w = Q(1, len(M))
                for s in M:
                    out[t] = [tuple(a + w * b for a, b in zip(f, g)) for f, g in zip(out[t], V[s])]
        return [f for z in out for f in z]


def _bilinear(K, Qv, where):
    """``sum_j K_j(x) Q_j(x)`` as a form; refuses a genuinely quadratic score."""
    n = len(K[0]) - 1 if K else 0
    quad = [[ZERO] * n for _ in range(n)]
    lin = [ZERO] * (n + 1)
    for kf, qf in zip(K, Qv):
        a, alpha = kf[:-1], kf[-1]
        b, beta = qf[:-1], qf[-1]
        if any(a) and any(b):
            for i in range(n):
                if a[i]:
                    for j in range(n):
                        if b[j]:
                            quad[i][j] += a[i] * b[j]
        for i in range(n):
            lin[i] += alpha * b[i] + beta * a[i]
        lin[n] += alpha * beta
    for i in range(n):
        for j in range(i, n):
            if quad[i][j] + quad[j][i] != 0:
                raise InputError(
                    "the attention score is quadratic in the input (query and key both depend on x), "
                    "so cells are not polyhedra; cell enumeration needs affine scores",
                    path=where,
                )
    return tuple(lin)


# -- models as programs ------------------------------------------------------------------


def _dm(data, shape):
    return from_rationals(data, shape)


def relu_program(net: ReLUNet) -> list:
    stages = []
    for layer in net.layers:
        stages.append(AffineStage(layer.affine.W, [r[0] for r in rows(layer.affine.b)]))
        if layer.activation == "relu":
            stages.append(ReluStage())
    return stages


def maxout_program(net: MaxoutNet) -> list:
    stages = []
    for layer in net.layers:
        stages.append(AffineStage(layer._stacked.W, [r[0] for r in rows(layer._stacked.b)]))
        groups, start = [], 0
        for k in layer.ranks:
            groups.append(list(range(start, start + k)))
            start += k
        stages.append(MaxStage(groups))
    if net.readout is not None:
        stages.append(AffineStage(net.readout.W, [r[0] for r in rows(net.readout.b)]))
    return stages


def transformer_program(tf: Transformer) -> list:
    T, m, d = tf.tokens, tf.width, tf.input_dim
    tf._require_hardmax()
    offsets = rows(tf.embedding.offsets)  # m x T
    W = [[ZERO] * d for _ in range(T * m)]
    b = [ZERO] * (T * m)
    for t in range(T):
        for i in range(m):
            b[t * m + i] = offsets[i][t]
        for k, r in enumerate(tf.embedding.input_rows):
            W[t * m + r][k] += ONE
    stages = [AffineStage(_dm(W, (T * m, d)), b)]
    for bi, block in enumerate(tf.blocks):
        if block.attention is not None:
            stages.append(AttentionStage(block.attention.heads, T, m, path=f"blocks[{bi}].attention"))
        ff = block.feedforward
        if ff is not None:
            h = ff.hidden
            W1, b1 = rows(ff.W1), [r[0] for r in rows(ff.b1)]
            W2, b2 = rows(ff.W2), [r[0] for r in rows(ff.b2)]
            n_in, n_hid = T * m, T * h
            up = [[ZERO] * n_in for _ in range(n_in + n_hid)]
            up_b = [ZERO] * (n_in + n_hid)
            for i in range(n_in):
                up[i][i] = ONE
            for t in range(T):
                for j in range(h):
                    up_b[n_in + t * h + j] = b1[j]
                    for i in range(m):
                        up[n_in + t * h + j][t * m + i] = W1[j][i]
            down = [[ZERO] * (n_in + n_hid) for _ in range(n_in)]
            down_b = [ZERO] * n_in
            for t in range(T):
                for i in range(m):
                    down[t * m + i][t * m + i] = ONE
                    down_b[t * m + i] = b2[i]
                    for j in range(h):
                        down[t * m + i][n_in + t * h + j] = W2[i][j]
            stages.append(AffineStage(_dm(up, (n_in + n_hid, n_in)), up_b))
            stages.append(ReluStage(list(range(n_in, n_in + n_hid))))
            stages.append(AffineStage(_dm(down, (n_in, n_in + n_hid)), down_b))
    ro = tf.readout
    RW = [[ZERO] * (T * m) for _ in range(ro.W.shape[0])]
    for r, wrow in enumerate(rows(ro.W)):
        for i in range(m):
            RW[r][ro.token * m + i] = wrow[i]
    stages.append(AffineStage(_dm(RW, (ro.W.shape[0], T * m)), [r[0] for r in rows(ro.b)]))
    return stages


def program_of(model) -> list:
    """The stages of ``model`` (ReLU, maxout, CPWL1D or hardmax Transformer)."""
    if isinstance(model, ReLUNet):
        return relu_program(model)
    if isinstance(model, MaxoutNet):
        return maxout_program(model)
    if isinstance(model, CPWL1D):
        return [SegmentStage(model)]
    if isinstance(model, Transformer):
        return transformer_program(model)
    raise InputError(f"cell enumeration does not know models of kind {getattr(model, 'kind', type(model).__name__)}", path="kind")


def is_continuous(model) -> bool:
    """ReLU, maxout and CPWL1D models are continuous; hardmax Transformers need not be."""
    return isinstance(model, (ReLUNet, MaxoutNet, CPWL1D))


# -- running several programs on the same input ----------------------------------------


class State:
    """Where the joint execution stands: program p, stage s, decisions ``made``
    so far in that stage, its context, the registers, finished outputs."""

    __slots__ = ("p", "s", "made", "ctx", "forms", "outputs")

    def __init__(self, p, s, made, ctx, forms, outputs):
        self.p, self.s, self.made, self.ctx, self.forms, self.outputs = p, s, made, ctx, forms, outputs


class Runner:
    """Runs the programs of ``models`` one after the other on the same input x."""

    def __init__(self, models: Sequence, dim: int, mode: str = "open"):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        for k, mdl in enumerate(models):
            if mdl.input_dim != dim:
                raise InputError(f"expected a model with {dim} inputs, got {mdl.input_dim}", path=f"models[{k}].input_dim")
        self.models = list(models)
        self.programs = [program_of(mdl) for mdl in models]
        self.dim, self.mode = dim, mode

    def _identity(self):
        d = self.dim
        return [tuple(ONE if j == i else ZERO for j in range(d + 1)) for i in range(d)]

    def _settle(self, p, s, made, ctx, forms, outputs):
        """Run decision-free work until a decision is pending or all is done."""
        while p < len(self.programs):
            prog = self.programs[p]
            while s < len(prog):
                stage = prog[s]
                if ctx is None:
                    ctx = ("ready", stage.prepare(forms, self.mode))
                if len(made) < stage.n_decisions(ctx[1]):
                    return State(p, s, made, ctx, forms, outputs)
                forms = stage.finish(forms, ctx[1], made)
                s, made, ctx = s + 1, (), None
            outputs = outputs + (forms,)
            p, s, forms = p + 1, 0, self._identity()
        return State(p, s, made, ctx, forms, outputs)

    def start(self) -> State:
        return self._settle(0, 0, (), None, self._identity(), ())

    def choices(self, state: State):
        """The outcomes of the pending decision (None when all programs are done)."""
        if state.p >= len(self.programs):
            return None
        stage = self.programs[state.p][state.s]
        return stage.choices(state.forms, state.ctx[1], state.made)

    def advance(self, state: State, k: int) -> State:
        return self.take(state, self.choices(state)[k])

    def take(self, state: State, choice: Choice) -> State:
        """The state after ``choice`` (one of ``choices(state)``)."""
        return self._settle(state.p, state.s, state.made + (choice.label,), state.ctx, state.forms, state.outputs)

    def advance_label(self, state: State, label: str) -> State:
        for k, c in enumerate(self.choices(state)):
            if c.label == label:
                return self.advance(state, k)
        raise ValueError(f"no outcome {label!r} here")

    def outputs(self, state: State) -> tuple:
        """Per model, its output forms on the cell (valid once ``choices`` is None)."""
        return state.outputs
