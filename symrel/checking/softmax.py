"""Independent checker of softmax-bound certificates ("softmax at lambda is within eps of
hardmax on the box").

Written apart from :mod:`symrel.softmax`: it shares nothing with it beyond the exact layer
and the models. It replays the error propagation of docs/theory.md#softmax-instead-of-hardmax with dense
matrices, from the embedded Transformer and box alone, and compares every recorded number
exactly:

* series constants: ``e_lower <= sum_{k<=60} 1/k! <= e`` and ``exp(log_upper(n)) >= n``
  through the lower bound ``exp(a) >= sum_{k<=N} a^k/k!`` (positive terms);
* every block: the hardmax ranges (interval arithmetic, linear units folded), the head
  kinds (max head: constant, error-free query, value rows multiples of the score functional;
  selection head: a winner with a positive margin, or a recorded set of ``tied_keys`` whose
  key vectors are one constant, carry no error, and beat every other key by a positive
  margin; they share the softmax weight equally), the recorded ``gap_upper(n)`` equal to
  ``min((n-1)/(e_lower lambda), log_upper(n)/lambda)``, each recorded ``exp_upper`` above
  ``exp(-lambda delta')`` for the margin ``delta'`` recomputed here, and the entrywise
  error matrix equal to the one recomputed here;
* the read-out errors, their maximum, and ``bound <= eps``.

Any altered number makes the check fail with a message naming the step.

Cost: :func:`work` counts the operations from the transformer's sizes before any is done
(the feed-forward fold is sparse: a wide net with few weights costs what its weights do),
and a check beyond :data:`MAX_WORK` operations or :data:`MAX_GROWTH_BITS` bits of weight
growth is refused with exit 2 (docs/format.md, "Limits of the checker"); a recorded
``log_upper(n)`` above the bit length of n is refused before its ``exp`` is taken.

>>> from symrel.checking.transformers import FeedForward
>>> fold_products(FeedForward([[1, 0, 0], [0, 2, 3]], [0, 0], [[1, 0], [0, 0], [0, 1]], [0, 0, 0]))
3
"""

from __future__ import annotations

from ..exact import Q
from ..exact.sizes import number_bits, weight
from . import CertificateError, at_step, beyond_limit, claim_checker, model_class, read
from .exp_bounds import EXP_CAP, exp_lower, exp_upper

ZERO = Q(0)

#: the most arithmetic operations a check may take, as :func:`work` counts them from the
#: transformer's sizes before any is done
MAX_WORK = 4_000_000
#: the most bits the weights of all blocks may add to a number on its way through the
#: blocks: the sum over blocks of the most bits of a weight matrix (:func:`_bits`)
MAX_GROWTH_BITS = 200_000
#: an exp enclosure at 256 bits, counted as this many operations by :func:`work`
EXP_WORK = 1000


def _size(M) -> int:
    """The entries of the matrix (a list of rows) or vector M."""
    return sum(len(r) if isinstance(r, list) else 1 for r in M)


def _bits(M) -> int:
    """The bits of the entries of the matrix (a list of rows) or vector M over their common
    denominator: twice the bits of that denominator (bounded, :mod:`symrel.exact.sizes`) and
    the longest numerator's. (A product by M adds at most these bits to a number: the longest
    entry alone would miss a row of many distinct denominators, whose sum has their lcm.)"""
    return number_bits([v for r in M for v in (r if isinstance(r, list) else [r])], where="inputs.transformer",
                       what="the common denominator of a weight matrix")


def _columns(ff) -> list:
    """The columns of the feed-forward sublayer's W2 (one per hidden unit), as lists."""
    return [[r[h] for r in ff.exact_W2] for h in range(ff.hidden)]


def work(T) -> tuple[int, int]:
    """What checking a softmax bound of the transformer T costs, from its sizes alone:
    ``(operations, growth bits)``. Per block with T tokens: per head
    ``T (|WQ| + |WK| + |WV| + |WO|) + T^2 (d_k + d_v + 1) + T EXP_WORK``; per feed-forward
    sublayer ``T (|W1| + |W2| + 2 folds + m)`` with a fold's products
    (:func:`fold_products`); growth: the sum over blocks of the longest weight. Linear in
    the size of T's matrices."""
    n, ops, growth = T.tokens, T.tokens * T.width, 0
    for block in T.blocks:
        longest = 0
        if block.attention is not None:
            for head in block.attention.heads:
                mats = head.exact_matrices()
                ops += n * sum(_size(M) for M in mats) + n * n * (len(mats[0]) + len(mats[2]) + 1) + n * EXP_WORK
                longest = max([longest] + [_bits(M) for M in mats])
        ff = block.feedforward
        if ff is not None:
            ops += n * (_size(ff.exact_W1) + _size(ff.exact_W2) + 2 * fold_products(ff) + T.width)
            longest = max([longest] + [_bits(M) for M in ff.exact_matrices()])
        growth += longest
    return ops, growth


# -- the series constants, pinned: each within 2^-80 of the number it bounds -------------
_TIGHT = Q(1, 2**80)
_BITS = 256  # precision of the checker's own enclosures here (far below _TIGHT)


def _check_exp_upper(x, a, where: str):
    """``exp(-a) <= x``, i.e. ``x * exp(a) >= 1``; beyond 2000, ``exp(-a) <= exp(-2000)``."""
    a = min(a, Q(EXP_CAP))
    if x * exp_lower(a, _BITS) < 1:
        raise CertificateError(f"{x} is not above exp(-{a})", path=where)


# -- intervals over token-major states -----------------------------------------------------
def _row_range(row, lo, hi, c=ZERO):
    a = b = c
    for v, l, u in zip(row, lo, hi):
        if v > 0:
            a, b = a + v * l, b + v * u
        elif v < 0:
            a, b = a + v * u, b + v * l
    return a, b


def _absdot(row, e):
    return sum((abs(v) * x for v, x in zip(row, e) if v and x), ZERO)


def _pairs(W1, b1, W2cols, recorded, where):
    """The linear pairs ``ReLU(u) - ReLU(-u) = u`` the proof relied on, as recorded:
    each pair ``[h, g]`` has W1 rows, b1 entries and W2 columns negated, and no
    unit is in two pairs; the other units are single ReLUs."""
    pairs, used = [], set()
    for k, pair in enumerate(read.array(recorded, where)):
        pair = read.indices(read.array(pair, f"{where}[{k}]", length=2), len(W1), f"{where}[{k}]", distinct=False)
        if pair[0] in used or pair[1] in used or pair[0] == pair[1]:
            raise CertificateError("expected two distinct hidden units not paired before", path=f"{where}[{k}]")
        h, g = pair
        if not any(W1[h]) or [-v for v in W1[h]] != W1[g] or b1[g] != -b1[h] or [-v for v in W2cols[h]] != W2cols[g]:
            raise CertificateError(f"units {h} and {g} are not a pair ReLU(u) - ReLU(-u)", path=f"{where}[{k}]")
        pairs.append((h, g))
        used |= {h, g}
    return pairs, [h for h in range(len(W1)) if h not in used]


def _derived_pairs(ff):
    """The linear ReLU pairs of a feed-forward sublayer, for certificates written before
    the pairing was recorded: in order of the hidden units, each unit h is paired with the
    first earlier unit g, not yet paired, that is ``-h`` (W1 row, b1 entry and W2 column
    negated, W1 row nonzero); pairs are ``[g, h]``. Any such pairing is sound
    (``ReLU(u) - ReLU(-u) = u``), and :func:`_pairs` checks it as a recorded one; a
    certificate whose bound rests on another pairing then fails on its recorded errors.

    O(k m) for k hidden units of width m: the units not yet paired wait in lists keyed by
    their (W1 row, b1 entry, W2 column), and a unit looks up the key of its negation.
    """
    W1, b1 = ff.exact_W1, ff.exact_b1
    W2cols = _columns(ff)
    waiting: dict = {}  # key -> the earlier units with that key not yet paired, in order
    pairs = []
    for h in range(len(W1)):
        if not any(W1[h]):
            continue
        key = (tuple(W1[h]), b1[h], tuple(W2cols[h]))
        negated = (tuple(-v for v in W1[h]), -b1[h], tuple(-v for v in W2cols[h]))
        earlier = waiting.get(negated)
        if earlier:
            pairs.append([earlier.pop(0), h])
        else:
            waiting.setdefault(key, []).append(h)
    return pairs


def _nonzero(rows_):
    """Each row as its nonzero ``(index, value)`` pairs."""
    return [[(j, v) for j, v in enumerate(r) if v] for r in rows_]


def _fold(W1nz, W2nz, linear, m):
    """The rows of ``I + sum_{h in linear} W2[:, h] W1[h, :]``, each as ``{column: coefficient}``
    (an absent column is 0). Sparse, so that a wide net with few weights costs what its weights
    do: ``m + sum_(h in linear) |W2[:, h]| |W1[h, :]|`` products (nonzero entries)."""
    M = [{r: Q(1)} for r in range(m)]
    for h in linear:
        for r, w2 in W2nz[h]:
            row = M[r]
            for c, w1 in W1nz[h]:
                row[c] = row.get(c, ZERO) + w2 * w1
    return M


def _sparse_range(row: dict, lo, hi, c):
    """The range of ``c + sum_j row[j] x_j`` over the box ``lo <= x <= hi``."""
    a = b = c
    for j, v in row.items():
        if v > 0:
            a, b = a + v * lo[j], b + v * hi[j]
        elif v < 0:
            a, b = a + v * hi[j], b + v * lo[j]
    return a, b


def _sparse_absdot(row: dict, e):
    return sum((abs(v) * e[j] for j, v in row.items() if v and e[j]), ZERO)


def fold_products(ff) -> int:
    """The products one fold of the feed-forward sublayer ``ff`` may take at most (every hidden
    unit linear): ``sum_h |W2[:, h]| |W1[h, :]|`` (nonzero entries)."""
    W1nz = _nonzero(ff.exact_W1)
    W2nz = _nonzero(_columns(ff))
    return sum(len(a) * len(b) for a, b in zip(W1nz, W2nz))


def _feedforward(ff, lo, hi, E, recorded, where):
    W1, b1 = ff.exact_W1, ff.exact_b1
    W2cols = _columns(ff)
    W1nz, W2nz = _nonzero(W1), _nonzero(W2cols)
    b2 = ff.exact_b2
    m, T = len(lo[0]), len(lo)
    pairs, singles = _pairs(W1, b1, W2cols, recorded, where)
    firsts = [p for p, _ in pairs]
    nlo, nhi, nE = [], [], []
    for t in range(T):
        pre = [_row_range(W1[h], lo[t], hi[t], b1[h]) for h in range(len(W1))]
        # ranges (hardmax)
        lin = firsts + [h for h in singles if pre[h][0] >= 0]
        M = _fold(W1nz, W2nz, lin, m)
        const = list(b2)
        for h in lin:
            for r, w2 in W2nz[h]:
                const[r] += w2 * b1[h]
        tl, th = [], []
        for r in range(m):
            a, b = _sparse_range(M[r], lo[t], hi[t], const[r])
            tl.append(a)
            th.append(b)
        for h in singles:
            if pre[h][0] < 0 < pre[h][1]:
                for r, w2 in W2nz[h]:
                    if w2 > 0:
                        th[r] += w2 * pre[h][1]
                    elif w2 < 0:
                        tl[r] += w2 * pre[h][1]
        nlo.append(tl)
        nhi.append(th)
        # errors (softmax vs hardmax)
        ea = {h: _absdot(W1[h], E[t]) for h in singles}
        lin = firsts + [h for h in singles if pre[h][0] >= ea[h]]
        loose = [h for h in singles if not pre[h][0] >= ea[h] and not pre[h][1] <= -ea[h]]
        M = _fold(W1nz, W2nz, lin, m)
        row = [_sparse_absdot(M[r], E[t]) for r in range(m)]
        for h in loose:
            for r, w2 in W2nz[h]:
                row[r] += abs(w2) * ea[h]
        nE.append(row)
    return nlo, nhi, nE


def _attention(att, lo, hi, E, lam, b, consts, record, where, used):
    T, m = len(lo), len(lo[0])
    olo, ohi, oE = [list(r) for r in lo], [list(r) for r in hi], [list(r) for r in E]
    gaps = {}
    for k, v in read.record(record.get("gap_upper", {}), f"{where}.gap_upper", optional=_counts(T)).items():
        gaps[int(k)] = read.rational(v, f"{where}.gap_upper.{k}")
    queries = [f"{b},{i},{t}" for i in range(len(att.heads)) for t in range(T)]  # "block,head,token"
    exps = {k: read.rational(v, f"{where}.exp_upper.{k}")
            for k, v in read.record(record.get("exp_upper", {}), f"{where}.exp_upper", optional=queries).items()}
    ties = read.record(record.get("tied_keys", {}), f"{where}.tied_keys", optional=queries)
    for i, head in enumerate(att.heads):
        WQ, WK, WV, WO = head.exact_matrices()
        qs = [[_row_range(r, lo[t], hi[t]) for r in WQ] for t in range(T)]
        q = [a for a, _ in qs[0]] if all(a == b for t in range(T) for a, b in qs[t]) and all(
            [a for a, _ in qs[t]] == [a for a, _ in qs[0]] for t in range(T)) else None
        k = [sum((qr * WK[r][c] for r, qr in enumerate(q)), ZERO) for c in range(m)] if q is not None else None
        mus = None
        if k is not None and any(k):
            c0 = next(c for c, v in enumerate(k) if v)
            mus = [Vr[c0] / k[c0] for Vr in WV]
            if any(Vr != [mu * v for v in k] for Vr, mu in zip(WV, mus)):
                mus = None
        if mus is not None:  # max head
            if any(_absdot(r, E[t]) for r in WQ for t in range(T)):
                raise CertificateError(f"head {i} is a max head whose query carries an error", path=where)
            w = [sum((WO[r][j] * mu for j, mu in enumerate(mus)), ZERO) for r in range(m)]
            sc = [_row_range(k, lo[s], hi[s]) for s in range(T)]
            mlo, mhi = max(a for a, _ in sc), max(b for _, b in sc)
            n = T
            if n > 1:
                if n not in consts["log"]:
                    raise CertificateError(f"expected an upper bound of ln {n}", path="steps[1].certificate.log_upper")
                want = min((n - 1) / (consts["e"] * lam), consts["log"][n] / lam)
                used["gap"].add(n)
                if gaps.get(n) != want:
                    raise CertificateError(f"gap_upper for n={n} is {gaps.get(n)}, recomputed {want}", path=where)
                gap = want
            else:
                gap = ZERO
            err = max(_absdot(k, E[s]) for s in range(T)) + gap
            for t in range(T):
                for r in range(m):
                    if w[r]:
                        olo[t][r] += w[r] * (mlo if w[r] > 0 else mhi)
                        ohi[t][r] += w[r] * (mhi if w[r] > 0 else mlo)
                        oE[t][r] += abs(w[r]) * err
            continue
        keys = [[_row_range(r, lo[s], hi[s]) for r in WK] for s in range(T)]
        # what does not depend on the query token t, once per head
        eKs = [[_absdot(r, E[s]) for r in WK] for s in range(T)]
        kas = [[max(-a, b) for a, b in keys[s]] for s in range(T)]
        vals = [[_row_range(r, lo[s], hi[s]) for r in WV] for s in range(T)]
        eV = [[_absdot(r, E[s]) for r in WV] for s in range(T)]
        for t in range(T):
            sc = []
            for s in range(T):
                slo = shi = ZERO  # (not a, b: b is the block's index)
                for (kl, kh), (ql, qh) in zip(keys[s], qs[t]):
                    p = (kl * ql, kl * qh, kh * ql, kh * qh)
                    slo, shi = slo + min(p), shi + max(p)
                sc.append((slo, shi))
            key = f"{b},{i},{t}"
            if key in ties:
                win = _tied(ties[key], keys, E, WK, T, f"{where}.tied_keys.{key}")
                used["tied"].add(key)
            else:
                win = [max(range(T), key=lambda s: sc[s][0])]
            rest = [s for s in range(T) if s not in win]
            if rest and sc[win[0]][0] - max(sc[s][1] for s in rest) <= 0:
                raise CertificateError(f"head {i} is neither a max head nor a selection head with a margin", path=where)
            eQ = [_absdot(r, E[t]) for r in WQ]
            qa = [max(-a, b) for a, b in qs[t]]
            serr = []
            for s in range(T):
                serr.append(sum((x * (y + z) + u * z for x, u, y, z in zip(eKs[s], kas[s], qa, eQ)), ZERO))
            loss = ZERO
            if rest:  # weight on each other key <= exp(-lambda left) / |win|
                delta = sc[win[0]][0] - max(sc[s][1] for s in rest)
                left = delta - max(serr[w] for w in win) - max(serr[s] for s in rest)
                if left <= 0:
                    raise CertificateError(f"head {i}, token {t}: the margin does not absorb the score error", path=where)
                if key not in exps:
                    raise CertificateError(f"missing exp_upper {key}", path=where)
                _check_exp_upper(exps[key], lam * left, f"{where}.exp_upper.{key}")
                used["exp"].add(key)
                loss = len(rest) * exps[key] / len(win)
            for j in range(len(WV)):
                vmax = max(max(-vals[s][j][0], vals[s][j][1]) + eV[s][j] for s in range(T))
                ej = sum((eV[w][j] for w in win), ZERO) / len(win) + 2 * loss * vmax
                a = sum((vals[w][j][0] for w in win), ZERO) / len(win)
                bb = sum((vals[w][j][1] for w in win), ZERO) / len(win)
                for r in range(m):
                    v = WO[r][j]
                    if v:
                        olo[t][r] += v * (a if v > 0 else bb)
                        ohi[t][r] += v * (bb if v > 0 else a)
                        oE[t][r] += abs(v) * ej
    return olo, ohi, oE


def _tied(recorded, keys, E, WK, T, where):
    """The recorded tied keys, checked: two or more distinct tokens whose key vectors (the
    ranges of ``W_K Z_s``) are one and the same constant, so their hardmax scores are equal
    for every query, and whose keys carry no error, so their softmax scores are too."""
    if len(read.indices(recorded, T, where)) < 2:
        raise CertificateError(f"expected two or more distinct key tokens below {T}", path=where)
    first = keys[recorded[0]]
    if any(a != b for a, b in first) or any(keys[s] != first for s in recorded):
        raise CertificateError("the key vectors of these tokens are not one constant on the box", path=where)
    if any(_absdot(r, E[s]) for r in WK for s in recorded):
        raise CertificateError("the keys of these tokens carry an error, so their softmax weights may differ",
                               path=where)
    return list(recorded)


def _softmax_order(claim, inputs):
    T = inputs.get("transformer")
    blocks = len(T.blocks) if model_class(T) == "transformer" else 0
    return ["interval-ranges-box", "series-constants"] + ["block-error"] * blocks + ["readout-bound"]


def _keys(data, keys, where, optional=()):
    read.record(data, where, sorted(keys), sorted(optional))


def _counts(T: int) -> list:
    """The token counts ``"2" .. "T"`` as keys (a record of any other key is refused unread)."""
    return [str(n) for n in range(2, T + 1)]


@claim_checker("softmax-bound", rules={"interval-ranges-box", "series-constants", "block-error", "readout-bound"},
               order=_softmax_order)
def check_softmax_bound(cert: dict, inputs: dict) -> None:
    T, D = inputs.get("transformer"), inputs.get("domain")
    if not model_class(T) == "transformer" or not model_class(D) == "box" or D.dim != T.input_dim:
        raise CertificateError("expected a transformer and a box domain of its input dimension", path="inputs")
    ops, growth = work(T)
    ops *= weight(growth)   # operations on long numbers count by their size (symrel.exact.sizes)
    if ops > MAX_WORK:
        raise beyond_limit("softmax-bound operations", ops, MAX_WORK, "inputs.transformer")
    if growth > MAX_GROWTH_BITS:
        raise beyond_limit("softmax-bound number growth", f"{growth} bits", f"{MAX_GROWTH_BITS} bits", "inputs.transformer")
    claim = cert["claim"]
    eps, lam = read.rational(claim["eps"], "claim.eps"), read.rational(claim["lambda"], "claim.lambda")
    if not (0 < eps and 0 < lam):
        raise CertificateError("expected eps > 0 and lambda > 0", path="claim")
    steps = cert["steps"]
    data = steps[0]["certificate"]
    _keys(data, {"blocks"}, "steps[0].certificate")
    if read.integer(data["blocks"], "steps[0].certificate.blocks") != len(T.blocks):
        raise CertificateError(f"recorded {data['blocks']!r}, the transformer has {len(T.blocks)}", path="steps[0].certificate.blocks")
    at_step(1)
    c = steps[1]["certificate"]
    _keys(c, {"e_lower", "log_upper"}, "steps[1].certificate")
    e_lower = read.rational(c["e_lower"], "steps[1].certificate.e_lower")
    if not (e_lower <= exp_lower(Q(1), _BITS) and exp_upper(Q(1), _BITS) - e_lower <= _TIGHT):
        raise CertificateError("is not a lower bound of e within 2^-80", path="steps[1].certificate.e_lower")
    consts = {"e": e_lower, "log": {}}
    for n, L in read.record(c["log_upper"], "steps[1].certificate.log_upper", optional=_counts(T.tokens)).items():
        where = f"steps[1].certificate.log_upper.{n}"
        L = read.rational(L, where)
        # L >= ln n (exp(L) >= n) and L - 2^-80 < ln n (exp(L - 2^-80) < n); ln n < log2 n <= the
        # bits of n, so a larger L is refused before exp is taken
        if not (0 < L <= int(n).bit_length() and exp_lower(L, _BITS) >= int(n) and exp_upper(L - _TIGHT, _BITS) < int(n)):
            raise CertificateError(f"is not an upper bound of ln {n} within 2^-80", path=where)
        consts["log"][int(n)] = L
    # embedding
    off = T.embedding.exact_offsets   # m rows of T numbers: token t's column is [r[t] for r in off]
    lo, hi = ([[r[t] for r in off] for t in range(T.tokens)] for _ in range(2))
    for (l, u), r in zip(D.exact_bounds, T.embedding.input_rows):
        for t in range(T.tokens):
            lo[t][r] += l
            hi[t][r] += u
    E = [[ZERO] * T.width for _ in range(T.tokens)]
    logs_used = set()
    for b, block in enumerate(T.blocks):
        where = f"steps[{2 + b}].certificate"
        rec = steps[2 + b]["certificate"]
        at_step(2 + b)
        if block.feedforward is not None and isinstance(rec, dict) and "relu_pairs" not in rec:
            # written before the pairing was recorded: the checker pairs the units by its own
            # rule, then checks the pairing and the errors exactly as recorded ones
            rec = dict(rec, relu_pairs=_derived_pairs(block.feedforward))
        _keys(rec, {"block", "errors"} | ({"relu_pairs"} if block.feedforward is not None else set()), where,
              optional={"gap_upper", "exp_upper", "tied_keys"})
        if read.integer(rec["block"], f"{where}.block") != b:
            raise CertificateError(f"expected block {b} (blocks in order)", path=f"{where}.block")
        used = {"gap": set(), "exp": set(), "tied": set()}
        if block.attention is not None:
            lo, hi, E = _attention(block.attention, lo, hi, E, lam, b, consts, rec, where, used)
        if block.feedforward is not None:
            lo, hi, E = _feedforward(block.feedforward, lo, hi, E, rec["relu_pairs"], f"{where}.relu_pairs")
        if {int(n) for n in rec.get("gap_upper", {})} != used["gap"] or (rec.get("gap_upper") == {}):
            raise CertificateError(f"expected a gap bound for each max head's token count {sorted(used['gap'])}",
                                   path=f"{where}.gap_upper")
        if set(rec.get("exp_upper", {})) != used["exp"] or (rec.get("exp_upper") == {}):
            raise CertificateError(f"expected an exp bound for each selection head and token {sorted(used['exp'])}",
                                   path=f"{where}.exp_upper")
        if set(rec.get("tied_keys", {})) != used["tied"] or (rec.get("tied_keys") == {}):
            raise CertificateError(f"expected tied keys only for selection heads and tokens {sorted(used['tied'])}",
                                   path=f"{where}.tied_keys")
        logs_used |= used["gap"]
        for t, (got, want) in enumerate(zip(read.array(rec["errors"], f"{where}.errors", length=len(E)), E)):
            if read.rationals(got, f"{where}.errors[{t}]", length=len(want)) != want:
                raise CertificateError("the recorded errors differ from the recomputed ones", path=f"{where}.errors[{t}]")
    if set(consts["log"]) != logs_used:
        raise CertificateError(f"expected ln n for the token counts {sorted(logs_used)} of the max heads",
                               path="steps[1].certificate.log_upper")
    k = 2 + len(T.blocks)
    at_step(k)
    where, rc = f"steps[{k}].certificate", steps[k]["certificate"]
    _keys(rc, {"output_error", "bound", "eps"}, where)
    out = [_absdot(r, E[T.readout.token]) for r in T.readout.exact_W]
    if read.rationals(rc["output_error"], f"{where}.output_error", length=len(out)) != out:
        raise CertificateError("the recorded output errors differ from the recomputed ones", path=f"{where}.output_error")
    bound = max(out) if out else ZERO
    if read.rational(rc["bound"], f"{where}.bound") != bound or bound > eps:
        raise CertificateError(f"recorded {rc['bound']}, recomputed {bound} (at most eps {eps})", path=f"{where}.bound")
    if read.rational(rc["eps"], f"{where}.eps") != eps:
        raise CertificateError(f"expected the claim's eps {eps}", path=f"{where}.eps")


# -- what a checked certificate proves (symrel.checking.claims) ----------------------------
from .claims import claim_statement, domain_words, model_words, number_words  # noqa: E402  (the hook)
from .read import rational as _rational  # noqa: E402


@claim_statement("softmax-bound", keys=("eps", "lambda"), inputs=("transformer", "domain"))
def statement(claim, inputs) -> str:
    """The softmax Transformer at lambda is within eps of the hardmax one on the box."""
    eps, lam = _rational(claim["eps"], "claim.eps"), _rational(claim["lambda"], "claim.lambda")
    return (f"for all x in D, |T_softmax(lambda)(x) - T_hardmax(x)|_inf <= {number_words(eps)} at lambda = "
            f"{number_words(lam)}, where T is {model_words(inputs['transformer'])} and D is "
            f"{domain_words(inputs['domain'])}")
