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
"""

from __future__ import annotations

from ..exact import Q, flat, rational, rows
from ..models import Box, Transformer
from . import CertificateError, at_step, claim_checker
from .exp_bounds import EXP_CAP, exp_lower, exp_upper

ZERO = Q(0)


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
    if not isinstance(recorded, list):
        raise CertificateError("expected the list of linear ReLU pairs [h, g]", path=where)
    pairs, used = [], set()
    for k, pair in enumerate(recorded):
        ok = isinstance(pair, list) and len(pair) == 2 and all(isinstance(v, int) and not isinstance(v, bool)
                                                               and 0 <= v < len(W1) for v in pair)
        if not ok or pair[0] in used or pair[1] in used or pair[0] == pair[1]:
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

    O(k^2 m) for k hidden units of width m.
    """
    W1, b1 = rows(ff.exact_W1), flat(ff.exact_b1)
    W2cols = [list(c) for c in zip(*rows(ff.exact_W2))]
    pairs, paired = [], set()
    for h in range(len(W1)):
        if not any(W1[h]):
            continue
        for g in range(h):
            if g not in paired and [-v for v in W1[g]] == W1[h] and b1[h] == -b1[g] and \
                    [-v for v in W2cols[g]] == W2cols[h]:
                pairs.append([g, h])
                paired |= {g, h}
                break
    return pairs


def _fold(W1, W2cols, linear, m):
    """``I + sum_{h in linear} W2[:, h] W1[h, :]`` as a dense m x m list."""
    M = [[Q(1) if i == j else ZERO for j in range(m)] for i in range(m)]
    for h in linear:
        for r, w2 in enumerate(W2cols[h]):
            if w2:
                for c, w1 in enumerate(W1[h]):
                    if w1:
                        M[r][c] += w2 * w1
    return M


def _feedforward(ff, lo, hi, E, recorded, where):
    W1, b1 = rows(ff.exact_W1), flat(ff.exact_b1)
    W2cols = [list(c) for c in zip(*rows(ff.exact_W2))]
    b2 = flat(ff.exact_b2)
    m, T = len(lo[0]), len(lo)
    pairs, singles = _pairs(W1, b1, W2cols, recorded, where)
    firsts = [p for p, _ in pairs]
    nlo, nhi, nE = [], [], []
    for t in range(T):
        pre = [_row_range(W1[h], lo[t], hi[t], b1[h]) for h in range(len(W1))]
        # ranges (hardmax)
        lin = firsts + [h for h in singles if pre[h][0] >= 0]
        M = _fold(W1, W2cols, lin, m)
        const = list(b2)
        for h in lin:
            for r in range(m):
                const[r] += W2cols[h][r] * b1[h]
        tl, th = [], []
        for r in range(m):
            a, b = _row_range(M[r], lo[t], hi[t], const[r])
            tl.append(a)
            th.append(b)
        for h in singles:
            if pre[h][0] < 0 < pre[h][1]:
                for r in range(m):
                    w2 = W2cols[h][r]
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
        M = _fold(W1, W2cols, lin, m)
        row = [_absdot(M[r], E[t]) for r in range(m)]
        for h in loose:
            for r in range(m):
                row[r] += abs(W2cols[h][r]) * ea[h]
        nE.append(row)
    return nlo, nhi, nE


def _attention(att, lo, hi, E, lam, b, consts, record, where, used):
    T, m = len(lo), len(lo[0])
    olo, ohi, oE = [list(r) for r in lo], [list(r) for r in hi], [list(r) for r in E]
    gaps = {int(k): rational(v) for k, v in record.get("gap_upper", {}).items()}
    exps = {k: rational(v) for k, v in record.get("exp_upper", {}).items()}
    ties = record.get("tied_keys", {})
    if not isinstance(ties, dict):
        raise CertificateError("expected {\"block,head,token\": [tied key tokens]}", path=f"{where}.tied_keys")
    for i, head in enumerate(att.heads):
        WQ, WK, WV, WO = (rows(M) for M in head.exact_matrices())
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
                eK = [_absdot(r, E[s]) for r in WK]
                ka = [max(-a, b) for a, b in keys[s]]
                serr.append(sum((x * (y + z) + u * z for x, u, y, z in zip(eK, ka, qa, eQ)), ZERO))
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
            vals = [[_row_range(r, lo[s], hi[s]) for r in WV] for s in range(T)]
            eV = [[_absdot(r, E[s]) for r in WV] for s in range(T)]
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
    ok = isinstance(recorded, list) and len(recorded) >= 2 and len(set(map(repr, recorded))) == len(recorded) and all(
        isinstance(s, int) and not isinstance(s, bool) and 0 <= s < T for s in recorded)
    if not ok:
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
    blocks = len(T.blocks) if isinstance(T, Transformer) else 0
    return ["interval-ranges-box", "series-constants"] + ["block-error"] * blocks + ["readout-bound"]


def _keys(data, keys, where, optional=()):
    if not set(keys) <= set(data) <= set(keys) | set(optional):
        raise CertificateError(f"expected the fields {sorted(keys)}" + (f" (and {sorted(optional)})" if optional else "")
                               + f", got {sorted(data)}", path=where)


@claim_checker("softmax-bound", rules={"interval-ranges-box", "series-constants", "block-error", "readout-bound"},
               order=_softmax_order)
def check_softmax_bound(cert: dict, inputs: dict) -> None:
    T, D = inputs.get("transformer"), inputs.get("domain")
    if not isinstance(T, Transformer) or not isinstance(D, Box) or D.dim != T.input_dim:
        raise CertificateError("expected a transformer and a box domain of its input dimension", path="inputs")
    claim = cert["claim"]
    eps, lam = rational(claim["eps"], path="claim.eps"), rational(claim["lambda"], path="claim.lambda")
    if not (0 < eps and 0 < lam):
        raise CertificateError("expected eps > 0 and lambda > 0", path="claim")
    steps = cert["steps"]
    data = steps[0]["certificate"]
    _keys(data, {"blocks"}, "steps[0].certificate")
    if data["blocks"] != len(T.blocks) or isinstance(data["blocks"], bool):
        raise CertificateError(f"recorded {data['blocks']!r}, the transformer has {len(T.blocks)}", path="steps[0].certificate.blocks")
    at_step(1)
    c = steps[1]["certificate"]
    _keys(c, {"e_lower", "log_upper"}, "steps[1].certificate")
    e_lower = rational(c["e_lower"], path="steps[1].certificate.e_lower")
    if not (e_lower <= exp_lower(Q(1), _BITS) and exp_upper(Q(1), _BITS) - e_lower <= _TIGHT):
        raise CertificateError("is not a lower bound of e within 2^-80", path="steps[1].certificate.e_lower")
    if not isinstance(c["log_upper"], dict):
        raise CertificateError("expected {n: upper bound of ln n}", path="steps[1].certificate.log_upper")
    consts = {"e": e_lower, "log": {}}
    for n, L in c["log_upper"].items():
        where = f"steps[1].certificate.log_upper.{n}"
        if not n.isdigit() or int(n) < 2 or str(int(n)) != n:
            raise CertificateError("expected a number of tokens n >= 2 as the key", path=where)
        L = rational(L, path=where)
        # L >= ln n (exp(L) >= n) and L - 2^-80 < ln n (exp(L - 2^-80) < n)
        if not (L > 0 and exp_lower(L, _BITS) >= int(n) and exp_upper(L - _TIGHT, _BITS) < int(n)):
            raise CertificateError(f"is not an upper bound of ln {n} within 2^-80", path=where)
        consts["log"][int(n)] = L
    # embedding
    off = rows(T.embedding.exact_offsets.transpose())
    lo, hi = [list(r) for r in off], [list(r) for r in off]
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
        if rec["block"] != b or isinstance(rec["block"], bool):
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
        if not isinstance(rec["errors"], list) or len(rec["errors"]) != len(E):
            raise CertificateError(f"expected {len(E)} rows of errors", path=f"{where}.errors")
        for t, (got, want) in enumerate(zip(rec["errors"], E)):
            if not isinstance(got, list) or [rational(v, path=f"{where}.errors[{t}]") for v in got] != want:
                raise CertificateError("the recorded errors differ from the recomputed ones", path=f"{where}.errors[{t}]")
    if set(consts["log"]) != logs_used:
        raise CertificateError(f"expected ln n for the token counts {sorted(logs_used)} of the max heads",
                               path="steps[1].certificate.log_upper")
    k = 2 + len(T.blocks)
    at_step(k)
    where, rc = f"steps[{k}].certificate", steps[k]["certificate"]
    _keys(rc, {"output_error", "bound", "eps"}, where)
    out = [_absdot(r, E[T.readout.token]) for r in rows(T.readout.exact_W)]
    if not isinstance(rc["output_error"], list) or [rational(v) for v in rc["output_error"]] != out:
        raise CertificateError("the recorded output errors differ from the recomputed ones", path=f"{where}.output_error")
    bound = max(out) if out else ZERO
    if rational(rc["bound"]) != bound or bound > eps:
        raise CertificateError(f"recorded {rc['bound']}, recomputed {bound} (at most eps {eps})", path=f"{where}.bound")
    if rational(rc["eps"]) != eps:
        raise CertificateError(f"expected the claim's eps {eps}", path=f"{where}.eps")
