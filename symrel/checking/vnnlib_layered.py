"""Checker of ``vnnlib-unsat`` certificates whose network is a layered net (docs/format.md,
"vnnlib-unsat", "Layered nets").

The claim, the property and the steps are those of :mod:`symrel.checking.vnnlib` (which reads
them, walks the trees by :func:`leaves` and checks each leaf by :func:`check_leaf`, here or on an
executor's workers, as it does a ReLU net's); here, the tree of each step and its leaves. The tree, a
preorder list, covers its box: besides the input split ``{"split": i, "at": c}`` (the parts
``x_i <= c`` then ``x_i >= c``) it has

* ``{"relu": [k, i]}``, op ``k`` a ReLU: the part where entry ``i`` of the vector it reads is
  ``<= 0`` (side 0), then ``>= 0`` (side 1);
* ``{"max": [k, g]}``, op ``k`` a max: one part per position ``p`` of group ``g``, in order,
  the part where piece ``p`` is the largest of the group;
* ``{"each_unsafe": m}``, ``m`` the number of unsafe disjuncts, once on a path: one part per
  unsafe disjunct ``u``, in order, whose leaves close disjunct ``u`` alone;
* ``{"leaf": FACTS}``.

A leaf computes, op by op, the bounds of the vector each op reads (the box; an affine op's
exact interval image; a ReLU's ``[max(lo, 0), max(hi, 0)]``; a group's ``[max lo, max hi]``),
refined for the entries ``FACTS.refine`` by backward substitution (rounded outward to
``2^-24``), clipped by the splits; the states of the nonlinear ops follow from these bounds
(the rules of docs/format.md; no number of them is recorded). ``FACTS.empty`` names a range the
computation finds empty (the part holds no point); otherwise each entry of ``FACTS.closes``
names an atom whose lower bound on the part, recomputed by substituting backwards from the
outputs (with the entry's own ``alpha``, ``piece``, ``beta``, ``lambda``), must equal its
``bound`` and exceed the atom's right-hand side.

Bounded cost: the tree entries, the leaves' operations (counted before any leaf is checked) and
the bits of every number (bounded before it is computed), as docs/format.md says.

Shares no code with :mod:`symrel.vnnlib`.
"""

from __future__ import annotations

from math import gcd

from ..exact import Q, ZERO
from . import CertificateError, beyond_limit
from ..exact.sizes import check_product_bits, fan_in_bits, lcm_bits, number_bits, weight
from .read import array, index, rational, record, string
from .vnnlib_limits import BOUND_BITS, MAX_LEAF_OPERATIONS, MAX_TREE_ENTRIES, SLOPE_BITS
from .vnnlib_limits import relaxation_number as _relaxation_number

P = 1 << SLOPE_BITS
K2 = 1 << BOUND_BITS

__all__ = ["MAX_LEAF_OPERATIONS", "MAX_TREE_ENTRIES", "check_leaf", "leaves", "prepare"]


def _lcm(a: int, b: int) -> int:
    return a * b // gcd(a, b)


# -- the net in integers ---------------------------------------------------------------------------
def _integer_ops(net, where="inputs.network.object"):
    """Per op: ``("affine", rows, b, D)`` with every weight and bias times ``D`` (an integer),
    ``("relu", width)`` or ``("max", groups)``. Before an op is brought to its common
    denominator, its bits are bounded from the numbers as written (``denominator bits``,
    :mod:`symrel.exact.sizes`)."""
    out = []
    for k, op in enumerate(net.ops):
        if op[0] != "affine":
            out.append(op)
            continue
        dens = sorted({int(v.denominator) for row in op[1] for _, v in row} | {int(c.denominator) for c in op[2]})
        lcm_bits(dens, where=f"{where}.ops[{k}]", what=f"the common denominator of the weights and biases of op {k}")
        D = 1
        for d in dens:   # the distinct denominators: the same lcm
            D = _lcm(D, d)
        times = {d: D // d for d in dens}
        rows = [[(j, int(w.numerator) * times[int(w.denominator)]) for j, w in row if w] for row in op[1]]
        b = [int(c.numerator) * times[int(c.denominator)] for c in op[2]]
        out.append(("affine", rows, b, D))
    return out


#: bits a nonlinear op adds to a leaf's numbers beside a close's own: the slopes' 2^16, the
#: rounded bounds' 2^24, a refinement's rounding to 2^-24, and a spare
STAGE_BITS = 16 + 24 + 24 + 2


def _chain_bits(iops) -> int:
    """The bits one pass through the ops can add to a number: per affine op its common denominator,
    its largest weight or bias times it, and a sum's growth over its widths; :data:`STAGE_BITS` else."""
    total = 0
    for op in iops:
        if op[0] == "affine":
            _, rows, b, D = op
            w = max(max(map(abs, (v for row in rows for _, v in row)), default=0), max(map(abs, b), default=0))
            w = w.bit_length()   # that of the largest |v|: bit_length grows with |v|
            total += D.bit_length() + w + fan_in_bits(max(len(rows), max(map(len, rows), default=0)) + 1)
        else:
            total += STAGE_BITS
    return total


def _leaf_bits(chain: int, box_bits: int, close_bits: int = 0) -> int:
    """An upper bound on the bits of any number a leaf's check computes: a bound is a product
    of a backward pass, a forward pass and the box, each adding at most ``chain`` (and the
    box its own bits), with a close's atom and multipliers (``close_bits``)."""
    return 3 * (chain + box_bits) + close_bits


def _size(net) -> int:
    """Stored weights, group members and widths: the work of one pass over the net."""
    return sum(net.widths) + sum(len(r) for op in net.ops if op[0] in ("affine", "max") for r in op[1])


# -- the states of the nonlinear ops ---------------------------------------------------------------
def _up(a: int, b: int) -> int:
    """``ceil(a / b)`` for ``b > 0``."""
    return -((-a) // b)


def _relu_state(lo: int, hi: int, den: int):
    """``(alpha, s, t)`` (over ``P``, ``P``, ``P 2^24``) of a ReLU entry on ``[lo, hi] / den``: ``h = z``,
    ``h = 0``, or the default lower line and the chord of the range rounded outward (docs/format.md)."""
    if lo >= 0:
        return P, P, 0
    if hi <= 0:
        return 0, 0, 0
    lk, uk = (lo * K2) // den, _up(hi * K2, den)
    s = _up(uk * P, uk - lk)
    return (P if uk >= -lk else 0), s, -s * lk


def _max_state(lo: list, hi: list, den: int, winner):
    """``(low, top, s, t)``, the lines ``x_low <= y <= s x_top + t``, of a group with piece bounds
    ``lo``, ``hi`` (over ``den``), and the group's range (docs/format.md)."""
    n = len(lo)
    if winner is not None:
        return (winner, winner, P, 0), max(lo), hi[winner]
    p = 0
    for m in range(1, n):
        if lo[m] > lo[p]:
            p = m
    if all(lo[p] >= hi[m] for m in range(n) if m != p):
        return (p, p, P, 0), lo[p], hi[p]
    k = 0
    for m in range(1, n):
        if hi[m] > hi[k]:
            k = m
    M = max(hi[m] for m in range(n) if m != k)
    lk, uk, Mk = (lo[k] * K2) // den, _up(hi[k] * K2, den), _up(M * K2, den)
    s = _up((uk - Mk) * P, uk - lk)
    return (p, k, s, Mk * P - s * lk), lo[p], hi[k]


class _Leaf:
    """The box (integers over ``Qb``) and the states of every nonlinear op on a leaf."""

    def __init__(self, plo, phi, Qb, n_ops):
        self.plo, self.phi, self.Qb = plo, phi, Qb
        self.states = [None] * n_ops
        self.reads = [None] * n_ops   # (lo, hi, den): the bounds of the vector each affine op reads
        self.bits = 0                 # the bits of the box over its common denominator (exact.sizes)


def _substitute(iops, net, leaf, top, mu, M, over=None):
    """``(nu, M', const)``: ``mu . v >= nu . x + const`` on the leaf's part, ``mu`` integers
    over ``M`` on the vector op ``top`` reads, substituted through ops ``top - 1, ..., 0``.
    ``over``: the close's ``alphas``, ``pieces``, ``betas``, ``lambdas`` (docs/format.md)."""
    alphas = over["alpha"] if over else {}
    pieces = over["piece"] if over else {}
    betas = over["beta"] if over else {}
    lambdas = over["lambda"] if over else {}
    hulls = over["hull"] if over else {}
    const = ZERO
    bypass = {}   # a ReLU entry's line over the vector the affine op below reads: its coefficients there
    for k in range(top - 1, -1, -1):
        op = iops[k]
        if op[0] == "affine":
            _, rows, b, D = op
            nu = [0] * net.widths[k]
            c = 0
            for v, row, bi in zip(mu, rows, b):
                if v:
                    c += v * bi
                    for j, w in row:
                        nu[j] += v * w
            M *= D
            if c:
                const += Q(c, M)
            if bypass:      # over a common denominator with the lines' coefficients
                g = 1
                for q in bypass.values():
                    d = int(q.denominator)
                    g = _lcm(g, d // gcd(d, M))
                nu = [v * g for v in nu]
                M *= g
                for j, q in bypass.items():
                    nu[j] += int(q.numerator) * (M // int(q.denominator))
                bypass = {}
            mu = nu
            continue
        states = leaf.states[k]
        own = alphas.get(k, {}) if op[0] == "relu" else {}
        A = 1
        for a in own.values():
            A = _lcm(A, int(a.denominator))
        nu = [0] * net.widths[k]
        c = 0
        if op[0] == "relu":
            lines = hulls.get(k, {})
            for i, v in enumerate(mu):
                if not v:
                    continue
                a, s, t = states[i]
                if v > 0:
                    if i in own:
                        over["used"].add(("alpha", k, i))
                        nu[i] = v * int(own[i].numerator) * (P * A // int(own[i].denominator))
                    else:
                        nu[i] = v * a * A
                elif i in lines:    # h <= a . x + c over the vector op k - 1 reads: v times it there
                    over["used"].add(("hull", k, i))
                    coef, cc = lines[i]
                    w = Q(v, M)
                    const += w * cc
                    for (j, _), aj in zip(iops[k - 1][1][i], coef):
                        bypass[j] = bypass.get(j, ZERO) + w * aj
                else:
                    nu[i] = v * s * A
                    c += v * t * A
        else:
            groups, mine = op[1], pieces.get(k, {})
            for g, v in enumerate(mu):
                if not v:
                    continue
                low, top_, s, t = states[g]
                if v > 0:
                    if g in mine:
                        over["used"].add(("piece", k, g))
                    nu[groups[g][mine.get(g, low)]] += v * P * A
                else:
                    nu[groups[g][top_]] += v * s * A
                    c += v * t * A
        M = M * P * A
        if c:
            const += Q(c, M * K2)
        extra = betas.get(k, []) if op[0] == "relu" else lambdas.get(k, [])
        if extra:   # the splits' multipliers, over a common denominator B
            B = 1
            for item in extra:
                for x in (item[2],) if op[0] == "relu" else item[2]:
                    B = _lcm(B, int(x.denominator))
            if B > 1:
                nu = [v * B for v in nu]
                M *= B
            for item in extra:
                if op[0] == "relu":
                    i, side, beta = item
                    step = int(beta.numerator) * (B // int(beta.denominator)) * (M // B)
                    nu[i] += -step if side == 1 else step
                else:
                    g, p, lam = item
                    group = op[1][g]
                    for m, x in enumerate(lam):
                        if x:
                            step = int(x.numerator) * (B // int(x.denominator)) * (M // B)
                            nu[group[m]] += step
                            nu[group[p]] -= step
        mu = nu
    return mu, M, const


def _box_min(leaf, mu, M):
    """``min`` over the box of ``(mu / M) . x``, exact."""
    total = 0
    for v, a, b in zip(mu, leaf.plo, leaf.phi):
        if v:
            total += v * (a if v > 0 else b)
    return Q(total, M * leaf.Qb)


def _interval(op, lo, hi, den):
    """The exact bounds of an affine op's output on the box ``[lo, hi] / den`` (integers):
    ``(lo', hi', den * D)``, a weight ``> 0`` taking ``lo`` into ``lo'``, one ``< 0`` taking ``hi``."""
    _, rows, b, D = op
    out_lo, out_hi = [], []
    for row, c in zip(rows, b):
        a1 = a2 = c * den
        for j, w in row:
            a1 += w * (lo[j] if w > 0 else hi[j])
            a2 += w * (hi[j] if w > 0 else lo[j])
        out_lo.append(a1)
        out_hi.append(a2)
    return out_lo, out_hi, den * D


def _bounds(iops, net, lo, hi, sides, winners, refine, cache):
    """The leaf's states op by op (module docstring); returns ``(leaf, empty)`` where
    ``empty`` is ``(k, "entry" or "group", set of indices)`` of the first op with an empty
    range, else None."""
    Qb = 1
    for v in lo + hi:
        Qb = _lcm(Qb, int(v.denominator))
    plo = [int(v.numerator) * (Qb // int(v.denominator)) for v in lo]
    phi = [int(v.numerator) * (Qb // int(v.denominator)) for v in hi]
    leaf = _Leaf(plo, phi, Qb, len(iops))
    key = (tuple(lo), tuple(hi))
    first = next(k for k, op in enumerate(iops) if op[0] != "affine") if any(op[0] != "affine" for op in iops) \
        else len(iops)
    if key in cache:        # the bounds up to the first nonlinear op depend on the box alone
        reads, (vlo, vhi, den) = cache[key]
        leaf.reads[:first] = reads
    else:
        vlo, vhi, den = plo, phi, Qb
        for k in range(first):
            leaf.reads[k] = (vlo, vhi, den)
            vlo, vhi, den = _interval(iops[k], vlo, vhi, den)
        if len(cache) > 64:
            cache.clear()
        cache[key] = (leaf.reads[:first], (vlo, vhi, den))
    last = max((k for k, op in enumerate(iops) if op[0] != "affine"), default=-1)
    for k in range(first, last + 1):   # (the affine ops after the last nonlinear one bound nothing)
        op = iops[k]
        if op[0] == "affine":
            leaf.reads[k] = (vlo, vhi, den)
            vlo, vhi, den = _interval(op, vlo, vhi, den)
            continue
        vlo, vhi = list(vlo), list(vhi)
        if refine.get(k):
            g = K2 // gcd(den, K2)
            if g > 1:
                vlo, vhi, den = [v * g for v in vlo], [v * g for v in vhi], den * g
            unit = den // K2
            for i in refine[k]:
                for sign in (1, -1):
                    mu = [0] * net.widths[k]
                    mu[i] = sign
                    nu, M, const = _substitute(iops, net, leaf, k, mu, 1)
                    v = _box_min(leaf, nu, M) + const
                    if sign == 1:   # lo_i := max(lo_i, floor(2^24 v) / 2^24)
                        vlo[i] = max(vlo[i], (int(v.numerator) * K2 // int(v.denominator)) * unit)
                    else:           # hi_i := min(hi_i, ceil(-2^24 v) / 2^24)
                        vhi[i] = min(vhi[i], _up(-int(v.numerator) * K2, int(v.denominator)) * unit)
        if op[0] == "relu":
            for i, side in sides.get(k, {}).items():
                if side == 1:
                    vlo[i] = max(vlo[i], 0)
                else:
                    vhi[i] = min(vhi[i], 0)
        bad = {i for i in range(len(vlo)) if vlo[i] > vhi[i]}
        if bad:
            return leaf, (k, "entry", bad)
        if op[0] == "relu":
            leaf.states[k] = [_relu_state(a, b_, den) for a, b_ in zip(vlo, vhi)]
            vlo, vhi = [max(v, 0) for v in vlo], [max(v, 0) for v in vhi]
            continue
        states, nlo, nhi, bad = [], [], [], set()
        mine = winners.get(k, {})
        for g, group in enumerate(op[1]):
            st, a, b_ = _max_state([vlo[j] for j in group], [vhi[j] for j in group], den, mine.get(g))
            if a > b_:
                bad.add(g)
            states.append(st)
            nlo.append(a)
            nhi.append(b_)
        if bad:
            return leaf, (k, "group", bad)
        leaf.states[k] = states
        vlo, vhi = nlo, nhi
    return leaf, None


#: most stored entries of a row whose ReLU entry may take a line over its inputs (2^m vertices checked)
MAX_HULL_ENTRIES = 10


def _line_above(affine, i, reads, coef, cc) -> bool:
    """Whether ``max(0, z_i) <= coef . v + cc`` at every vertex of the box ``reads`` of row ``i``'s
    columns (``z_i = w . v + b``): the difference is convex, so the vertices decide for the box."""
    _, rows, b, D = affine
    lo, hi, den = reads
    row = rows[i]
    for corner in range(1 << len(row)):
        total = b[i] * den      # z_i * D * den at this vertex
        line = cc
        for m, (j, w) in enumerate(row):
            x = hi[j] if corner >> m & 1 else lo[j]
            total += w * x
            line += coef[m] * Q(x, den)
        if max(Q(total, D * den), ZERO) > line:
            return False
    return True


# -- a leaf's facts --------------------------------------------------------------------------------
def _refine(raw, iops, net, where):
    """``[[k, [entries]], ...]``: ops strictly increasing, each nonlinear; entries strictly
    increasing indices of the vector it reads."""
    out, last = {}, -1
    for r, item in enumerate(array(raw, where)):
        iw = f"{where}[{r}]"
        item = array(item, iw, 2)
        k = index(item[0], len(iops), f"{iw}[0]")
        if iops[k][0] == "affine":
            raise CertificateError(f"op {k} is affine: only the entries a ReLU or max op reads are refined",
                                   path=f"{iw}[0]")
        if k <= last:
            raise CertificateError(f"expected the ops in increasing order, each once; got {k} after {last}",
                                   path=f"{iw}[0]")
        last = k
        entries, prev = [], -1
        for m, i in enumerate(array(item[1], f"{iw}[1]")):
            i = index(i, net.widths[k], f"{iw}[1][{m}]")
            if i <= prev:
                raise CertificateError(f"expected the entries in increasing order, each once; got {i} after {prev}",
                                       path=f"{iw}[1][{m}]")
            prev = i
            entries.append(i)
        if not entries:
            raise CertificateError("expected at least one entry", path=f"{iw}[1]")
        out[k] = entries
    return out


def _multiplier(value, where):
    v = _relaxation_number(value, where)
    if v < 0:
        raise CertificateError(f"expected a multiplier >= 0, got {v}", path=where)
    return v


def _listed(raw, where, length, iops, net, kind):
    """``(path, item, k, i)`` of the items ``[k, i, ...]`` of a close's list, ``(k, i)`` strictly
    increasing, op ``k`` of ``kind`` (``"relu"``, ``"max"`` (``i`` a group), ``"hull"``), ``i`` in range."""
    last = None
    for r, item in enumerate(array(raw, where)):
        iw = f"{where}[{r}]"
        item = array(item, iw, length)
        k = index(item[0], len(iops), f"{iw}[0]")
        if kind == "hull" and (iops[k][0] != "relu" or k == 0 or iops[k - 1][0] != "affine"):
            raise CertificateError(f"op {k} is not a ReLU reading an affine op", path=f"{iw}[0]")
        if kind != "hull" and iops[k][0] != kind:
            raise CertificateError(f"op {k} is not a {'ReLU' if kind == 'relu' else 'max'}", path=f"{iw}[0]")
        i = index(item[1], len(iops[k][1]) if kind == "max" else net.widths[k], f"{iw}[1]")
        if last is not None and (k, i) <= last:
            raise CertificateError(f"expected the {'groups' if kind == 'max' else 'entries'} in increasing order, "
                                   f"each once; got {[k, i]} after {list(last)}", path=iw)
        last = (k, i)
        yield iw, item, k, i


def _overrides(entry, iops, net, leaf, splits, cw):
    """The close's own ``alpha``, ``piece``, ``beta`` and ``lambda`` (docs/format.md)."""
    over = {"alpha": {}, "piece": {}, "beta": {}, "lambda": {}, "hull": {}, "used": set()}
    relu_splits = [s for s in splits if s[0] == "relu"]
    max_splits = [s for s in splits if s[0] == "max"]
    if "beta" in entry:
        if not relu_splits:
            raise CertificateError("expected no beta: no ReLU split on the path to this leaf", path=f"{cw}.beta")
        raw = array(entry["beta"], f"{cw}.beta", len(relu_splits))
        for j, ((_, k, i, side), v) in enumerate(zip(relu_splits, raw)):
            beta = _multiplier(v, f"{cw}.beta[{j}]")
            if beta:
                over["beta"].setdefault(k, []).append((i, side, beta))
    if "lambda" in entry:
        if not max_splits:
            raise CertificateError("expected no lambda: no max split on the path to this leaf", path=f"{cw}.lambda")
        raw = array(entry["lambda"], f"{cw}.lambda", len(max_splits))
        for j, ((_, k, g, p), v) in enumerate(zip(max_splits, raw)):
            n = len(iops[k][1][g])
            lam = [_multiplier(x, f"{cw}.lambda[{j}][{m}]") for m, x in enumerate(array(v, f"{cw}.lambda[{j}]", n))]
            if lam[p]:
                raise CertificateError(f"expected 0 for the winner's own position {p}", path=f"{cw}.lambda[{j}][{p}]")
            if any(lam):
                over["lambda"].setdefault(k, []).append((g, p, lam))
    if "alpha" in entry:
        for iw, item, k, i in _listed(entry["alpha"], f"{cw}.alpha", 3, iops, net, "relu"):
            if leaf.states[k][i] in ((P, P, 0), (0, 0, 0)):
                raise CertificateError(f"entry {i} of op {k} is not unstable on this leaf: its line is fixed",
                                       path=f"{iw}[1]")
            a = _relaxation_number(item[2], f"{iw}[2]")
            if not ZERO <= a <= 1:
                raise CertificateError(f"expected 0 <= alpha <= 1, got {a}", path=f"{iw}[2]")
            over["alpha"].setdefault(k, {})[i] = a
    if "hull" in entry:
        for iw, item, k, i in _listed(entry["hull"], f"{cw}.hull", 4, iops, net, "hull"):
            if leaf.states[k][i] in ((P, P, 0), (0, 0, 0)):
                raise CertificateError(f"entry {i} of op {k} is not unstable on this leaf: its line is fixed",
                                       path=f"{iw}[1]")
            row = iops[k - 1][1][i]
            if len(row) > MAX_HULL_ENTRIES:
                raise beyond_limit("hull entries", len(row), MAX_HULL_ENTRIES, f"{iw}[2]")
            coef = [_relaxation_number(x, f"{iw}[2][{m}]") for m, x in enumerate(array(item[2], f"{iw}[2]", len(row)))]
            cc = _relaxation_number(item[3], f"{iw}[3]")
            if not _line_above(iops[k - 1], i, leaf.reads[k - 1], coef, cc):
                raise CertificateError(f"the line is below ReLU at a vertex of the box of the entries op {k - 1} "
                                       f"reads: it does not bound entry {i} of op {k} above", path=iw)
            over["hull"].setdefault(k, {})[i] = (coef, cc)
    if "piece" in entry:
        for iw, item, k, g in _listed(entry["piece"], f"{cw}.piece", 3, iops, net, "max"):
            low, top, s, t = leaf.states[k][g]
            if low == top and s == P and t == 0:
                raise CertificateError(f"group {g} of op {k} is settled on this leaf (one piece is the max)",
                                       path=f"{iw}[1]")
            over["piece"].setdefault(k, {})[g] = index(item[2], len(iops[k][1][g]), f"{iw}[2]")
    return over


def _override_numbers(name, items) -> list:
    """The rationals a close lists for one op under ``name`` (``alpha``, ``beta``, ``lambda``, ``hull``)."""
    return (list(items.values()) if name == "alpha" else [x[2] for x in items] if name == "beta"
            else [x for _, _, lam in items for x in lam] if name == "lambda"
            else [x for coef, cc in items.values() for x in list(coef) + [cc]])


def _leaf_facts(iops, net, facts, lo, hi, todo, where, chain, ops_left) -> tuple:
    """``(facts, refine, todo, bits)``: what the walk of a tree reads of a leaf, as a check of it
    on the spot would: its ``facts`` (exactly one of ``closes`` and ``empty``), ``refine``, the
    unsafe disjuncts ``todo`` it closes and the bits of its box (bounded), its operations counted
    again with them (``ops_left``)."""
    facts = record(facts, where, optional=("closes", "empty", "refine"))
    if ("closes" in facts) == ("empty" in facts):
        raise CertificateError("expected exactly one of 'closes' and 'empty'", path=where)
    refine = _refine(facts["refine"], iops, net, f"{where}.refine") if "refine" in facts else {}
    bits = number_bits(list(lo) + list(hi), where=where, what="the common denominator of this leaf's box")
    check_product_bits(_leaf_bits(chain, bits), where=where, what="the numbers of this leaf's bounds")
    extra = weight(_leaf_bits(chain, bits)) - weight(_leaf_bits(chain, 0))
    if extra > 0:   # long numbers of this box: the count of _leaf_operations, again
        n_closes = len(facts["closes"]) if type(facts.get("closes")) is list else 0
        ops_left[0] -= _size(net) * (1 + n_closes + 2 * sum(map(len, refine.values()))) * extra
        if ops_left[0] < 0:
            raise beyond_limit("leaf operations", MAX_LEAF_OPERATIONS - ops_left[0], MAX_LEAF_OPERATIONS, where)
    return facts, refine, todo, bits


def check_leaf(prepared, read, lo, hi, d, region, unsafe, where, splits) -> bool:
    """One leaf (module docstring) as :func:`leaves` gives it, on :func:`prepare`'s ``prepared``:
    whether its part holds no point of the region (empty, or every close by an atom of the input
    disjunct). Called by :func:`symrel.checking.leaf_runs.run_leaves`, here or on a worker."""
    net, iops, chain, cache = prepared
    facts, refine, todo, bits = read
    sides, winners = {}, {}   # the side of each ReLU entry split on the path, the winner of each max group
    for kind, k, i, side in splits:
        (sides if kind == "relu" else winners).setdefault(k, {})[i] = side
    leaf, empty = _bounds(iops, net, lo, hi, sides, winners, refine, cache)
    leaf.bits = bits
    if "empty" in facts:
        ew = f"{where}.empty"
        e = record(facts["empty"], ew, keys=("op",), optional=("entry", "group"))
        if len(e) != 2:
            raise CertificateError("expected the keys op and entry, or op and group", path=ew)
        k = index(e["op"], len(iops), f"{ew}.op")
        what = "entry" if "entry" in e else "group"
        if empty is None or empty[0] != k or empty[1] != what:
            found = "no empty range" if empty is None else f"the first empty range at op {empty[0]} ({empty[1]})"
            raise CertificateError(f"the bounds recomputed find {found}", path=ew)
        i = index(e[what], net.widths[k] if what == "entry" else len(iops[k][1]), f"{ew}.{what}")
        if i not in empty[2]:
            raise CertificateError(f"the range of {what} {i} of op {k} is not empty", path=f"{ew}.{what}")
        return True
    if empty is not None:
        raise CertificateError(f"the leaf's part is empty (op {empty[0]}, {empty[1]} {min(empty[2])}): expected "
                               f"'empty'", path=where)
    closes = array(facts["closes"], f"{where}.closes", len(todo))
    outside = True
    for u, entry in zip(todo, closes):
        cw = f"{where}.closes[{todo.index(u)}]"
        entry = record(entry, cw, keys=("atom", "bound"), optional=("beta", "lambda", "alpha", "piece", "hull"))
        over = _overrides(entry, iops, net, leaf, splits, cw)
        ref = array(entry["atom"], f"{cw}.atom", 2)
        side = string(ref[0], f"{cw}.atom[0]", choices=("unsafe", "region"))
        outside = outside and side == "region"
        pool = unsafe[u] if side == "unsafe" else region[d]
        x, y, rhs = pool[index(ref[1], len(pool), f"{cw}.atom[1]")]
        # the atom's numbers and the close's own, per op (their common denominators among them),
        # join the leaf's: bounded before the substitution multiplies them through the ops
        close_bits = number_bits(list(x) + list(y) + [rhs], where=f"{cw}.atom")
        for name in ("alpha", "beta", "lambda", "hull"):
            for k, items in over[name].items():
                close_bits += number_bits(_override_numbers(name, items), where=f"{cw}.{name}",
                                          what=f"the common denominator of this close's {name} numbers at op {k}")
        check_product_bits(_leaf_bits(chain, leaf.bits, close_bits), where=cw, what="the numbers of this close's bound")
        bound = rational(entry["bound"], f"{cw}.bound")
        M = 1
        for c in y:
            M = _lcm(M, int(c.denominator))
        mu = [int(c.numerator) * (M // int(c.denominator)) for c in y]
        nu, M, const = _substitute(iops, net, leaf, len(iops), mu, M, over)
        A = 1
        for c in x:
            A = _lcm(A, int(c.denominator))
        if A > 1:
            nu = [v * A for v in nu]
            M *= A
        nu = [v + int(c.numerator) * (A // int(c.denominator)) * (M // A) for v, c in zip(nu, x)]
        got = _box_min(leaf, nu, M) + const
        for name in ("alpha", "piece", "hull"):  # each listed slope, piece or line must be taken
            for r, (k, i) in enumerate((k, i) for k in sorted(over[name]) for i in sorted(over[name][k])):
                if (name, k, i) not in over["used"]:
                    raise CertificateError(f"unused: the coefficient of {'group' if name == 'piece' else 'entry'} {i} "
                                           f"of op {k} in this substitution is not "
                                           f"{'negative' if name == 'hull' else 'positive'}", path=f"{cw}.{name}[{r}]")
        if got != bound:
            raise CertificateError(f"the bound recomputed is {got}, not {bound}", path=f"{cw}.bound")
        if not bound > rhs:
            raise CertificateError(f"bound {bound} is not above the right-hand side {rhs}: the atom may hold",
                                   path=f"{cw}.bound")
    return outside


def _tree_leaves(iops, net, tree, lo, hi, d, m, where, budget, chain, ops_left):
    """The leaves ``(d, where, lo, hi, splits, read)`` (:func:`_leaf_facts`) of the preorder
    tree of disjunct ``d`` covering ``[lo, hi]``, in order, as the tree is checked (module
    docstring; ``m`` unsafe disjuncts): a generator, so a leaf is checked before the entries after
    it are read. The splits on the path are a list by depth (a preorder walk cuts it to the node's
    depth and adds the node's own) with a set of their keys: a split repeated on a path is found
    at once. A stack of nodes to cover longer than the entries left is refused at once."""
    todo = [(list(lo), list(hi), 0, None, None)]
    path, active, pos = [], set(), 0
    while todo:
        if len(todo) > len(tree) - pos:
            raise CertificateError(f"the tree ends with {len(todo) - (len(tree) - pos)} node(s) still to cover "
                                   f"(or more)", path=where)
        if budget[0] <= 0:
            raise beyond_limit("tree entries", MAX_TREE_ENTRIES + 1, MAX_TREE_ENTRIES, f"{where}[{pos}]")
        budget[0] -= 1
        blo, bhi, depth, added, only = todo.pop()
        while len(path) >= max(depth, 1):
            gone = path.pop()
            if gone is not None:
                active.discard(gone[:3])
        if depth:
            path.append(added)
            if added is not None:
                active.add(added[:3])
        ew = f"{where}[{pos}]"
        entry = tree[pos]
        pos += 1
        # the entry's kind is the one of its keys that names one (a JSON object has no order)
        key = next((k for k in ("split", "relu", "max", "each_unsafe") if k in entry), None) \
            if type(entry) is dict else None
        if key == "split":
            record(entry, ew, keys=("split", "at"))
            i = index(entry["split"], len(blo), f"{ew}.split")
            c = rational(entry["at"], f"{ew}.at")
            if not blo[i] < c < bhi[i]:
                raise CertificateError(f"split point {c} is not strictly inside [{blo[i]}, {bhi[i]}]: the parts "
                                       "do not partition the node", path=f"{ew}.at")
            upper_hi, lower_lo = list(bhi), list(blo)
            upper_hi[i] = lower_lo[i] = c
            todo.append((lower_lo, bhi, depth + 1, None, only))
            todo.append((blo, upper_hi, depth + 1, None, only))
        elif key == "relu":
            record(entry, ew, keys=("relu",))
            ref = array(entry["relu"], f"{ew}.relu", 2)
            k = index(ref[0], len(iops), f"{ew}.relu[0]")
            if iops[k][0] != "relu":
                raise CertificateError(f"op {k} is not a ReLU", path=f"{ew}.relu[0]")
            i = index(ref[1], net.widths[k], f"{ew}.relu[1]")
            if ("relu", k, i) in active:
                raise CertificateError(f"entry {i} of op {k} is split twice on one path", path=f"{ew}.relu")
            todo.append((blo, bhi, depth + 1, ("relu", k, i, 1), only))
            todo.append((blo, bhi, depth + 1, ("relu", k, i, 0), only))
        elif key == "max":
            record(entry, ew, keys=("max",))
            ref = array(entry["max"], f"{ew}.max", 2)
            k = index(ref[0], len(iops), f"{ew}.max[0]")
            if iops[k][0] != "max":
                raise CertificateError(f"op {k} is not a max", path=f"{ew}.max[0]")
            g = index(ref[1], len(iops[k][1]), f"{ew}.max[1]")
            if ("max", k, g) in active:
                raise CertificateError(f"group {g} of op {k} is split twice on one path", path=f"{ew}.max")
            if len(todo) + len(iops[k][1][g]) > len(tree) - pos:
                raise CertificateError(f"the tree ends with node(s) still to cover: this max split has "
                                       f"{len(iops[k][1][g])} parts, the tree {len(tree) - pos} entries left",
                                       path=f"{ew}.max")
            for p in reversed(range(len(iops[k][1][g]))):
                todo.append((blo, bhi, depth + 1, ("max", k, g, p), only))
        elif key == "each_unsafe":
            record(entry, ew, keys=("each_unsafe",))
            if only is not None:
                raise CertificateError("expected one split by unsafe disjunct on a path at most", path=ew)
            if type(entry["each_unsafe"]) is not int or entry["each_unsafe"] != m:
                raise CertificateError(f"expected the number of unsafe disjuncts, {m}", path=f"{ew}.each_unsafe")
            for u in reversed(range(m)):
                todo.append((blo, bhi, depth + 1, None, u))
        else:
            entry = record(entry, ew, keys=("leaf",))
            todo_u = list(range(m)) if only is None else [only]
            splits = tuple(s for s in path if s is not None)
            read = _leaf_facts(iops, net, entry["leaf"], blo, bhi, todo_u, f"{ew}.leaf", chain, ops_left)
            yield d, f"{ew}.leaf", blo, bhi, splits, read
    if pos != len(tree):
        raise CertificateError(f"unexpected entries after the tree's last leaf ({len(tree) - pos} more)",
                               path=f"{where}[{pos}]")


def _leaf_operations(net, steps, disjuncts, chain: int = 0):
    """``(operations, leaves)``: the leaves' operations, counted in the trees as written before
    any leaf is checked (docs/format.md; beyond the limit, refused), and the leaves."""
    size = _size(net) * weight(_leaf_bits(chain, 0))   # an operation on long numbers counts more (exact.sizes)
    work = leaves = 0
    for d in range(min(disjuncts, len(steps))):
        for e in _lists(steps[d].get("certificate") if type(steps[d]) is dict else None, "tree"):
            facts = e.get("leaf") if type(e) is dict else None
            if type(facts) is not dict:
                continue
            leaves += 1
            closes = _lists(facts, "closes")
            lines = sum((1 << m) * (m + 1) for c in closes for item in _lists(c, "hull")   # vertices checked
                        if type(item) is list and len(item) == 4 and type(item[2]) is list
                        for m in [min(len(item[2]), MAX_HULL_ENTRIES)])
            refined = sum(len(item[1]) for item in _lists(facts, "refine")
                          if type(item) is list and len(item) == 2 and type(item[1]) is list)
            work += size * (1 + len(closes) + 2 * refined) + lines
            if work > MAX_LEAF_OPERATIONS:
                raise beyond_limit("leaf operations", work, MAX_LEAF_OPERATIONS, "steps")
    return work, leaves


def _lists(obj, key):
    """``obj[key]`` where ``obj`` is an object holding a list there, else nothing (fields unchecked yet)."""
    value = obj.get(key) if type(obj) is dict else None
    return value if type(value) is list else ()


def prepare(net):
    """``(net, ops in integers, the bits one pass adds, a cache of bounds by box)``, what
    :func:`check_leaf` needs (computed here and once per run of leaves on a worker; bounded)."""
    iops = _integer_ops(net)
    chain = _chain_bits(iops)
    check_product_bits(_leaf_bits(chain, 0), where="inputs.network.object", what="the numbers of a leaf's bounds")
    return net, iops, chain, {}


def leaves(prepared, steps, step_trees, region, unsafe):
    """``(leaves, total)``: an iterator over the leaves of the trees ``step_trees`` (``(d, where,
    lo, hi, tree)``, :func:`symrel.checking.vnnlib._step_trees`) as :func:`check_leaf` takes
    them, and their number; their operations counted in the trees as written first (bounded)."""
    net, iops, chain, _ = prepared
    work, total = _leaf_operations(net, steps, len(region), chain)
    ops_left, budget = [MAX_LEAF_OPERATIONS - work], [MAX_TREE_ENTRIES]
    return (leaf for d, where, lo, hi, tree in step_trees
            for leaf in _tree_leaves(iops, net, tree, lo, hi, d, len(unsafe), where, budget, chain, ops_left)), total
