"""Independent checker of softmax-bound certificates ("softmax at lambda is within eps of
hardmax on the box").

Written apart from :mod:`symrel.softmax`: it shares nothing with it beyond the exact layer
and the models. It replays the error propagation of THEORY.md section 4 with dense
matrices, from the embedded Transformer and box alone, and compares every recorded number
exactly:

* series constants: ``e_lower <= sum_{k<=60} 1/k! <= e`` and ``exp(log_upper(n)) >= n``
  through the lower bound ``exp(a) >= sum_{k<=N} a^k/k!`` (positive terms);
* every block: the hardmax ranges (interval arithmetic, linear units folded), the head
  kinds (max head: constant, error-free query, value rows multiples of the score functional;
  selection head: a winner with a positive margin), the recorded ``gap_upper(n)`` equal to
  ``min((n-1)/(e_lower lambda), log_upper(n)/lambda)``, each recorded ``exp_upper`` above
  ``exp(-lambda delta')`` for the margin ``delta'`` recomputed here, and the entrywise
  error matrix equal to the one recomputed here;
* the read-out errors, their maximum, and ``bound <= eps``.

Any altered number makes the check fail with a message naming the step.
"""

from __future__ import annotations

from ..exact import Q, flat, rational, rows
from ..models import Box, Transformer
from . import CertificateError, claim_checker

ZERO = Q(0)


# -- series lower bounds of exp, with outward (downward) dyadic rounding ---------------
def _floor_dyadic(q, bits: int = 600):
    num, den = int(q.numerator), int(q.denominator)
    shift = bits - (num.bit_length() - den.bit_length())
    if shift >= 0:
        return Q((num << shift) // den, 1 << shift)
    return Q((num // (den << -shift)) << -shift, 1)


def _exp_lower(a):
    """A rational ``<= exp(a)`` for ``a >= 0``: ``S_60(a/2^k)^(2^k)``, rounded down."""
    k, b = 0, a
    while b > Q(1, 4):
        b, k = b / 2, k + 1
    total, term = Q(1), Q(1)
    for j in range(1, 61):
        term = term * b / j
        total += term
    total = _floor_dyadic(total)
    for _ in range(k):
        total = _floor_dyadic(total * total)
    return total


def _check_exp_upper(x, a, where: str):
    """``exp(-a) <= x``, i.e. ``x * exp(a) >= 1``; beyond 2000, ``exp(-a) <= exp(-2000)``."""
    a = min(a, Q(2000))
    if x * _exp_lower(a) < 1:
        raise CertificateError(f"{where}: exp_upper {x} is not above exp(-{a})")


# -- intervals over token-major states -----------------------------------------------------
def _lin(row, lo, hi, c=ZERO):
    a = b = c
    for v, l, u in zip(row, lo, hi):
        if v > 0:
            a, b = a + v * l, b + v * u
        elif v < 0:
            a, b = a + v * u, b + v * l
    return a, b


def _absdot(row, e):
    return sum((abs(v) * x for v, x in zip(row, e) if v and x), ZERO)


def _pairs(W1, b1, W2cols):
    """Linear pairs ``ReLU(u) - ReLU(-u)``, matched first-come as the prover does."""
    def key(h, s):
        return tuple(s * v for v in W1[h]), s * b1[h], tuple(s * v for v in W2cols[h])

    waiting, pairs = {}, []
    for h in range(len(W1)):
        k = key(h, -1)
        if k in waiting and any(W1[h]):
            pairs.append((waiting.pop(k), h))
        else:
            waiting.setdefault(key(h, 1), h)
    used = {h for p in pairs for h in p}
    return pairs, [h for h in range(len(W1)) if h not in used]


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


def _feedforward(ff, lo, hi, E):
    W1, b1 = rows(ff.W1), flat(ff.b1)
    W2cols = [list(c) for c in zip(*rows(ff.W2))]
    b2 = flat(ff.b2)
    m, T = len(lo[0]), len(lo)
    pairs, singles = _pairs(W1, b1, W2cols)
    firsts = [p for p, _ in pairs]
    nlo, nhi, nE = [], [], []
    for t in range(T):
        pre = [_lin(W1[h], lo[t], hi[t], b1[h]) for h in range(len(W1))]
        # ranges (hardmax)
        lin = firsts + [h for h in singles if pre[h][0] >= 0]
        M = _fold(W1, W2cols, lin, m)
        const = list(b2)
        for h in lin:
            for r in range(m):
                const[r] += W2cols[h][r] * b1[h]
        tl, th = [], []
        for r in range(m):
            a, b = _lin(M[r], lo[t], hi[t], const[r])
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


def _attention(att, lo, hi, E, lam, b, consts, record, where):
    T, m = len(lo), len(lo[0])
    olo, ohi, oE = [list(r) for r in lo], [list(r) for r in hi], [list(r) for r in E]
    gaps = {int(k): rational(v) for k, v in record.get("gap_upper", {}).items()}
    exps = {k: rational(v) for k, v in record.get("exp_upper", {}).items()}
    for i, head in enumerate(att.heads):
        WQ, WK, WV, WO = (rows(M) for M in head.matrices())
        qs = [[_lin(r, lo[t], hi[t]) for r in WQ] for t in range(T)]
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
                raise CertificateError(f"{where}: head {i} is a max head whose query carries an error")
            w = [sum((WO[r][j] * mu for j, mu in enumerate(mus)), ZERO) for r in range(m)]
            sc = [_lin(k, lo[s], hi[s]) for s in range(T)]
            mlo, mhi = max(a for a, _ in sc), max(b for _, b in sc)
            n = T
            if n > 1:
                want = min((n - 1) / (consts["e"] * lam), consts["log"][n] / lam)
                if gaps.get(n) != want:
                    raise CertificateError(f"{where}: gap_upper for n={n} is {gaps.get(n)}, recomputed {want}")
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
        keys = [[_lin(r, lo[s], hi[s]) for r in WK] for s in range(T)]
        for t in range(T):
            sc = []
            for s in range(T):
                a = b = ZERO
                for (kl, kh), (ql, qh) in zip(keys[s], qs[t]):
                    p = (kl * ql, kl * qh, kh * ql, kh * qh)
                    a, b = a + min(p), b + max(p)
                sc.append((a, b))
            win = max(range(T), key=lambda s: sc[s][0])
            others = [sc[s][1] for s in range(T) if s != win]
            delta = sc[win][0] - max(others) if others else Q(1)
            if delta <= 0:
                raise CertificateError(f"{where}: head {i} is neither a max head nor a selection head with a margin")
            eQ = [_absdot(r, E[t]) for r in WQ]
            qa = [max(-a, b) for a, b in qs[t]]
            serr = []
            for s in range(T):
                eK = [_absdot(r, E[s]) for r in WK]
                ka = [max(-a, b) for a, b in keys[s]]
                serr.append(sum((x * (y + z) + u * z for x, u, y, z in zip(eK, ka, qa, eQ)), ZERO))
            left = delta - serr[win] - max((serr[s] for s in range(T) if s != win), default=ZERO)
            if left <= 0:
                raise CertificateError(f"{where}: head {i}, token {t}: the margin does not absorb the score error")
            if T > 1:
                key = f"{b},{i},{t}"
                if key not in exps:
                    raise CertificateError(f"{where}: missing exp_upper {key}")
                _check_exp_upper(exps[key], lam * left, f"{where}, exp_upper {key}")
                loss = (T - 1) * exps[key]
            else:
                loss = ZERO
            vals = [[_lin(r, lo[s], hi[s]) for r in WV] for s in range(T)]
            eV = [[_absdot(r, E[s]) for r in WV] for s in range(T)]
            for j in range(len(WV)):
                vmax = max(max(-vals[s][j][0], vals[s][j][1]) + eV[s][j] for s in range(T))
                ej = eV[win][j] + 2 * loss * vmax
                a, bb = vals[win][j]
                for r in range(m):
                    v = WO[r][j]
                    if v:
                        olo[t][r] += v * (a if v > 0 else bb)
                        ohi[t][r] += v * (bb if v > 0 else a)
                        oE[t][r] += abs(v) * ej
    return olo, ohi, oE


def _step(steps, rule):
    found = [s for s in steps if isinstance(s, dict) and s.get("rule") == rule]
    if not found:
        raise CertificateError(f"steps: no step with rule {rule!r}")
    return found


@claim_checker("softmax-bound")
def check_softmax_bound(cert: dict, inputs: dict) -> None:
    T, D = inputs.get("transformer"), inputs.get("domain")
    if not isinstance(T, Transformer) or not isinstance(D, Box) or D.dim != T.input_dim:
        raise CertificateError("inputs: expected a transformer and a box domain of its input dimension")
    claim = cert["claim"]
    eps, lam = rational(claim["eps"]), rational(claim["lambda"])
    if not (0 < eps and 0 < lam):
        raise CertificateError("claim: expected eps > 0 and lambda > 0")
    steps = cert["steps"]
    for i, st in enumerate(steps):
        if not isinstance(st, dict) or not isinstance(st.get("certificate"), dict):
            raise CertificateError(f"steps[{i}]: expected an object with a certificate object")
    (const,) = _step(steps, "series-constants")[:1]
    c = const["certificate"]
    consts = {"e": rational(c["e_lower"]), "log": {int(n): rational(v) for n, v in c["log_upper"].items()}}
    e_sum, term = Q(1), Q(1)
    for j in range(1, 61):
        term /= j
        e_sum += term
    if not 0 < consts["e"] <= e_sum:
        raise CertificateError("series-constants: e_lower is not below e")
    for n, L in consts["log"].items():
        if L < 0 or _exp_lower(L) < n:
            raise CertificateError(f"series-constants: log_upper({n}) = {L} is not above ln {n}")
    records = {s["certificate"]["block"]: s["certificate"] for s in _step(steps, "block-error")}
    # embedding
    off = rows(T.embedding.offsets.transpose())
    lo, hi = [list(r) for r in off], [list(r) for r in off]
    for (l, u), r in zip(D.bounds, T.embedding.input_rows):
        for t in range(T.tokens):
            lo[t][r] += l
            hi[t][r] += u
    E = [[ZERO] * T.width for _ in range(T.tokens)]
    for b, block in enumerate(T.blocks):
        where = f"block-error step of block {b}"
        if b not in records:
            raise CertificateError(f"steps: no block-error step for block {b}")
        rec = records[b]
        if block.attention is not None:
            lo, hi, E = _attention(block.attention, lo, hi, E, lam, b, consts, rec, where)
        if block.feedforward is not None:
            lo, hi, E = _feedforward(block.feedforward, lo, hi, E)
        want = [[rational(v) for v in r] for r in rec["errors"]]
        if want != E:
            raise CertificateError(f"{where}: the recorded error matrix differs from the recomputed one")
    (ro,) = _step(steps, "readout-bound")[:1]
    rc = ro["certificate"]
    out = [_absdot(r, E[T.readout.token]) for r in rows(T.readout.W)]
    if [rational(v) for v in rc["output_error"]] != out:
        raise CertificateError("readout-bound: the recorded output errors differ from the recomputed ones")
    bound = max(out) if out else ZERO
    if rational(rc["bound"]) != bound or rational(rc["eps"]) != eps or bound > eps:
        raise CertificateError(f"readout-bound: the bound {bound} is not the recorded one or exceeds eps {eps}")
