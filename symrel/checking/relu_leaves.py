"""The leaves of ReLU nets, as the vnnlib-unsat and output-bounds checks check them (docs/format.md).

A leaf of a tree of :mod:`symrel.checking.vnnlib` (``{"leaf": facts}``) closes its box ``B``
(its part where the ReLU splits' sides on its path hold):

1. forward symbolic intervals: every neuron ``z`` gets affine forms ``L_z <= z <= U_z``
   on ``B`` (rounded outward to :data:`FORM_BITS` fractional bits after each ReLU layer), and,
   where these leave a phase open, backward bounds; with ``[lz, uz]`` the tighter of the two
   (and of the leaf's ``tighten`` entries), the recorded phase of each ReLU must follow and
   each unstable neuron's relaxation is the one its bounds fix (:func:`relaxation`);
2. for every unsafe disjunct, the recorded atom's ``bound``, recomputed by substituting the
   layers backwards (with a close's ``beta`` and ``alpha``) and minimising over ``B``
   (:func:`check_leaf`; an output-bounds leaf bounds an output instead,
   :mod:`symrel.checking.output_bounds`, with :func:`_states` and :func:`_backward_min`).

The walk of a tree (:func:`_tree_leaves`) checks its structure and bounds every leaf's numbers
(:func:`leaf_bits`) and operations (:func:`leaf_operations`) before the leaf is checked. Only
a check of a ReLU net loads this module (a layered net's leaves are
:mod:`symrel.checking.vnnlib_layered`'s). Cost: ``O(layers * width^2 * inputs)`` rational
operations per leaf on numbers read from the file.

>>> [str(v) for v in relaxation(Q(-1), Q(3))]
['1', '3/4', '3/4']
"""

from __future__ import annotations

from math import gcd
from operator import mul

from ..exact import Q, ZERO
from ..exact.numbers import current_limits
from ..exact.sizes import check_product_bits, fan_in_bits, lcm_bits, number_bits, numerator_bits, weight
from . import CertificateError, beyond_limit
from .read import array, index, rational, record, string
from .vnnlib_limits import (BOUND_BITS, MAX_LEAF_OPERATIONS, MAX_RELAXATION_BITS, MAX_TREE_ENTRIES, SLOPE_BITS,
                            relaxation_number as _relaxation_number)

# -- the bounds of one leaf -------------------------------------------------------------------------
#: after each ReLU layer the forms are rounded outward to this many fractional bits (docs/format.md)
FORM_BITS = 40

#: Q's element type, called directly where many are made
_FRACTION = Q.dtype

try:  # integer matrix products in C when python-flint is installed (the exact layer's own backend)
    import flint as _flint
except ImportError:  # pragma: no cover
    _flint = None


def _form_min(form, lo, hi):
    total = form[-1]
    for k in range(len(lo)):
        a = form[k]
        if a:
            total += a * (lo[k] if a > 0 else hi[k])
    return total


def _layers(net, where="inputs.network.object"):
    """Per layer: W as integer rows, the positive and negative parts, b as integers, D, relu,
    and ``sizes``, the bits ``(d, w, fan-in)`` of :func:`leaf_bits`. Before any layer is
    brought to its common denominator, the bits of every one (``denominator bits``) and of
    the numbers a leaf then computes (``product bits``) are bounded from the weights as
    written (:mod:`symrel.exact.sizes`)."""
    dens, bounds = [], []
    for k, layer in enumerate(net.layers):
        values = [v for r in layer.affine.W_rows for v in r] + list(layer.affine.b_list)
        lcm_bits((int(v.denominator) for v in values), where=f"{where}.layers[{k}]",
                 what=f"the common denominator of the weights of layer {k}")
        D = 1
        for v in values:   # within the limit now: at most one step per weight on numbers of its size
            D = D * int(v.denominator) // gcd(D, int(v.denominator))
        dens.append(D)
        bounds.append((D.bit_length(), numerator_bits(values) + D.bit_length(), layer.affine.input_dim))
    check_product_bits(leaf_bits(bounds, 0), where=where, what="the numbers of a leaf's bounds")
    out = []
    for layer, D in zip(net.layers, dens):
        W = [list(r) for r in layer.affine.W_rows]
        b = list(layer.affine.b_list)
        Wi = [[int(v.numerator) * (D // int(v.denominator)) for v in r] for r in W]
        bi = [int(v.numerator) * (D // int(v.denominator)) for v in b]
        Wp = [[max(v, 0) for v in r] for r in Wi]
        Wn = [[min(v, 0) for v in r] for r in Wi]
        mats = _flint.fmpz_mat([rp + rn for rp, rn in zip(Wp, Wn)]) if _flint is not None else None
        Wz = _flint.fmpz_mat(Wi) if _flint is not None and Q.dtype is _flint.fmpq else None   # (_row_times)
        sizes = (D.bit_length(), max((abs(v).bit_length() for v in [v for r in Wi for v in r] + bi), default=0),
                 layer.affine.input_dim)
        out.append({"W": W, "b": b, "Wp": Wp, "Wn": Wn, "Wi": Wi, "bi": bi, "D": D, "relu": layer.activation == "relu",
                    "mats": mats, "Wz": Wz, "sizes": sizes, "parts": {}})
    return out


# -- the size of a leaf's numbers, bounded before the leaf is checked (docs/format.md) -------------
#: bits a layer can add to a leaf's numbers beside its weights' own: the rounding to 2^-40 of the
#: forms after it and of the backward rows over h >= 0, and a relaxation's slope (2^-16)
STAGE_BITS = 2 * 40 + 16 + 2


def leaf_bits(sizes, box_bits: int, close_bits: int = 0) -> int:
    """An upper bound on the bits of any number a leaf's check computes: ``sizes`` has, per
    layer, ``(d, w, k)``: the bits of its common denominator ``D``, of its largest weight or
    bias times ``D``, and its fan-in; ``box_bits`` those of the leaf's box over its common
    denominator ``Qb`` (``bits(Qb)`` plus the largest ``|lo_i Qb|``, ``|hi_i Qb|``);
    ``close_bits`` those of a close's atom and, per ReLU layer, of its slopes and betas.
    Each layer adds at most ``s = w + d + bits(k + 1) + STAGE_BITS`` to a form (its product, its
    common denominator, the rounding); a bound is a product of a form, the box and the
    constants: three such sums, and two relaxation numbers (``MAX_RELAXATION_BITS`` each).

    >>> leaf_bits([(40, 44, 5), (40, 44, 50)], 30)    # two ACAS-like layers on a box of 30 bits
    2233
    """
    chain = sum(w + d + fan_in_bits(k + 1) + STAGE_BITS for d, w, k in sizes)
    return 3 * (chain + box_bits) + close_bits + 2 * MAX_RELAXATION_BITS


def box_bits(lo, hi, where: str | None = None) -> int:
    """The bits of a box over its common denominator ``Qb`` (:func:`leaf_bits`), bounded from
    the numbers as written; its ``Qb`` is refused beyond the ``denominator bits`` limit."""
    return number_bits(list(lo) + list(hi), where=where, what="the common denominator of a leaf's box")


def leaf_operations(net_weights: int, n_in: int, closes: int, bits: int, first_weights: int = 0) -> int:
    """The operations one leaf counts in ``leaf operations``: the weights beyond the first
    layer's times ``inputs + 1`` (the forward forms; the first layer's forms are its weights,
    ``first_weights``, copied), plus the network's weights times the unsafe disjuncts (the
    closes), times the :func:`~symrel.exact.sizes.weight` of its numbers' bits (:func:`leaf_bits`:
    1 for ordinary networks).

    >>> leaf_operations(268_800, 784, 9, 0, first_weights=200_704)   # an MNIST 256x2 leaf
    56075264
    """
    return ((net_weights - first_weights) * (n_in + 1) + first_weights + net_weights * closes) * weight(bits)


#: the leaves a certificate may always have, whatever its network (:func:`leaf_operations_limit`)
LEAVES_OF_ANY_NETWORK = 2000
#: the most ``leaf operations`` of any certificate (some hours of checking on 2 cores)
MAX_LEAF_OPERATIONS_OF_LARGE_NETWORKS = 10 ** 12


def leaf_operations_limit(net_weights: int, n_in: int, closes: int, first_weights: int = 0) -> int:
    """The limit ``leaf operations``: :data:`MAX_LEAF_OPERATIONS`, or, when more, the operations
    of :data:`LEAVES_OF_ANY_NETWORK` leaves of this network (whose weights the certificate
    holds), up to :data:`MAX_LEAF_OPERATIONS_OF_LARGE_NETWORKS`. ACAS Xu: 2e9 (some 25,000
    leaves); an MNIST 256x6 net (264 million a leaf): 5.3e11, 2,000 leaves.

    >>> leaf_operations_limit(13_050, 5, 1, 250), leaf_operations_limit(530_944, 784, 9, 200_704)
    (2000000000, 528435200000)
    """
    many = LEAVES_OF_ANY_NETWORK * leaf_operations(net_weights, n_in, closes, 0, first_weights)
    return max(MAX_LEAF_OPERATIONS, min(MAX_LEAF_OPERATIONS_OF_LARGE_NETWORKS, many))


def _times(layer, L, U, lower=None):
    """``(Wp L + Wn U, Wp U + Wn L)`` over the integers, forms as rows; ``lower``: the rows of
    the first wanted (None: all), the others None. The rows ``j`` where ``L_j`` and ``U_j`` are
    both 0 (an inactive neuron's forms) add nothing, so the product is taken over the others
    alone: on MNIST most neurons are inactive. With python-flint the products
    ``[Wp' | Wn'] [[U'], [L']]`` and, on the rows ``lower``, ``[Wp' | Wn'] [[L'], [U']]``, with
    ``Wp'``, ``Wn'`` the weights' columns ``j`` (that part of the weights kept for the next
    leaves, where the same neurons recur).

    >>> layer = {"Wp": [[2, 0], [0, 0]], "Wn": [[0, -1], [0, -3]], "mats": None, "parts": {}}
    >>> _times(layer, [[1, 0], [0, 0]], [[2, 5], [0, 0]])    # the second row is 0: left out
    ([[2, 0], [0, 0]], [[4, 10], [0, 0]])
    >>> _times(layer, [[1, 0], [0, 0]], [[2, 5], [0, 0]], lower=[1])
    ([None, [0, 0]], [[4, 10], [0, 0]])
    """
    live = tuple(j for j, (l, u) in enumerate(zip(L, U)) if any(l) or any(u))
    w, m = len(L[0]), len(layer["Wp"])
    rows = range(m) if lower is None else lower
    zl, zu = [None] * m, [[0] * w for _ in range(m)]
    if not live:
        for i in rows:
            zl[i] = [0] * w
        return zl, zu
    if layer["mats"] is not None:
        key = ("times", live)
        part = layer["parts"].get(key)
        if part is None:
            part = _flint.fmpz_mat([[rp[j] for j in live] + [rn[j] for j in live]
                                    for rp, rn in zip(layer["Wp"], layer["Wn"])])
            layer["parts"][key] = part
            while len(layer["parts"]) > PARTS_KEPT:
                layer["parts"].pop(next(iter(layer["parts"])))
        S = _flint.fmpz_mat([U[j] for j in live] + [L[j] for j in live])
        zu = [list(map(int, r)) for r in (part * S).tolist()]   # Python's ints: quicker in the sums below
        if rows:
            sub = part if lower is None else _flint.fmpz_mat(
                [[layer["Wp"][i][j] for j in live] + [layer["Wn"][i][j] for j in live] for i in rows])
            got = (sub * _flint.fmpz_mat([L[j] for j in live] + [U[j] for j in live])).tolist()
            for i, r in zip(rows, got):
                zl[i] = list(map(int, r))
        return zl, zu
    cl, cu = [[c[j] for j in live] for c in zip(*L)], [[c[j] for j in live] for c in zip(*U)]
    Wp = [[r[j] for j in live] for r in layer["Wp"]]
    Wn = [[r[j] for j in live] for r in layer["Wn"]]
    for i in rows:
        zl[i] = [sum(p * a for p, a in zip(Wp[i], l)) + sum(q * c for q, c in zip(Wn[i], u)) for l, u in zip(cl, cu)]
    zu = [[sum(p * c for p, c in zip(rp, u)) + sum(q * a for q, a in zip(rn, l)) for l, u in zip(cl, cu)]
          for rp, rn in zip(Wp, Wn)]
    return zl, zu


def _lowest(row, plo, width):
    """``Qb`` times the minimum over the box of the form ``row`` without its constant (an
    integer): each coefficient ``a`` takes ``plo`` or ``phi = plo + width`` by its sign
    (``a plo + min(a, 0) width``)."""
    return sum(map(mul, row, plo)) + sum(a * w for a, w in zip(row, width) if a < 0)


def _extreme(row, den, plo, phi, width, Qb, lowest):
    """``min`` (or ``max``) over the box of the form ``row / den`` (constant last), exactly:
    each coefficient ``a`` takes ``plo`` or ``phi`` by its sign (``a plo + min(a, 0) width``
    for the minimum, ``a phi - min(a, 0) width`` for the maximum, ``width = phi - plo``)."""
    total = row[len(plo)] * Qb + sum(map(mul, row, plo if lowest else phi))
    neg = sum(a * w for a, w in zip(row, width) if a < 0)
    return _FRACTION(total + neg if lowest else total - neg, den * Qb)


def _rounded(row, den, plo, Qb, upper):
    """The form ``row / den`` rounded outward to FORM_BITS fractional bits (docs/format.md).
    For ``den = 2^e`` the same integers by shifts: ``floor(2^40 a / 2^e)`` is ``a >> (e - 40)``,
    and ``2^40 a - r 2^e = 2^40 (a - r 2^(e - 40))``, which the constant's division cancels."""
    F = 1 << FORM_BITS
    n = len(plo)
    if den & (den - 1) == 0:
        sh = den.bit_length() - 1 - FORM_BITS
        if sh <= 0:  # exact: 2^40 / den is an integer
            return [a << -sh for a in row]
        out = [-((-a) >> sh) for a in row[:n]] if upper else [a >> sh for a in row[:n]]
        S = row[n] * Qb + sum((a - (r << sh)) * p for a, r, p in zip(row, out, plo))
        dq = Qb << sh
        out.append(-((-S) // dq) if upper else S // dq)
        return out
    out, S = [], row[-1] * F * Qb
    for k in range(n):
        a = row[k]
        r = (a * F) // den if not upper else -((-a * F) // den)
        out.append(r)
        S += (a * F - r * den) * plo[k]
    out.append(S // (den * Qb) if not upper else -((-S) // (den * Qb)))
    return out


def _round_rows(rows, M):
    """``floor(2^40 v / M)`` for each entry: ``v`` times ``2^40 / M`` when that is an integer, for
    ``M = 2^40 q`` the floor of ``v / q`` (with python-flint's integers a ``q`` of its own type,
    whose floor division is the quickest), else of ``2^40 v / M``."""
    F = 1 << FORM_BITS
    if F % M == 0:   # exact: times 2^40 / M
        m = F // M
        return rows if m == 1 else [[v * m for v in r] for r in rows]
    if M % F == 0:
        q = M // F
        q = _flint.fmpz(q) if _flint is not None else q
        return [[v // q for v in r] for r in rows]
    return [[(v * F) // M for v in r] for r in rows]


#: the parts of a layer's weights kept by :func:`_part_times` and :func:`_times` (per layer, the most recent)
PARTS_KEPT = 64


def _part_times(rows, layer, live, out, factors=None):
    """``(rows W', rows b')`` over the integers, with ``W'``, ``b'`` the rows ``live`` of the
    layer's ``W``, ``b`` (times its ``D``), each times its entry of ``factors`` (None: 1), and of
    ``W'`` the columns ``out`` alone (None: all): the rows' entries are those of the neurons
    ``live``, and the columns left out are those of neurons below whose coefficient the next
    ReLU layer sets to 0 (inactive ones), so the product is the full one with those entries, all
    0, left out. With python-flint one matrix product, the layer's part kept for the next leaves
    (the same live neurons recur)."""
    Wi, bi = layer["Wi"], layer["bi"]
    width = len(Wi[0]) if out is None else len(out)
    if not live:
        return [[0] * width for _ in rows], [0] * len(rows)
    f = factors or (1,) * len(live)
    if layer["mats"] is not None:
        key = (live, out, factors)
        part = layer["parts"].get(key)
        if part is None:
            part = _flint.fmpz_mat([[m * v for v in (Wi[i] if out is None else [Wi[i][c] for c in out])] + [m * bi[i]]
                                    for i, m in zip(live, f)])
            layer["parts"][key] = part
            while len(layer["parts"]) > PARTS_KEPT:
                layer["parts"].pop(next(iter(layer["parts"])))
        res = (_flint.fmpz_mat(rows) * part).tolist()  # fmpz entries, exact integers that mix with ints
        return [r[:-1] for r in res], [r[-1] for r in res]
    cols = [[m * Wi[i][c] for i, m in zip(live, f)] for c in (range(width) if out is None else out)]
    b = [m * bi[i] for i, m in zip(live, f)]
    return [[sum(map(mul, r, col)) for col in cols] for r in rows], [sum(map(mul, r, b)) for r in rows]


def _live(layers, states, j, betas):
    """The neurons of layer ``j`` whose coefficients a backward substitution keeps: for a ReLU
    layer, those not inactive and those a split multiplier of ``betas`` names, in increasing
    order, as a tuple; None (all) for an affine layer or below the first layer."""
    if j < 0 or not layers[j]["relu"]:
        return None
    k = sum(1 for layer in layers[:j] if layer["relu"])
    named = {c for row in betas or () for kk, c, _, _ in row if kk == k}
    return tuple(c for c, sc in enumerate(states[k]) if sc != 0 or c in named)


def _backward_bounds(layers, states, li, plo, phi, Qb, upper, pick, own=None, betas=None):
    """The backward bound of the pre-activations ``pick`` of layer ``li`` (docs/format.md,
    step 2): the lower one (``upper``: the upper one; a list: one side per neuron of ``pick``,
    so that both sides share each product), exact rationals. An upper bound of ``z`` is computed
    as minus the lower bound of ``-z``: its row is negated, and a row rounded down and mapped by
    the lower bound's rules is then exactly minus the upper bound's row rounded up and mapped by
    its rules (``ceil(v) = -floor(-v)``; a coefficient's side is chosen by its sign), so every row
    is a lower bound's. The constants are kept as integers over one common denominator, and a
    ReLU layer's inactive neurons are skipped (their coefficient becomes 0, so their entries are
    not kept: :func:`_live`). ``own``: per neuron of ``pick``, ``{(relu layer, neuron): alpha}``,
    lower slopes that replace the relaxations' in its row (a ``tighten`` side); ``betas``: per
    neuron of ``pick``, ``[(relu layer, neuron, side, beta)]``, split multipliers added to the
    split neuron's coefficient once its layer's phases have mapped it (``-beta`` on side ``a``
    for a lower bound, ``+beta`` on side ``i``; the other way for an upper one)."""
    F = 1 << FORM_BITS
    ups = [upper] * len(pick) if type(upper) is bool else upper
    layer = layers[li]
    live = _live(layers, states, li - 1, betas)   # the entries of the rows: of these neurons below
    Wi = layer["Wi"]
    rows = [(list(Wi[i]) if live is None else [Wi[i][c] for c in live]) for i in pick]
    rows = [[-v for v in r] if up else r for r, up in zip(rows, ups)]   # an upper bound's row: of -z
    M = layer["D"]
    cn, cd = [-layer["bi"][i] if up else layer["bi"][i] for i, up in zip(pick, ups)], layer["D"]  # constants: cn / cd

    def add(vals, den):
        nonlocal cn, cd
        common = cd * den // gcd(cd, den)
        if common != cd:
            cn = [c * (common // cd) for c in cn]
            cd = common
        g = common // den
        cn = [c + v * g for c, v in zip(cn, vals)]

    k = len(states)
    for j in range(li - 1, -1, -1):
        below = layers[j]
        if below["relu"]:
            k -= 1
            st = states[k]
            rows = _round_rows(rows, M)  # over h >= 0
            M = F
            Pj, Tj = 1, 1
            for sc in st:
                if sc not in (0, 1):
                    for v in sc[:2]:
                        Pj = Pj * int(v.denominator) // gcd(Pj, int(v.denominator))
                    Tj = Tj * int(sc[2].denominator) // gcd(Tj, int(sc[2].denominator))
            mine = [{c: a for (kk, c), a in row.items() if kk == k} for row in own] if own is not None else None
            mine_b = [[(c, side, b) for kk, c, side, b in row if kk == k] for row in betas] \
                if betas is not None else None
            dens = {int(a.denominator) for row in mine or () for a in row.values()} | \
                {int(b.denominator) for row in mine_b or () for _, _, b in row}
            if dens:   # the rows' own slopes and multipliers join the common denominator (bounded first)
                lcm_bits(dens | {Pj}, what="the common denominator of the slopes of a layer")
                for q in dens:
                    Pj = Pj * q // gcd(Pj, q)
            at = {c: p for p, c in enumerate(live)}   # a neuron's entry in the rows
            # an active neuron's h = z: its entry times Pj, or, without multipliers, Pj times its row of
            # the weights below (the product's factors, kept with the weights' part)
            folded = betas is None
            factors = tuple(Pj if st[c] == 1 else 1 for c in live) if folded else None
            scale = None if folded else [Pj if st[c] == 1 else 0 for c in live]
            unst = [(p, c, int(sc[0].numerator) * (Pj // int(sc[0].denominator)),
                     int(sc[1].numerator) * (Pj // int(sc[1].denominator)),
                     int(sc[2].numerator) * (Tj // int(sc[2].denominator))) for p, c, sc in
                    ((p, c, st[c]) for p, c in enumerate(live)) if sc not in (0, 1)]
            new, tsums = [], []
            for ri, (r, upper) in enumerate(zip(rows, ups)):
                nr = r if folded else [v * f for v, f in zip(r, scale)]   # folded: live holds no inactive neuron
                tsum = 0
                row_own = mine[ri] if mine is not None else {}
                for p, c, a, sl, t in unst:
                    v = r[p]
                    if v > 0:   # h >= alpha z (or the side's own slope)
                        got = row_own.get(c)
                        nr[p] = v * (a if got is None else int(got.numerator) * (Pj // int(got.denominator)))
                    elif v:     # h <= s z + t
                        nr[p] = v * sl
                        tsum += v * t
                for c, side, b in (mine_b[ri] if mine_b is not None else ()):  # over M * Pj, as nr
                    nr[at[c]] += (-1 if side == "a" else 1) * int(b.numerator) * (Pj // int(b.denominator)) * M
                new.append(nr)
                tsums.append(tsum)
            rows = new
            if any(tsums):
                add(tsums, M * Tj)
            M = M * Pj
        out = _live(layers, states, j - 1, betas)   # the entries the next rows keep
        rows, dots = _part_times(rows, below, live if live is not None else tuple(range(len(below["bi"]))), out,
                                 factors if below["relu"] else None)
        live = out
        add(dots, M * below["D"])
        M = M * below["D"]
    width = [h - l for l, h in zip(plo, phi)]
    MQb = M * Qb
    den = MQb * cd
    got = (_FRACTION(_lowest(r, plo, width) * cd + c * MQb, den) for r, c in zip(rows, cn))
    return [-v if up else v for v, up in zip(got, ups)]


def relaxation(lz, uz):
    """The relaxation ``(alpha, s, t)`` of an unstable neuron whose pre-activation ranges over
    ``[lz, uz]`` (``lz < 0 < uz``), as docs/format.md fixes it: with ``lk = floor(2^24 lz)`` and
    ``uk = ceil(2^24 uz)``, ``alpha = 1`` when ``uk >= -lk`` else 0; ``s`` the chord's slope
    ``uk / (uk - lk)`` rounded up to ``2^-16``; ``t = -s lk / 2^24``. The line ``s w + t`` is then
    above ``max(0, w)`` at both ends. Determined by the bounds, so a certificate records no
    number its check does not fix: a changed alpha or intercept that no bound uses is refused
    all the same.

    >>> [str(v) for v in relaxation(Q(-1), Q(3))]
    ['1', '3/4', '3/4']
    """
    P, K2 = 1 << SLOPE_BITS, 1 << BOUND_BITS
    lk = int(lz.numerator) * K2 // int(lz.denominator)
    uk = -(-int(uz.numerator) * K2 // int(uz.denominator))
    s = -((-uk * P) // (uk - lk))
    return Q(int(uk >= -lk)), Q(s, P), Q(-s * lk, P * K2)


def _one_grid_point(lz, uz) -> bool:
    """Whether ``floor(2^24 lz) = ceil(2^24 uz)``: the range ``[lk, uk] / 2^24`` of the relaxation
    rule is one point (never when ``lz < 0 < uz``), so its chord is undefined.

    >>> _one_grid_point(Q(1), Q(1)), _one_grid_point(Q(-1, 1 << 30), Q(1, 1 << 30))
    (True, False)
    """
    K2 = 1 << BOUND_BITS
    return int(lz.numerator) * K2 // int(lz.denominator) == -(-int(uz.numerator) * K2 // int(uz.denominator))


#: the passes of :func:`_states` kept for the next leaves (per process, the most recent)
PASSES_KEPT = 4
_PASSES: dict = {}


def _pass_key(layers, box, phases, relax, fixed, k, tighten):
    """What the forms after ReLU layer ``k`` and the states up to it depend on: the network, the
    box, the phases and relaxations as written up to that layer (their text: the same text was
    checked the same way) and the splits' sides up to it. ``relax``: the relaxations consumed up
    to that layer, or all of the leaf's (then those of the layers above are cut off here, by the
    count of 'u' in the phases up to ``k``)."""
    text = [p if type(p) is str else None for p in phases[:k + 1]]
    if any(t is None for t in text):
        return None
    used = sum(t.count("u") for t in text)
    return (id(layers), box, k, tuple(text), repr(relax[:used]),
            tuple(sorted((key, side) for key, side in fixed.items() if key[0] <= k)),
            repr([(li, entries) for li, entries in sorted(tighten.items()) if li <= k]))


def _tighten_entries(facts, layers, where) -> dict:
    """A leaf's ``tighten`` entries by ReLU layer: ``{k: [(at, i, lower, upper, betas), ...]}`` with
    ``at`` the entry's index in the list and the sides as written (read when their layer comes,
    :func:`_tightened`); the neurons checked for range and strictly increasing order."""
    if "tighten" not in facts:
        return {}
    widths = [len(layer["bi"]) for layer in layers if layer["relu"]]
    out, last = {}, None
    for at, entry in enumerate(array(facts["tighten"], f"{where}.tighten")):
        ew = f"{where}.tighten[{at}]"
        entry = record(entry, ew, keys=("relu",), optional=("lower", "upper", "lower_beta", "upper_beta"))
        if "lower" not in entry and "upper" not in entry:
            raise CertificateError("expected a side: 'lower', 'upper' or both", path=ew)
        ref = array(entry["relu"], f"{ew}.relu", 2)
        k = index(ref[0], len(widths), f"{ew}.relu[0]")
        if k == 0:
            raise CertificateError("the first ReLU layer's bounds are exact on the box: nothing to tighten",
                                   path=f"{ew}.relu[0]")
        i = index(ref[1], widths[k], f"{ew}.relu[1]")
        if last is not None and (k, i) <= last:
            raise CertificateError("expected the entries in increasing order of (layer, neuron), each once",
                                   path=f"{ew}.relu")
        last = (k, i)
        out.setdefault(k, []).append((at, i, entry.get("lower"), entry.get("upper"),
                                      (entry.get("lower_beta"), entry.get("upper_beta"))))
    return out


def _tightened(layers, states, at, entries, plo, phi, Qb, lo, hi, where, sizes, splits=()):
    """``(i, lower, upper)`` for the ``tighten`` entries of the ReLU layer computed by layer ``at``
    (docs/format.md): each side's bound of the pre-activation ``z_i``, the backward bound of step
    2 (:func:`_backward_bounds`) with the side's own lower slope for each unstable neuron below
    (one per ``u`` of the layers below, in the relaxations' order) in place of the relaxations'
    alphas, and with a side's ``lower_beta`` or ``upper_beta`` (one multiplier per ReLU split of
    the leaf's path in the layers below, in path order) those splits' terms; None for a side the
    entry does not have. ``splits``: the leaf's, ``(relu layer, neuron, side)`` in path order."""
    unstable = [(kk, c) for kk, st in enumerate(states) for c, sc in enumerate(st) if isinstance(sc, tuple)]
    below = [sp for sp in splits if sp[0] < len(states)]
    relus = len(states)
    bits = box_bits(lo, hi, where)
    sides = ([], [], []), ([], [], [])   # (neurons, slopes, multipliers) of the lower and of the upper sides
    for e_at, i, lower, upper, raw_betas in entries:
        for s, raw, name in ((0, lower, "lower"), (1, upper, "upper")):
            if raw is None:
                if raw_betas[s] is not None:
                    raise CertificateError(f"expected no {name}_beta without {name}", path=f"{where}[{e_at}]")
                continue
            sw = f"{where}[{e_at}].{name}"
            vals = [_relaxation_number(v, f"{sw}[{j}]") for j, v in enumerate(array(raw, sw, len(unstable)))]
            for j, v in enumerate(vals):
                if not ZERO <= v <= 1:
                    raise CertificateError(f"expected a slope with 0 <= alpha <= 1, got {v}", path=f"{sw}[{j}]")
            mult = []
            if raw_betas[s] is not None:
                bw = f"{where}[{e_at}].{name}_beta"
                if not below:
                    raise CertificateError("expected no multiplier: no ReLU split below this layer on the path",
                                           path=bw)
                mult = [_relaxation_number(v, f"{bw}[{j}]") for j, v in enumerate(array(raw_betas[s], bw, len(below)))]
                for j, b in enumerate(mult):
                    if b < 0:
                        raise CertificateError(f"expected beta >= 0, got {b}", path=f"{bw}[{j}]")
            check_product_bits(leaf_bits(sizes, bits, relus * number_bits(vals + mult, where=sw)), where=sw,
                               what="the numbers of this bound")
            sides[s][0].append(i)
            sides[s][1].append(dict(zip(unstable, vals)))
            sides[s][2].append([(kk, c, side, b) for (kk, c, side), b in zip(below, mult) if b])
    low = dict(zip(sides[0][0], _backward_bounds(layers, states, at, plo, phi, Qb, False, *sides[0]))) \
        if sides[0][0] else {}
    high = dict(zip(sides[1][0], _backward_bounds(layers, states, at, plo, phi, Qb, True, *sides[1]))) \
        if sides[1][0] else {}
    return [(e[1], low.get(e[1]), high.get(e[1])) for e in entries]


#: the relaxations' numbers read, by their JSON value and the number limits they were read under
#: (the same text reads as the same number: most are "0", "1" and a few slopes)
_RELAXATION_NUMBERS: dict = {}
RELAXATION_NUMBERS_KEPT = 4096


def _relaxation_read(value, where, k):
    """Entry ``k`` of the relaxation at ``where``, read as :func:`symrel.checking.vnnlib_limits.relaxation_number`
    reads it (a JSON integer or string is read once, then found by its value)."""
    key = (type(value), value, current_limits()) if type(value) in (int, str) else None
    got = _RELAXATION_NUMBERS.get(key) if key is not None else None
    if got is None:
        got = _relaxation_number(value, f"{where}[{k}]")
        if key is not None:
            if len(_RELAXATION_NUMBERS) >= RELAXATION_NUMBERS_KEPT:
                _RELAXATION_NUMBERS.clear()
            _RELAXATION_NUMBERS[key] = got
    return got


def _states(layers, lo, hi, facts, where, fixed=None):
    """Step 1 of a leaf: the phases checked against the forward symbolic forms; the states.
    ``fixed``: ``{(relu layer, neuron): "a" or "i"}``, the sides the tree's ReLU splits chose
    on the path to the leaf: the neuron's range ``[lz, uz]`` is clipped to ``z >= 0`` ("a")
    or ``z <= 0`` ("i"), the leaf's region being where they hold."""
    fixed = fixed or {}
    n = len(lo)
    box_lo, box_hi = lo, hi   # (lo and hi name bounds below)
    Qb = 1
    for v in lo + hi:
        Qb = Qb * int(v.denominator) // gcd(Qb, int(v.denominator))
    plo = [int(v.numerator) * (Qb // int(v.denominator)) for v in lo]
    phi = [int(v.numerator) * (Qb // int(v.denominator)) for v in hi]
    width = [h - l for l, h in zip(plo, phi)]
    phases = array(facts["phases"], f"{where}.phases", sum(1 for layer in layers if layer["relu"]))
    relax = array(facts["relaxations"], f"{where}.relaxations")
    tighten = _tighten_entries(facts, layers, where)
    L = U = None   # the inputs' forms, the identity: the first layer's forms are its weights (below)
    H = 1
    r_at, li, states = 0, 0, []
    start = 0
    relu_at = [at for at, layer in enumerate(layers) if layer["relu"]]
    box = (tuple(plo), tuple(phi), Qb)
    keys = [_pass_key(layers, box, phases, relax, fixed, k, tighten) for k in range(len(relu_at))]
    for k in range(len(relu_at) - 1, -1, -1):  # the deepest pass done for a leaf that agrees up to there
        got = _PASSES.get(keys[k])
        if got is not None and got[0] is layers:
            _, L, U, H, r_at, states = got
            states = list(states)
            start, li = relu_at[k] + 1, k + 1
            break
    # the forms of the affine layers after the last ReLU layer are not read: not computed
    for at in range(start, relu_at[-1] + 1 if relu_at else 0):
        layer = layers[at]
        if layer["relu"]:   # the phases first: an inactive neuron's lower form is read only if split or tightened
            pw = f"{where}.phases[{li}]"
            ph = string(phases[li], pw)
            if len(ph) != len(layer["bi"]) or set(ph) - set("aiu"):
                raise CertificateError(f"expected {len(layer['bi'])} characters a, i or u", path=pw)
            clips = [(i, fc) for (fl, i), fc in fixed.items() if fl == li]
            # the bounds a phase reads: the lower one of an active neuron, the upper one of an inactive
            # one, both of an unstable, clipped or tightened one (the other side of a stable neuron is
            # never read: it is left None, here and in the backward bounds below)
            both = {i for i, _ in clips} | {e[1] for e in tighten.get(li, ())}
            lower = [i for i, c in enumerate(ph) if c != "i" or i in both]
        else:
            lower = None
        if at == 0:  # W times the inputs' forms (the identity): W itself
            zL = [[p + q for p, q in zip(rp, rn)] + [0] for rp, rn in zip(layer["Wp"], layer["Wn"])]
            zU = [list(r) for r in zL]
        else:
            zL, zU = _times(layer, L, U, lower)
        den = layer["D"] * H
        for i, c in enumerate(layer["bi"]):
            if zL[i] is not None:
                zL[i][n] += c * H
            zU[i][n] += c * H
        if not layer["relu"]:  # an affine layer: its forms as they are
            L, U, H = zL, zU, den
            continue
        hL, hU, st = [], [], []
        lows = [_extreme(r, den, plo, phi, width, Qb, True) if c != "i" or i in both else None
                for i, (r, c) in enumerate(zip(zL, ph))]
        highs = [_extreme(r, den, plo, phi, width, Qb, False) if c != "a" or i in both else None
                 for i, (r, c) in enumerate(zip(zU, ph))]
        forward = {i: (lows[i], highs[i]) for i, _ in clips}   # a split neuron's relaxation is fixed by these
        for i, fc in clips:  # a ReLU split's part: z >= 0 ("a") or z <= 0 ("i") there
            if fc == "a":
                lows[i] = max(lows[i], ZERO)
            else:
                highs[i] = min(highs[i], ZERO)
        pick = [i for i, (c, lo, hi) in enumerate(zip(ph, lows, highs))
                if not ((c == "a" and lo >= 0) or (c == "i" and hi <= 0))]
        if states and pick:  # the forward bounds leave these phases or relaxations: backward bounds too
            down = [i for i in pick if ph[i] != "i"]   # lower bounds: of the active and unstable neurons
            up = [i for i in pick if ph[i] != "a"]     # upper bounds: of the inactive and unstable ones
            got = _backward_bounds(layers, states, at, plo, phi, Qb, [False] * len(down) + [True] * len(up), down + up)
            for i, lo in zip(down, got):
                lows[i] = max(lows[i], lo)
            for i, hi in zip(up, got[len(down):]):
                highs[i] = min(highs[i], hi)
        if li in tighten:  # the leaf's own slopes for some of this layer's bounds (docs/format.md, "tighten")
            for i, lb, ub in _tightened(layers, states, at, tighten[li], plo, phi, Qb, box_lo, box_hi,
                                        f"{where}.tighten", [layer["sizes"] for layer in layers],
                                        [(k, i, c) for (k, i), c in fixed.items()]):
                if lb is not None:
                    lows[i] = max(lows[i], lb)
                if ub is not None:
                    highs[i] = min(highs[i], ub)
        for i, c in enumerate(ph):
            if c == "a":
                lz = lows[i]
                if lz < 0:
                    raise CertificateError(f"neuron {i} is not active on the leaf: min L_z = {lz} < 0", path=pw)
                hL.append(_rounded(zL[i], den, plo, Qb, False))
                hU.append(_rounded(zU[i], den, plo, Qb, True))
                st.append(1)
            elif c == "i":
                uz = highs[i]
                if uz > 0:
                    raise CertificateError(f"neuron {i} is not inactive on the leaf: max U_z = {uz} > 0", path=pw)
                hL.append([0] * (n + 1))
                hU.append([0] * (n + 1))
                st.append(0)
            else:
                rw = f"{where}.relaxations[{r_at}]"
                if r_at >= len(relax):
                    raise CertificateError(f"expected a relaxation for neuron {i} of layer {li}", path=rw)
                alpha, s, t = (_relaxation_read(v, rw, k) for k, v in enumerate(array(relax[r_at], rw, 3)))
                r_at += 1
                lz, uz = lows[i], highs[i]
                if not (ZERO <= alpha <= 1) or s < 0:
                    raise CertificateError("expected 0 <= alpha <= 1 and s >= 0", path=rw)
                # an empty range (a split's side z >= 0 where the bounds give z < 0, or z <= 0 where
                # they give z > 0): the leaf's part holds no point, so no line is wrong there
                if lz <= uz and any(y < 0 or y < w for w, y in ((w, s * w + t) for w in (lz, uz))):
                    raise CertificateError(f"the line s w + t is below max(0, w) on [{lz}, {uz}]", path=rw)
                if (li, i) in fixed:   # side z >= 0 of a split: the line h <= z, alpha by the forward bounds
                    want = (relaxation(*forward[i])[0] if forward[i][0] < 0 < forward[i][1] else Q(1), Q(1), ZERO)
                elif _one_grid_point(lz, uz):   # the rule's chord would divide by uk - lk = 0
                    raise CertificateError(f"neuron {i} is marked 'u' but its bounds [{lz}, {uz}] round to one "
                                           "point of the 2^-24 grid, where the relaxation rule is undefined "
                                           "(docs/format.md); expected 'a' or 'i'", path=pw)
                else:
                    want = relaxation(lz, uz)
                if (alpha, s, t) != want:
                    raise CertificateError(f"expected the relaxation [{want[0]}, {want[1]}, {want[2]}] of the bounds "
                                           f"[{lz}, {uz}] (docs/format.md: it is determined by them), got "
                                           f"[{alpha}, {s}, {t}]", path=rw)
                an, ad = int(alpha.numerator), int(alpha.denominator)
                hL.append(_rounded([v * an for v in zL[i]], den * ad, plo, Qb, False))
                sn, sd, tn, td = int(s.numerator), int(s.denominator), int(t.numerator), int(t.denominator)
                u = [v * sn * td for v in zU[i]]
                u[n] += tn * sd * den
                hU.append(_rounded(u, den * sd * td, plo, Qb, True))
                st.append((alpha, s, t))
        states.append(st)
        L, U, H = hL, hU, 1 << FORM_BITS
        key = keys[li]   # (the relaxations up to this layer: the first r_at, one per 'u' up to it)
        if key is not None and key not in _PASSES:
            _PASSES[key] = (layers, L, U, H, r_at, tuple(states))
            while len(_PASSES) > PASSES_KEPT:
                _PASSES.pop(next(iter(_PASSES)))
        li += 1
    if r_at != len(relax):
        raise CertificateError(f"expected {r_at} relaxations (one per 'u'), got {len(relax)}",
                               path=f"{where}.relaxations")
    return states


def _row_times(layer, mu):
    """The row vector ``mu`` (rationals) times the layer's ``W``, exactly, with python-flint: ``mu``
    over its common denominator ``m`` times the integer weights ``W D`` (one integer product),
    each entry over ``m D``; the same numbers as the product of rational matrices, whose
    denominators flint would clear again at each call.

    >>> import pytest; fmpq = pytest.importorskip("flint").fmpq   # python-flint, where installed
    >>> layer = {"Wz": _flint.fmpz_mat([[1, 2], [3, -4]]), "D": 4}
    >>> [str(v) for v in _row_times(layer, [fmpq(1, 2), fmpq(1, 3)])]
    ['3/8', '-1/12']
    """
    m = 1
    for v in mu:
        d = int(v.denominator)
        m = m * d // gcd(m, d)
    ints = _flint.fmpz_mat([[int(v.numerator) * (m // int(v.denominator)) for v in mu]])
    den = m * layer["D"]
    return [_FRACTION(int(v), den) for v in (ints * layer["Wz"]).entries()]


def _backward_min(layers, states, ay, ax, lo, hi, betas=()):
    """Step 5 of a leaf: the lower bound of ``ay . y + ax . x`` over the leaf; ``betas``:
    ``(relu layer, neuron, phase, beta)`` per ReLU split on the path (``beta >= 0``: the
    form gains ``-beta z`` where the split set ``z >= 0``, ``+beta z`` where ``z <= 0``)."""
    mu = list(ay)
    const = ZERO
    k = len(states)
    for layer in reversed(layers):
        W, b = layer["W"], layer["b"]
        if layer["relu"]:
            k -= 1
            nu = []
            for v, st in zip(mu, states[k]):
                if st == 1:
                    nu.append(v)
                elif st == 0 or not v:
                    nu.append(ZERO)
                elif v > 0:
                    nu.append(v * st[0])
                else:
                    nu.append(v * st[1])
                    const += v * st[2]
            for bk, bi, bc, beta in betas:
                if bk == k:
                    nu[bi] += -beta if bc == "a" else beta
            mu = nu
        for v, c in zip(mu, b):
            if v:
                const += v * c
        if layer["Wz"] is not None:  # the row vector mu times W, exactly, in C
            mu = _row_times(layer, mu)
        else:
            cols = len(W[0])
            new = [ZERO] * cols
            for v, row in zip(mu, W):
                if v:
                    for j in range(cols):
                        if row[j]:
                            new[j] += v * row[j]
            mu = new
    form = [m + a for m, a in zip(mu, ax)] + [const]
    return _form_min(form, lo, hi)


def _slopes(states, raw, where):
    """The states with a close's own lower slopes: ``raw`` holds one ``alpha`` per unstable
    neuron, in the order of the relaxations, each with ``0 <= alpha <= 1`` (``h >= alpha z``
    then holds for every ``z``, so any such slope is sound, whatever the neuron's range)."""
    raw = array(raw, where, sum(1 for layer in states for st in layer if isinstance(st, tuple)))
    out, at = [], 0
    for layer in states:
        row = []
        for st in layer:
            if isinstance(st, tuple):
                alpha = _relaxation_number(raw[at], f"{where}[{at}]")
                if not ZERO <= alpha <= 1:
                    raise CertificateError(f"expected 0 <= alpha <= 1, got {alpha}", path=f"{where}[{at}]")
                st = (alpha, st[1], st[2])
                at += 1
            row.append(st)
        out.append(row)
    return out


def check_leaf(layers, facts, lo, hi, d, region, unsafe, where, splits=()):
    """One leaf (docs/format.md); ``splits``: the ReLU splits on its path, ``(layer, neuron,
    phase)`` from the root down. Returns whether it closed an unsafe disjunct by an atom of
    the input region (then the leaf's part holds no point of the region)."""
    facts = record(facts, where, keys=("phases", "relaxations", "closes"), optional=("tighten",))
    sizes = [layer["sizes"] for layer in layers]
    bits = box_bits(lo, hi, where)   # bounded by the walk of the tree already (_tree_leaves)
    relus = sum(1 for layer in layers if layer["relu"])
    outside = False
    states = _states(layers, lo, hi, facts, where, {(k, i): c for k, i, c in splits})
    closes = array(facts["closes"], f"{where}.closes", len(unsafe))
    for u, entry in enumerate(closes):
        cw = f"{where}.closes[{u}]"
        entry = record(entry, cw, keys=("atom", "bound"), optional=("beta", "alpha"))
        betas = split_betas(entry, splits, cw)
        slopes = states
        if "alpha" in entry:
            slopes = _slopes(states, entry["alpha"], f"{cw}.alpha")
        ref = array(entry["atom"], f"{cw}.atom", 2)
        side = string(ref[0], f"{cw}.atom[0]", choices=("unsafe", "region"))
        outside = outside or side == "region"
        pool = unsafe[u] if side == "unsafe" else region[d]
        x, y, rhs = pool[index(ref[1], len(pool), f"{cw}.atom[1]")]
        bound = rational(entry["bound"], f"{cw}.bound")
        # the atom's numbers, and the close's own slopes and betas at every ReLU layer, join the
        # leaf's: bounded before the substitution multiplies them through the layers
        chosen = [b[3] for b in betas] + [st[0] for layer in slopes for st in layer if isinstance(st, tuple)]
        close_bits = number_bits(list(x) + list(y) + [rhs], where=f"{cw}.atom") \
            + relus * number_bits(chosen, where=cw)
        check_product_bits(leaf_bits(sizes, bits, close_bits), where=cw, what="the numbers of this close's bound")
        got = _backward_min(layers, slopes, y, x, lo, hi, betas)
        if got != bound:
            raise CertificateError(f"the bound recomputed is {got}, not {bound}", path=f"{cw}.bound")
        if not bound > rhs:
            raise CertificateError(f"bound {bound} is not above the right-hand side {rhs}: the atom may hold",
                                   path=f"{cw}.bound")
    return outside


def split_betas(entry: dict, splits, where: str):
    """The optional ``beta`` of a close or a bound (one multiplier >= 0 per ReLU split on the path
    to the leaf, in the path's order) as ``(layer, neuron, side, beta)``; ``()`` without one."""
    if "beta" not in entry:
        return ()
    if not splits:
        raise CertificateError("expected no beta: no ReLU split on the path to this leaf", path=f"{where}.beta")
    raw = array(entry["beta"], f"{where}.beta", len(splits))
    betas = []
    for j, ((k, i, c), v) in enumerate(zip(splits, raw)):
        beta = _relaxation_number(v, f"{where}.beta[{j}]")
        if beta < 0:
            raise CertificateError(f"expected beta >= 0, got {beta}", path=f"{where}.beta[{j}]")
        betas.append((k, i, c, beta))
    return betas


def _tree_leaves(tree, lo, hi, d, where, budget, widths, cost):
    """The leaves of the preorder tree of disjunct ``d`` that covers [lo, hi], as
    ``(d, where, lo, hi, splits, facts)`` in order, the tree's structure checked on the way
    (each split inside its node, no neuron split twice on a path, no entry left over): a
    generator, so that a leaf is checked (:func:`symrel.checking.leaf_runs.run_leaves`) before the entries after it
    are read, as a walk that checks each leaf where it meets it would. ``budget``: the tree
    entries and the leaf operations still allowed; ``cost``: ``(sizes, weights, closes, first,
    limit)``, the network's layer sizes (:func:`leaf_bits`), its weights, the unsafe disjuncts,
    the first layer's weights and the limit ``leaf operations`` (the budget's start), with which
    each leaf's numbers are bounded and its operations counted before it is checked."""
    sizes, weights, closes, first, limit = cost
    todo = [(list(lo), list(hi), ())]
    pos = 0
    while todo:
        if pos >= len(tree):
            raise CertificateError(f"the tree ends with {len(todo)} node(s) still to cover", path=where)
        if budget[0] <= 0:
            raise beyond_limit("tree entries", MAX_TREE_ENTRIES + 1, MAX_TREE_ENTRIES, f"{where}[{pos}]")
        budget[0] -= 1
        blo, bhi, splits = todo.pop()
        ew = f"{where}[{pos}]"
        entry = tree[pos]
        pos += 1
        if type(entry) is dict and "split" in entry:
            record(entry, ew, keys=("split", "at"))
            i = index(entry["split"], len(blo), f"{ew}.split")
            c = rational(entry["at"], f"{ew}.at")
            if not blo[i] < c < bhi[i]:
                raise CertificateError(f"split point {c} is not strictly inside [{blo[i]}, {bhi[i]}]: the parts "
                                       "do not partition the node", path=f"{ew}.at")
            upper_hi = list(bhi)
            upper_hi[i] = c
            lower_lo = list(blo)
            lower_lo[i] = c
            todo.append((lower_lo, bhi, splits))  # the part x_i >= c, second
            todo.append((blo, upper_hi, splits))  # the part x_i <= c, first
        elif type(entry) is dict and "relu" in entry:
            record(entry, ew, keys=("relu",))
            ref = array(entry["relu"], f"{ew}.relu", 2)
            k = index(ref[0], len(widths), f"{ew}.relu[0]")
            i = index(ref[1], widths[k], f"{ew}.relu[1]")
            if any((k, i) == (sk, si) for sk, si, _ in splits):
                raise CertificateError(f"neuron {i} of ReLU layer {k} is split twice on one path", path=f"{ew}.relu")
            todo.append((blo, bhi, splits + ((k, i, "a"),)))  # the part z >= 0, second
            todo.append((blo, bhi, splits + ((k, i, "i"),)))  # the part z <= 0, first
        else:
            entry = record(entry, ew, keys=("leaf",))
            numbers = leaf_bits(sizes, box_bits(blo, bhi, f"{ew}.leaf"))
            check_product_bits(numbers, where=f"{ew}.leaf", what="the numbers of this leaf's bounds")
            budget[1] -= leaf_operations(weights, len(lo), closes, numbers, first)
            if budget[1] < 0:
                raise beyond_limit("leaf operations", limit - budget[1], limit, f"{ew}.leaf")
            yield d, f"{ew}.leaf", blo, bhi, splits, entry["leaf"]
    if pos != len(tree):
        raise CertificateError(f"unexpected entries after the tree's last leaf ({len(tree) - pos} more)",
                               path=f"{where}[{pos}]")


def _leaf_operations(layers, steps, disjuncts, n_in, closes) -> int:
    """Refuse, before any leaf is checked, a certificate whose leaves would cost more than
    :data:`MAX_LEAF_OPERATIONS` (the leaves are counted in the trees as written, each at least
    :func:`leaf_operations` of the network's numbers; the walk of the trees counts each leaf
    again with its box, :func:`_tree_leaves`); returns the number of leaves."""
    weights = sum(len(layer["bi"]) * layer["sizes"][2] for layer in layers)
    first = len(layers[0]["bi"]) * layers[0]["sizes"][2]
    leaves = 0
    for d in range(min(disjuncts, len(steps))):
        data = steps[d].get("certificate") if type(steps[d]) is dict else None
        tree = data.get("tree") if type(data) is dict else None
        if type(tree) is list:
            leaves += sum(1 for e in tree if type(e) is dict and "leaf" in e)
    work = leaves * leaf_operations(weights, n_in, closes, leaf_bits([layer["sizes"] for layer in layers], 0), first)
    limit = leaf_operations_limit(weights, n_in, closes, first)
    if work > limit:
        raise beyond_limit("leaf operations", work, limit, "steps")
    return leaves



def prepare(net):
    """The network as its leaves read it (:func:`_layers`)."""
    return _layers(net)


def leaves(layers, steps, step_trees, region, unsafe, n_in):
    """``(the leaves, their number)`` of a vnnlib-unsat certificate of a ReLU net: the leaves'
    operations are bounded first (:func:`_leaf_operations`, before any tree is walked), then
    the leaves ``(d, where, lo, hi, splits, facts)`` come one by one from the trees of
    ``step_trees`` (``(d, where, lo, hi, tree)`` per step, :func:`symrel.checking.vnnlib._step_trees`),
    each tree's structure checked on the way (:func:`_tree_leaves`)."""
    total = _leaf_operations(layers, steps, len(region), n_in, len(unsafe))
    widths = [len(layer["bi"]) for layer in layers if layer["relu"]]
    cost = ([layer["sizes"] for layer in layers], sum(len(layer["bi"]) * layer["sizes"][2] for layer in layers),
            len(unsafe), len(layers[0]["bi"]) * layers[0]["sizes"][2])
    cost += (leaf_operations_limit(cost[1], n_in, cost[2], cost[3]),)
    return _leaves(step_trees, widths, cost), total


def _leaves(step_trees, widths, cost):
    """Every leaf of the certificate, step by step (:func:`_tree_leaves`), each step's box
    and empty tree checked when its turn comes."""
    budget = [MAX_TREE_ENTRIES, cost[4]]
    for d, where, lo, hi, tree in step_trees:
        yield from _tree_leaves(tree, lo, hi, d, where, budget, widths, cost)
