"""Program -> decisions: the lowered program (:mod:`symrel.lowering`) run by decisions.

On a cell of the input space every quantity a model computes is an affine
function of the input ``x in R^d``, an :class:`~symrel.exact.forms.AffineForm` over
the variables ``x_0..x_(d-1)``. Each operation of the model's program becomes a
decision stage acting on a vector of forms (the "registers"):

* :class:`AffineStage` ``r -> W r + b`` (no decision);
* :class:`ReluStage` one decision per ReLU: ``+`` or ``-`` (and ``0`` when the
  form is identically zero, in the open mode);
* :class:`MaxStage` one decision per maxout unit: which piece is the maximum;
* :class:`AttentionStage` hardmax attention: for every head and query, the
  argmax *set* over the keys is found by comparing key k with the current
  representative, ``<``, ``=`` (a tie, an equality) or ``>``;
* :class:`SegmentStage` which segment of a CPWL1D function holds x;
* :class:`SimplexStage` which simplex of a CPWL mesh function holds x.

A Transformer's state is flattened token by token (row i of token t is register
``t*m + i``); its embedding, feed-forward sublayers and read-out become affine and
ReLU stages. Every outcome of a decision comes with its constraint rows
(:class:`~symrel.exact.forms.Row`), ``form(x) rel 0``.

Two modes. ``"exact"``: the outcomes of each decision *partition* the parent
set exactly (ReLU ``z >= 0`` / ``z < 0``; first maximiser; ties as equalities),
so the leaves partition the domain, lower-dimensional tie cells included; needed
for hardmax, which is discontinuous at ties. ``"open"``: every row is strict and
only full-dimensional (open) cells survive; their union is dense in the domain,
which decides everything about *continuous* models (ReLU, maxout, CPWL1D, CPWL
mesh) and counts full-dimensional activation regions of any model. (A mesh's outcomes
are its closed simplices in the exact mode: they cover the support, overlapping on
common faces, where the function, continuous, has one value; every point of the domain
still lies in a leaf that describes both models exactly.)

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
>>> run.choices(s) is None, run.outputs(s)[0][0]
(True, AffineForm([2, [[0, -1]]]))
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from ..errors import InputError
from ..exact import Q, flat, rows, sparse_rows
from ..exact.forms import AffineForm, FormMap, Row, linear_combination, matrix_image
from ..lowering import Affine, AttentionOp, Embed, FeedForwardOp, Maxout, ReadoutOp, Relu, Segment, Simplices, lower
from ..model_kinds import kind_of

ZERO, ONE = Q(0), Q(1)
ZERO_FORM = AffineForm()
_row = tuple.__new__
MODES = ("open", "exact")


class Choice(NamedTuple):
    """One outcome of a decision: its label and its constraint rows (a named tuple: the
    search makes one per outcome of every decision, and a frozen dataclass costs twice)."""

    label: str
    rows: tuple


# -- stages --------------------------------------------------------------------------


class AffineStage:
    """``r -> W r + b``; W a Matrix or a list of rows, b a list (or None)."""

    def __init__(self, W, b=None):
        self.map = FormMap(W, b)

    def prepare(self, forms, mode):
        return None

    def n_decisions(self, ctx):
        return 0

    def finish(self, forms, ctx, made):
        return self.map.image(forms)


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
        # the search asks this once per unit of every node: the rows are made by tuple.__new__,
        # as Row(...) would make them, without the named tuple's Python-level constructor
        if mode == "open":
            if z.is_zero():
                return [Choice("0", ())]
            return [Choice("+", (_row(Row, (-z, "<")),)), Choice("-", (_row(Row, (z, "<")),))]
        return [Choice("+", (_row(Row, (-z, "<=")),)), Choice("-", (_row(Row, (z, "<")),))]

    def finish(self, forms, ctx, made):
        idx, _ = ctx
        out = list(forms)
        for i, label in zip(idx, made):
            if label != "+":
                out[i] = ZERO_FORM
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
                        rows_j.append(Row(li - lj, "<"))
            else:
                for i, li in enumerate(pieces):
                    if i != j:
                        rows_j.append(Row(li - lj, "<" if i < j else "<="))
            out.append(Choice(str(j), tuple(rows_j)))
        return out

    def finish(self, forms, mode, made):
        return [forms[g[int(label)]] for g, label in zip(self.groups, made)]


class SegmentStage:
    """The segment of a CPWL1D function holding x (register 0); output its piece."""

    def __init__(self, segment: Segment):
        self.x = segment.x
        self.pieces = segment.pieces

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
                rs.append(Row(AffineForm.constant(self.x[s]) - u, "<" if mode == "open" else "<="))
            if s < last:  # x < x_{s+1}
                rs.append(Row(u - AffineForm.constant(self.x[s + 1]), "<"))
            out.append(Choice(f"s{s}", tuple(rs)))
        return out

    def finish(self, forms, ctx, made):
        a, c = self.pieces[int(made[0][1:])]
        return [linear_combination([(a, forms[0])], c)]


class SimplexStage:
    """The simplex of a CPWL mesh function holding x (registers 0..d-1); output its piece.
    Outcome ``s<k>``: every barycentric coordinate of simplex k positive (open mode) or
    non-negative (exact mode: closed simplices, which cover the support)."""

    def __init__(self, op: Simplices):
        self.barycentric = op.barycentric
        self.pieces = op.pieces

    def prepare(self, forms, mode):
        return (forms, mode)

    def n_decisions(self, ctx):
        return 1

    def choices(self, forms, ctx, made):
        x, mode = ctx
        rel = "<" if mode == "open" else "<="
        return [Choice(f"s{k}", tuple(Row(-_affine_of(row, x), rel) for row in rows_k))
                for k, rows_k in enumerate(self.barycentric)]

    def finish(self, forms, ctx, made):
        x, _ = ctx
        return [_affine_of(list(a) + [c], x) for a, c in self.pieces[int(made[0][1:])]]


def _affine_of(row, x) -> AffineForm:
    """``a . x + c`` for ``row = [a_1 .. a_d, c]`` and x a vector of forms."""
    return linear_combination([(a, xi) for a, xi in zip(row, x) if a], row[-1])


class AttentionStage:
    """Hardmax attention on the flattened state (token t, row i at ``t*m + i``)."""

    def __init__(self, op: AttentionOp, T: int, m: int, path: str = "attention"):
        if op.rule != "hardmax":
            raise InputError("exact evaluation needs hardmax attention; this block uses softmax "
                             "(use evaluate_softmax, or with_rule('hardmax'))", path=f"{path}.rule")
        self.T, self.m, self.path = T, m, path
        self.heads = [(sparse_rows(h.WQ), sparse_rows(h.WK), sparse_rows(h.WO * h.WV)) for h in op.heads]

    def prepare(self, forms, mode):
        T, m = self.T, self.m
        Z = [forms[t * m : (t + 1) * m] for t in range(T)]
        scores = []
        for h, (WQ, WK, _) in enumerate(self.heads):
            Qs = [matrix_image(WQ, Z[t]) for t in range(T)]
            Ks = [matrix_image(WK, Z[s]) for s in range(T)]
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
        diff = S[key][t] - S[rep][t]
        if mode == "open":
            if diff.is_zero():
                return [Choice("=", ())]
            return [Choice("<", (Row(diff, "<"),)), Choice(">", (Row(-diff, "<"),))]
        return [Choice("<", (Row(diff, "<"),)), Choice("=", (Row(diff, "="),)), Choice(">", (Row(-diff, "<"),))]

    def finish(self, forms, ctx, made):
        T, m = self.T, self.m
        Z = [forms[t * m : (t + 1) * m] for t in range(T)]
        out = [list(z) for z in Z]
        per_query = T - 1
        for h, (_, _, WOV) in enumerate(self.heads):
            V = [matrix_image(WOV, Z[s]) for s in range(T)]
            for t in range(T):
                start = (h * T + t) * per_query
                M = self._argmax_so_far(made[start : start + per_query])
                w = Q(1, len(M))
                terms = [[(ONE, f)] for f in out[t]]
                for s in M:
                    for r, g in enumerate(V[s]):
                        terms[r].append((w, g))
                out[t] = [linear_combination(ts) for ts in terms]
        return [f for z in out for f in z]


def _bilinear(K, Qv, where) -> AffineForm:
    """``sum_j K_j(x) Q_j(x)`` as a form; refuses a genuinely quadratic score."""
    quad: dict = {}
    terms, const = [], ZERO
    for kf, qf in zip(K, Qv):
        for i, a in kf.coeffs.items():
            for j, b in qf.coeffs.items():
                quad[(i, j)] = quad.get((i, j), ZERO) + a * b
        terms += [(kf.const, qf), (qf.const, AffineForm(ZERO, kf.coeffs))]
    for i, j in {(min(p), max(p)) for p in quad}:
        if quad.get((i, j), ZERO) + quad.get((j, i), ZERO) != 0:
            raise InputError(
                "the attention score is quadratic in the input (query and key both depend on x), "
                "so cells are not polyhedra; cell enumeration needs affine scores",
                path=where,
            )
    return linear_combination(terms, const)


# -- programs as decision stages ---------------------------------------------------------


def _ranks_to_groups(ranks) -> list[list[int]]:
    groups, start = [], 0
    for k in ranks:
        groups.append(list(range(start, start + k)))
        start += k
    return groups


def _embedding_stage(op: Embed, T: int, m: int, d: int) -> AffineStage:
    """Token t, row i: ``offsets[i, t] + x_k`` where input k goes to row i."""
    offsets = rows(op.offsets)  # m x T
    W = [[ZERO] * d for _ in range(T * m)]
    b = [ZERO] * (T * m)
    for t in range(T):
        for i in range(m):
            b[t * m + i] = offsets[i][t]
        for k, r in enumerate(op.input_rows):
            W[t * m + r][k] += ONE
    return AffineStage(W, b)


def _feedforward_stages(op: FeedForwardOp, T: int, m: int) -> list:
    """Up (registers plus hidden units, token by token), ReLU on the hidden units, down."""
    h = op.hidden
    W1, b1, W2, b2 = rows(op.W1), flat(op.b1), rows(op.W2), flat(op.b2)
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
    return [AffineStage(up, up_b), ReluStage(list(range(n_in, n_in + n_hid))), AffineStage(down, down_b)]


def _readout_stage(op: ReadoutOp, T: int, m: int) -> AffineStage:
    RW = [[ZERO] * (T * m) for _ in range(op.W.shape[0])]
    for r, wrow in enumerate(rows(op.W)):
        for i in range(m):
            RW[r][op.token * m + i] = wrow[i]
    return AffineStage(RW, flat(op.b))


def decision_stages(model) -> list:
    """The decision stages of ``model`` (ReLU, maxout, CPWL1D, CPWL mesh or hardmax Transformer,
    or any kind whose lowering makes the operations below), read off its lowered program."""
    try:
        program = lower(model)
    except InputError:
        program = None
    if program is None:
        raise InputError(f"cell enumeration does not know models of kind {getattr(model, 'kind', type(model).__name__)}",
                         path="kind")
    T, m, d = program.tokens, program.width, program.input_dim
    stages = []
    for st in program.stages:
        for op in st.ops:
            if isinstance(op, Affine):
                stages.append(AffineStage(op.W, flat(op.b)))
            elif isinstance(op, Relu):
                stages.append(ReluStage())
            elif isinstance(op, Maxout):
                stages.append(MaxStage(_ranks_to_groups(op.ranks)))
            elif isinstance(op, Segment):
                stages.append(SegmentStage(op))
            elif isinstance(op, Simplices):
                stages.append(SimplexStage(op))
            elif isinstance(op, Embed):
                stages.append(_embedding_stage(op, T, m, d))
            elif isinstance(op, AttentionOp):
                stages.append(AttentionStage(op, T, m, path=st.name))
            elif isinstance(op, FeedForwardOp):
                stages += _feedforward_stages(op, T, m)
            elif isinstance(op, ReadoutOp):
                stages.append(_readout_stage(op, T, m))
            else:  # pragma: no cover - the lowerings make only the operations above
                raise InputError(f"cell enumeration cannot run the operation {type(op).__name__}", path=st.name)
    return stages


def is_continuous(model) -> bool:
    """Whether every model of ``model``'s kind is continuous (ReLU, maxout, CPWL1D and CPWL mesh
    models are; hardmax Transformers need not be)."""
    return (kind := kind_of(model)) is not None and kind.continuous


# -- running the decision stages of several models on the same input ------------------


class State:
    """Where the joint execution stands: model p, stage s, decisions ``made``
    so far in that stage, its context, the registers, finished outputs."""

    __slots__ = ("p", "s", "made", "ctx", "forms", "outputs")

    def __init__(self, p, s, made, ctx, forms, outputs):
        self.p, self.s, self.made, self.ctx, self.forms, self.outputs = p, s, made, ctx, forms, outputs


class Runner:
    """Runs the decision stages of ``models`` one after the other on the same input x."""

    def __init__(self, models: Sequence, dim: int, mode: str = "open"):
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}")
        for k, mdl in enumerate(models):
            if mdl.input_dim != dim:
                raise InputError(f"expected a model with {dim} inputs, got {mdl.input_dim}", path=f"models[{k}].input_dim")
        self.models = list(models)
        self.stage_lists = [decision_stages(mdl) for mdl in models]
        self.dim, self.mode = dim, mode

    def _identity(self):
        return [AffineForm.var(i) for i in range(self.dim)]

    def _settle(self, p, s, made, ctx, forms, outputs):
        """Run decision-free work until a decision is pending or all is done."""
        while p < len(self.stage_lists):
            prog = self.stage_lists[p]
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
        """The outcomes of the pending decision (None when all models are done)."""
        if state.p >= len(self.stage_lists):
            return None
        stage = self.stage_lists[state.p][state.s]
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
