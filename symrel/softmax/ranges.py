"""Exact interval ranges of a hardmax Transformer's states over a box, and the plan of
every sublayer that the error propagation of :mod:`symrel.softmax.network` follows.

The state ``Z_b`` after block b is enclosed entry by entry, ``lo <= Z_b[r, t] <= hi`` for
every x in the box (exact rationals; each entry's range is sound, correlations between
entries are dropped except where a sublayer is linear):

* embedding: offsets plus the box intervals on the input rows;
* feed-forward ``Z + W2 ReLU(W1 Z + b1) + b2``, token by token: a hidden unit whose
  pre-activation range is ``>= 0`` is linear there, one with range ``<= 0`` is zero,
  a pair ``ReLU(u) - ReLU(-u)`` (rows of W1 and b1 negated, columns of W2 negated) is the
  identity ``u``; all linear units are folded into one matrix ``I + W2_L W1_L`` before the
  interval product, so a "move" ``X <- O`` keeps the range of O exactly;
* attention, per head: a **max head** (query constant over tokens and box, every value
  row a multiple ``mu`` of the score functional ``k = q^T W_K``) outputs
  ``W_O mu max_s k.Z_s``; a **selection head** (for every query t a set W(t) of keys whose
  scores beat every other key's by a proven margin ``delta_t > 0`` on the whole box: one key,
  or keys whose key vectors ``W_K Z_s`` are one and the same constant on the box, so that
  their scores are equal for every query) outputs the average of ``W_O W_V Z_w`` over W(t).
  Any other head is an obstacle, reported in words.

Cost: O(blocks x tokens x nonzeros of the weights); computed once, independent of lambda.

>>> from symrel.compiler import compile_maxout
>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
>>> plan = analyse(compile_maxout(net, Box([[-1, 1]])).transformer, Box([[-1, 1]]))
>>> [h.kind for b in plan.blocks if b.heads for h in b.heads]
['max']
>>> [str(v) for v in plan.output_ranges[0]]   # |x| on [-1, 1]: sound, not tight
['-1', '1']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError
from ..exact import Q, Rational, flat, rows, sparse_columns, sparse_rows
from ..exact.forms import AffineForm, linear_combination
from ..lowering import AttentionOp, Embed, FeedForwardOp, lower
from ..models import Box, Transformer

Interval = tuple[Rational, Rational]
Sparse = list[tuple[int, Rational]]


def dot_interval(form: AffineForm, box: list[Interval], const: Rational = Q(0)) -> Interval:
    """The exact range of ``form + const`` over independent ``z_c in box[c]``: the range of
    an affine form over a box (:meth:`symrel.exact.forms.AffineForm.range_on_box`)."""
    if const:
        form = AffineForm(form.const + const, form.coeffs)
    return form.range_on_box(box)


def linear_forms(M) -> list[AffineForm]:
    """The rows of the matrix ``M`` as linear forms of the state's entries."""
    return [AffineForm(Q(0), dict(row)) for row in sparse_rows(M)]


def token_boxes(lo: list[list[Rational]], hi: list[list[Rational]]) -> list[list[Interval]]:
    """Per token, the box ``[lo[t][r], hi[t][r]]`` of its entries."""
    return [list(zip(l, h)) for l, h in zip(lo, hi)]


def max_abs(iv: Interval) -> Rational:
    return max(-iv[0], iv[1])


@dataclass
class FeedForwardPlan:
    """Sparse weights of a feed-forward sublayer, its linear pairs, and the hardmax
    pre-activation range ``pre[t][h]`` of every unit at every token."""

    W1: list[AffineForm]
    b1: list[Rational]
    W2cols: list[Sparse]
    b2: list[Rational]
    pairs: list[tuple[int, int]]
    singles: list[int]
    pre: list[list[Interval]] = field(default_factory=list)


@dataclass
class HeadPlan:
    """One attention head: ``kind`` is ``"max"`` or ``"selection"`` (else an obstacle)."""

    index: int
    kind: str
    # max head: score functional k (on Z), output direction w = W_O mu
    k: AffineForm = field(default_factory=AffineForm)
    w: Sparse = field(default_factory=list)
    # selection head
    WQ: list[AffineForm] = field(default_factory=list)
    WK: list[AffineForm] = field(default_factory=list)
    WV: list[AffineForm] = field(default_factory=list)
    WO: list[Sparse] = field(default_factory=list)
    #: per query, the argmax set W(t): one key, or keys tied on the whole box (:func:`tied_keys`)
    winners: list[list[int]] = field(default_factory=list)
    #: per query, the least score of W(t) minus the largest other score (1 when no other key)
    margins: list[Rational] = field(default_factory=list)
    key_ranges: list[list[Interval]] = field(default_factory=list)
    query_ranges: list[list[Interval]] = field(default_factory=list)
    value_ranges: list[list[Interval]] = field(default_factory=list)
    note: str = ""


@dataclass
class BlockPlan:
    """The plan of one block and the ranges ``lo[t][r], hi[t][r]`` of the state after it."""

    index: int
    heads: list[HeadPlan] | None = None
    feedforward: FeedForwardPlan | None = None
    lo: list[list[Rational]] = field(default_factory=list)
    hi: list[list[Rational]] = field(default_factory=list)


@dataclass
class Plan:
    """The range analysis of a Transformer over a box."""

    transformer: Transformer
    box: list[Interval]
    blocks: list[BlockPlan]
    obstacles: list[str]
    output_ranges: list[Interval] = field(default_factory=list)
    #: the read-out's rows, as linear forms of the read token's state
    readout: list[AffineForm] = field(default_factory=list)


def linear_pairs(W1: list[AffineForm], b1: list[Rational], W2cols: list[Sparse]) -> tuple[list[tuple[int, int]], list[int]]:
    """Hidden units ``h, h'`` with ``W1[h'] = -W1[h]``, ``b1[h'] = -b1[h]`` and
    ``W2[:, h'] = -W2[:, h]``: together they add ``W2[:, h] (W1[h] z + b1[h])`` exactly,
    since ``ReLU(u) - ReLU(-u) = u``. Returns the pairs and the remaining units."""

    def key(h, sign):
        return (tuple((c, sign * v) for c, v in W1[h].coeffs.items()), sign * b1[h],
                tuple((r, sign * v) for r, v in W2cols[h]))

    waiting: dict = {}
    pairs, used = [], set()
    for h in range(len(W1)):
        partner = waiting.get(key(h, -1))
        if partner is not None and partner not in used and W1[h].coeffs:
            pairs.append((partner, h))
            used.update((partner, h))
            del waiting[key(h, -1)]
        else:
            waiting.setdefault(key(h, 1), h)
    return pairs, [h for h in range(len(W1)) if h not in used]


def embed_ranges(embed: Embed, box: list[Interval]) -> tuple[list[list[Rational]], list[list[Rational]]]:
    """Token-major ``lo[t][r], hi[t][r]`` of the embedded state over the box."""
    off = rows(embed.offsets.transpose())  # T rows of m numbers
    lo = [list(r) for r in off]
    hi = [list(r) for r in off]
    for (l, u), r in zip(box, embed.input_rows):
        for t in range(len(off)):
            lo[t][r] += l
            hi[t][r] += u
    return lo, hi


def linear_fold(ff: FeedForwardPlan, linear: list[int]) -> dict[int, dict[int, Rational]]:
    """The sparse matrix ``W2_L W1_L`` of the units in ``linear`` (pairs count once)."""
    M: dict[int, dict[int, Rational]] = {}
    for h in linear:
        for r, w2 in ff.W2cols[h]:
            row = M.setdefault(r, {})
            for c, w1 in ff.W1[h].coeffs.items():
                row[c] = row.get(c, Q(0)) + w2 * w1
    return M


def _feedforward_ranges(ff: FeedForwardPlan, lo, hi):
    T = len(lo)
    boxes = token_boxes(lo, hi)
    new_lo, new_hi = [], []
    ff.pre = []
    for t in range(T):
        pre = [dot_interval(ff.W1[h], boxes[t], ff.b1[h]) for h in range(len(ff.W1))]
        ff.pre.append(pre)
        linear = [p for p, _ in ff.pairs] + [h for h in ff.singles if pre[h][0] >= 0]
        M = linear_fold(ff, linear)
        const = list(ff.b2)
        for h in linear:
            for r, w2 in ff.W2cols[h]:
                const[r] += w2 * ff.b1[h]
        tl, th = [], []
        for r in range(len(lo[t])):
            coeffs = dict(M.get(r, {}))
            coeffs[r] = coeffs.get(r, Q(0)) + 1
            a, b = AffineForm(const[r], {c: v for c, v in coeffs.items() if v}).range_on_box(boxes[t])
            tl.append(a)
            th.append(b)
        for h in ff.singles:
            plo, phi = pre[h]
            if plo < 0 < phi:  # undetermined sign: ReLU ranges over [0, phi]
                for r, w2 in ff.W2cols[h]:
                    if w2 > 0:
                        th[r] += w2 * phi
                    else:
                        tl[r] += w2 * phi
        new_lo.append(tl)
        new_hi.append(th)
    return new_lo, new_hi


def _proportional(row: AffineForm, k: AffineForm) -> Rational | None:
    """``mu`` with ``row = mu k`` (None when not proportional; ``k`` nonzero)."""
    if not row.coeffs:
        return Q(0)
    kd = k.coeffs
    c0, v0 = next(iter(row.coeffs.items()))
    if c0 not in kd:
        return None
    mu = v0 / kd[c0]
    return mu if row.coeffs == {c: mu * v for c, v in kd.items()} else None


def _constant_query(WQ: list[AffineForm], lo, hi) -> list[Rational] | None:
    """``q`` when ``W_Q Z_t`` is one exact vector for every token over the box."""
    q = None
    for box in token_boxes(lo, hi):
        qt = []
        for row in WQ:
            a, b = dot_interval(row, box)
            if a != b:
                return None
            qt.append(a)
        if q is None:
            q = qt
        elif qt != q:
            return None
    return q


def tied_keys(keys: list[list[Interval]], w: int) -> list[int]:
    """The keys ``s`` whose key vector ``W_K Z_s`` is one exact constant on the box, the same
    as key ``w``'s: their scores ``q . k_s`` are then equal for every query at every point,
    so hardmax averages them all (``[w]`` alone when ``w``'s key vector is not constant).
    O(tokens x key rows).

    >>> from symrel.exact import Q
    >>> c, v = (Q(0), Q(0)), (Q(0), Q(1))
    >>> tied_keys([[c], [v], [c]], 0), tied_keys([[v], [v], [c]], 0)
    ([0, 2], [0])
    """
    if any(a != b for a, b in keys[w]):
        return [w]
    return [s for s in range(len(keys)) if keys[s] == keys[w]]


def _plan_head(i: int, head, lo, hi) -> HeadPlan:
    WQ, WK, WV = (linear_forms(M) for M in (head.WQ, head.WK, head.WV))
    WOcols = sparse_columns(head.WO)
    T = len(lo)
    q = _constant_query(WQ, lo, hi)
    if q is not None:
        ks = linear_combination(zip(q, WK))   # the score functional k = q^T W_K
        mus = [_proportional(row, ks) for row in WV] if ks.coeffs else [None]
        if ks.coeffs and all(mu is not None for mu in mus):
            w: dict[int, Rational] = {}
            for mu, col in zip(mus, WOcols):
                for r, v in col:
                    w[r] = w.get(r, Q(0)) + mu * v
            return HeadPlan(i, "max", k=ks, w=[(r, v) for r, v in sorted(w.items()) if v], WQ=WQ)
    # selection: score ranges per query
    boxes = token_boxes(lo, hi)
    keys = [[dot_interval(row, boxes[s]) for row in WK] for s in range(T)]
    queries = [[dot_interval(row, boxes[t]) for row in WQ] for t in range(T)]
    winners, margins = [], []
    for t in range(T):
        scores = []
        for s in range(T):
            a = b = Q(0)
            for (kl, kh), (ql, qh) in zip(keys[s], queries[t]):
                p = (kl * ql, kl * qh, kh * ql, kh * qh)
                a, b = a + min(p), b + max(p)
            scores.append((a, b))
        w = max(range(T), key=lambda s: scores[s][0])
        tied = tied_keys(keys, w)
        others = [scores[s][1] for s in range(T) if s not in tied]
        delta = scores[w][0] - max(others) if others else Q(1)
        if delta <= 0:
            return HeadPlan(i, "obstacle", note=(
                f"head {i} is not a value = score head with a constant query, and at query token {t} "
                f"no key wins by a proven margin on the box (best margin {delta})"))
        winners.append(tied)
        margins.append(delta)
    values = [[dot_interval(row, boxes[s]) for row in WV] for s in range(T)]
    return HeadPlan(i, "selection", WQ=WQ, WK=WK, WV=WV, WO=WOcols, winners=winners, margins=margins,
                    key_ranges=keys, query_ranges=queries, value_ranges=values)


def _head_ranges(plan: HeadPlan, lo, hi, out_lo, out_hi):
    T = len(lo)
    if plan.kind == "max":
        top = [dot_interval(plan.k, box) for box in token_boxes(lo, hi)]
        mlo, mhi = max(a for a, _ in top), max(b for _, b in top)
        for t in range(T):
            for r, v in plan.w:
                out_lo[t][r] += v * (mlo if v > 0 else mhi)
                out_hi[t][r] += v * (mhi if v > 0 else mlo)
    else:
        for t in range(T):
            W = plan.winners[t]
            for j, col in enumerate(plan.WO):  # the average over the argmax set, interval by interval
                a = sum((plan.value_ranges[w][j][0] for w in W), Q(0)) / len(W)
                b = sum((plan.value_ranges[w][j][1] for w in W), Q(0)) / len(W)
                for r, v in col:
                    out_lo[t][r] += v * (a if v > 0 else b)
                    out_hi[t][r] += v * (b if v > 0 else a)


def analyse(T: Transformer, domain) -> Plan:
    """The range analysis and sublayer plan of ``T`` over a box domain (see the module doc)."""
    if not isinstance(domain, Box):
        raise InputError(f"expected a box domain, got a {getattr(domain, 'kind', type(domain).__name__)} "
                         "(an exact bounding box of a polytope is not available yet)", path="domain.kind")
    if domain.dim != T.input_dim:
        raise InputError(f"expected a domain of dimension {T.input_dim}, got {domain.dim}", path="domain.bounds")
    box = list(domain.exact_bounds)
    program = lower(T)
    embed, = program.stages[0].ops
    lo, hi = embed_ranges(embed, box)
    blocks, obstacles = [], []
    for b in range(program.blocks):
        sublayers = {type(op): op for st in program.block_stages(b) for op in st.ops}
        attention, ff = sublayers.get(AttentionOp), sublayers.get(FeedForwardOp)
        bp = BlockPlan(b)
        if attention is not None:
            bp.heads = [_plan_head(i, h, lo, hi) for i, h in enumerate(attention.heads)]
            out_lo, out_hi = [list(r) for r in lo], [list(r) for r in hi]
            for hp in bp.heads:
                if hp.kind == "obstacle":
                    obstacles.append(f"block {b}: {hp.note}")
                else:
                    _head_ranges(hp, lo, hi, out_lo, out_hi)
            lo, hi = out_lo, out_hi
        if ff is not None:
            W1, W2cols = linear_forms(ff.W1), sparse_columns(ff.W2)
            b1, b2 = flat(ff.b1), flat(ff.b2)
            pairs, singles = linear_pairs(W1, b1, W2cols)
            bp.feedforward = FeedForwardPlan(W1, b1, W2cols, b2, pairs, singles)
            lo, hi = _feedforward_ranges(bp.feedforward, lo, hi)
        bp.lo, bp.hi = lo, hi
        blocks.append(bp)
    readout, = program.stages[-1].ops
    t = readout.token
    W = linear_forms(readout.W)
    box_t = token_boxes(lo, hi)[t]
    outs = [dot_interval(row, box_t, c) for row, c in zip(W, flat(readout.b))]
    return Plan(T, box, blocks, obstacles, outs, W)


