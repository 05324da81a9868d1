"""Certified bounds of a ReLU net on a box: symbolic intervals in integer arithmetic.

Definition. On a box ``B`` every neuron ``z`` of the net gets two affine forms of the
input, ``L_z(x) <= z(x) <= U_z(x)`` for all ``x`` in ``B`` (the symbolic intervals of
Neurify/DeepPoly, propagated forward). An affine layer maps them with the positive and
negative parts of its weights; a ReLU ``h = max(0, z)`` is

* *active* when ``min_B L_z >= 0`` (then ``h = z``), else *inactive* when
  ``max_B U_z <= 0`` (then ``h = 0``), tested in this order;
* (from the second ReLU layer on, where the forward forms leave a sign open, the bounds are
  tightened by substituting the layers below backwards, :func:`layer_bounds`);
* otherwise *unstable*, relaxed by two lines: ``h >= alpha * L_z`` with ``0 <= alpha <= 1``
  and ``h <= s * U_z + t`` where the line ``s w + t`` lies above ``max(0, w)`` at both ends
  ``w = min_B U_z`` and ``w = max_B U_z`` (hence, ReLU being convex, on the whole range).

``alpha``, ``s`` and ``t`` are dyadic rationals (``alpha``, ``s`` with :data:`SLOPE_BITS`
fractional bits, ``t`` with ``SLOPE_BITS + BOUND_BITS``), so a net with dyadic weights
(float32 weights are) keeps every form dyadic. Each layer's forms are kept as Python
integers over one common positive denominator: the arithmetic is exact and only integer
products and sums. Floats take no part; the numbers chosen here (rounded bounds, slopes) are
*proposals* whose validity :mod:`symrel.checking.vnnlib` re-checks exactly.

Cost: per affine layer ``2 * (n + 1) * m * k`` integer products (``n`` inputs, ``k -> m``
widths); per ReLU four box minimisations of ``n + 1`` terms at most.
The backward bounds of a layer substitute each of its open neurons through every layer
below; with numpy they run in int64 limbs (:mod:`symrel.vnnlib.limbs`, the same integers,
lower and upper bounds in one pass), else in Python integers (python-flint for the products
where installed).

>>> from symrel.models import DenseLayer, ReLUNet
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
>>> r = propagate(integer_net(net), box_scale([-1], [2]))
>>> [str(v) for v in r.output_bounds()[0]]  # |x| on [-1, 2] within [-1/3, 2], slopes rounded
['-1', '131073/65536']
>>> [(k, i) for k, i, *_ in r.relaxed]               # both ReLUs change sign on the box
[(0, 0), (0, 1)]
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd, lcm
from operator import mul

from ..errors import InputError
from ..exact import Q, ceil, floor, rational

#: fractional bits of the relaxation slopes alpha and s
SLOPE_BITS = 16
#: fractional bits of the rounded bound behind each intercept t
BOUND_BITS = 24
#: fractional bits of the forms after each ReLU layer (rounded outward, :func:`round_forms`)
FORM_BITS = 40


def _dot(a, b) -> int:
    return sum(map(mul, a, b))


@dataclass(frozen=True)
class IntLayer:
    """``W x + b`` over the common denominator ``D`` (``W = (Wp + Wn) / D``, ``Wp >= 0 >= Wn``)."""

    Wp: tuple
    Wn: tuple
    b: tuple
    D: int
    relu: bool
    WT: tuple = ()  # W * D transposed (for the backward substitution)


@dataclass(frozen=True)
class IntNet:
    """A ReLU net with integer weights per layer (see :func:`integer_net`)."""

    n_inputs: int
    n_outputs: int
    layers: tuple


def integer_net(net) -> IntNet:
    """A :class:`~symrel.models.ReLUNet` in integer form (layer by layer, the lcm of the
    denominators of ``W`` and ``b`` as ``D``). Refuses other models by name, and, before any
    layer is brought to its ``D``, a net whose ``D`` or whose leaves' numbers would pass the
    trusted checker's bounds (:func:`symrel.checking.vnnlib.leaf_bits`; the limits ``denominator
    bits`` and ``product bits`` of :mod:`symrel.exact.sizes`, a :class:`~symrel.errors.LimitError`)."""
    from ..checking.vnnlib import leaf_bits
    from ..exact.sizes import check_product_bits, lcm_bits
    from ..models import ReLUNet

    if not isinstance(net, ReLUNet):
        raise InputError(f"expected a ReLU net (kind relu), got {type(net).__name__}", path="network")
    exact, bounds = [], []
    for k, layer in enumerate(net.layers):
        W = layer.affine.exact_W.to_list()
        b = [r[0] for r in layer.affine.exact_b.to_list()]
        # numerators and denominators as ints once (an MNIST layer has 200,000 weights)
        nums = [[int(v.numerator) for v in r] for r in W] + [[int(v.numerator) for v in b]]
        dens = [[int(v.denominator) for v in r] for r in W] + [[int(v.denominator) for v in b]]
        distinct = {q for r in dens for q in r}
        lcm_bits(distinct, where=f"layers[{k}]", what=f"the common denominator of the weights of layer {k}")
        D = 1
        for q in distinct:  # within the limit now
            D = lcm(D, q)
        exact.append((nums, dens, D))
        bounds.append((D.bit_length(), max((abs(v).bit_length() for r in nums for v in r), default=0)
                       + D.bit_length(), layer.affine.input_dim))
    check_product_bits(leaf_bits(bounds, 0), where="network", what="the numbers of a leaf's bounds")
    layers = []
    for layer, (nums, dens, D) in zip(net.layers, exact):
        factor = {q: D // q for q in {q for r in dens for q in r}}
        rows = [[v * factor[q] for v, q in zip(rn, rd)] for rn, rd in zip(nums, dens)]
        Wi, bi = rows[:-1], tuple(rows[-1])
        layers.append(IntLayer(tuple(tuple(max(v, 0) for v in r) for r in Wi),
                               tuple(tuple(min(v, 0) for v in r) for r in Wi), bi, D,
                               layer.activation == "relu", tuple(zip(*Wi))))
    if layers[-1].relu:
        # a final ReLU is one more layer; the outputs are then its (exact) forms
        m = len(layers[-1].b)
        layers.append(IntLayer(tuple(tuple(int(i == j) for j in range(m)) for i in range(m)),
                               tuple(tuple(0 for _ in range(m)) for _ in range(m)), (0,) * m, 1, False,
                               tuple(tuple(int(i == j) for j in range(m)) for i in range(m))))
    return IntNet(net.input_dim, net.output_dim, tuple(layers))


@dataclass(frozen=True)
class ScaledBox:
    """A box as integers over a common denominator: ``lo[i] = plo[i] / Q``, ``hi[i] = phi[i] / Q``."""

    plo: tuple
    phi: tuple
    Q: int


def box_scale(lo, hi) -> ScaledBox:
    """The box ``[lo, hi]`` (exact rationals, or ints/strings read exactly) in integer form."""
    lo = [rational(v) for v in lo]
    hi = [rational(v) for v in hi]
    d = 1
    for v in lo + hi:
        d = lcm(d, int(v.denominator))
    return ScaledBox(tuple(int(v.numerator) * (d // int(v.denominator)) for v in lo),
                     tuple(int(v.numerator) * (d // int(v.denominator)) for v in hi), d)


@dataclass
class Bounds:
    """The result of :func:`propagate`: output forms ``L``, ``U`` as columns (``L[k][j]``
    is the coefficient of ``x_k`` in ``L_{Y_j}``, ``k = n`` the constant) over ``den``;
    ``relaxed``: ``(layer, neuron, alpha, s, t)`` for every unstable ReLU (exact
    rationals); ``unstable``: how many."""

    L: list
    U: list
    den: int
    box: ScaledBox
    relaxed: list
    net: IntNet = None
    states: list = None
    tightened: list = None  # (relu layer, neuron, lower slopes, upper slopes) per "tighten" entry

    def backward(self, y_coeffs, x_coeffs, betas=(), alphas=None, used=None):
        """:func:`backward_form` on this box (exact rationals, constant last)."""
        return backward_form(self.net, self.states, y_coeffs, x_coeffs, betas, alphas, used)

    def lower_form(self, y_coeffs, x_coeffs):
        """``sum_j c_j Y_j + sum_k d_k x_k >= form(x)`` on the box: the coefficients (exact
        rationals, constant last) of the lower form of a linear function of outputs and inputs."""
        n = len(self.box.plo)
        out = []
        for k in range(n + 1):
            acc = Q(0)
            for j, c in enumerate(y_coeffs):
                if c:
                    acc += c * Q(self.L[k][j] if c > 0 else self.U[k][j], self.den)
            if k < n and x_coeffs[k]:
                acc += x_coeffs[k]
            out.append(acc)
        return out

    def form_min(self, form):
        """The exact minimum of an affine form (constant last) over the box."""
        b = self.box
        total = form[-1]
        for k, a in enumerate(form[:-1]):
            if a:
                total += a * Q(b.plo[k] if a > 0 else b.phi[k], b.Q)
        return total

    def output_bounds(self):
        """``(min L_Yj, max U_Yj)`` for every output j (exact)."""
        out = []
        for j in range(len(self.L[0])):
            e = [Q(int(j == i)) for i in range(len(self.L[0]))]
            lo = self.form_min(self.lower_form(e, [0] * len(self.box.plo)))
            hi = -self.form_min(self.lower_form([-v for v in e], [0] * len(self.box.plo)))
            out.append((lo, hi))
        return out


try:  # optional: integer matrix products in C (the "fast" extra)
    import flint as _flint
except ImportError:  # pragma: no cover - exercised where python-flint is absent
    _flint = None

_MATS: dict = {}  # id(layer) -> (layer, Wp, Wn, W) as flint matrices; the last few nets only


def _mats(layer: IntLayer):
    got = _MATS.get(id(layer))
    if got is None or got[0] is not layer:
        if len(_MATS) > 64:
            _MATS.clear()
        W = [[p + q for p, q in zip(rp, rn)] for rp, rn in zip(layer.Wp, layer.Wn)]
        got = (layer, _flint.fmpz_mat([list(r) for r in layer.Wp]), _flint.fmpz_mat([list(r) for r in layer.Wn]),
               _flint.fmpz_mat(W))
        _MATS[id(layer)] = got
    return got


try:  # optional (the "numeric" extra): the backward bounds in int64 limbs, exact
    import numpy as _np

    from . import limbs as _limbs
except ImportError:  # pragma: no cover - exercised where numpy is absent
    _np = None

_LIMB_W: dict = {}  # id(layer) -> (layer, [W | b] as a limb matrix)
_LIMB_PN: dict = {}  # id(layer) -> (layer, [Wp | Wn] as a limb matrix)


def _products(layer: IntLayer, L, U):
    """``(Wp L + Wn U, Wp U + Wn L)`` for forms as rows (neuron-major lists), as rows."""
    if _np is not None:  # one limb product: [Wp | Wn] [[L, U], [U, L]]
        got = _LIMB_PN.get(id(layer))
        if got is None or got[0] is not layer:
            if len(_LIMB_PN) > 64:
                _LIMB_PN.clear()
            got = (layer, _limbs.from_ints([list(rp) + list(rn) for rp, rn in zip(layer.Wp, layer.Wn)]))
            _LIMB_PN[id(layer)] = got
        w = len(L[0])
        # the neurons below whose forms are not 0 (an inactive one's are): the others add nothing
        live = [i for i, (a, b) in enumerate(zip(L, U)) if any(a) or any(b)]
        if not live:
            z = [[0] * w for _ in layer.b]
            return z, [list(r) for r in z]
        M = got[1] if len(live) == len(L) else got[1][:, :, live + [len(L) + i for i in live]]
        try:
            z = _limbs.to_ints(_limbs.matmul(M, _limbs.from_ints(
                [L[i] + U[i] for i in live] + [U[i] + L[i] for i in live])))
        except _limbs.TooWide:
            pass
        else:
            return [r[:w] for r in z], [r[w:] for r in z]
    if _flint is not None:
        _, Wp, Wn, _ = _mats(layer)
        Lm = _flint.fmpz_mat(L)
        if L is U:
            z = ((Wp + Wn) * Lm).tolist()
            return z, z
        Um = _flint.fmpz_mat(U)
        return (Wp * Lm + Wn * Um).tolist(), (Wp * Um + Wn * Lm).tolist()
    cols_L = list(zip(*L))
    cols_U = cols_L if L is U else list(zip(*U))
    zL = [[_dot(rp, cl) + _dot(rn, cu) for cl, cu in zip(cols_L, cols_U)] for rp, rn in zip(layer.Wp, layer.Wn)]
    if L is U:
        return zL, zL
    zU = [[_dot(rp, cu) + _dot(rn, cl) for cl, cu in zip(cols_L, cols_U)] for rp, rn in zip(layer.Wp, layer.Wn)]
    return zL, zU


def _row_min(f, box: ScaledBox) -> int:
    """``Q * min_B form`` (times the form's denominator) for a form as a row (constant last)."""
    n = len(box.plo)
    total = f[n] * box.Q
    for k in range(n):
        a = f[k]
        if a:
            total += a * (box.plo[k] if a > 0 else box.phi[k])
    return total


def _row_max(f, box: ScaledBox) -> int:
    n = len(box.plo)
    total = f[n] * box.Q
    for k in range(n):
        a = f[k]
        if a:
            total += a * (box.phi[k] if a > 0 else box.plo[k])
    return total


def _round_row(f, box: ScaledBox, den: int, upper: bool) -> list:
    """The form ``f`` (a row over ``den``, constant last) rounded outward to ``FORM_BITS``
    fractional bits: a lower form ``sum a_k x_k + c`` becomes ``sum a'_k x_k + c'`` with the
    coefficients rounded down and ``c' = floor(c + sum_k (a_k - a'_k) lo_k)`` (same grid),
    which is below the form on the box since ``a_k - a'_k >= 0`` and ``x_k >= lo_k``; an upper
    form rounds coefficients and constant up (then ``a_k - a'_k <= 0``). Exact forms are
    below (above) these at every point, so a check that computes exactly accepts whatever
    these bounds justify."""
    F = 1 << FORM_BITS
    n = len(box.plo)
    out = [0] * (n + 1)
    S = f[n] * F * box.Q
    sh = den.bit_length() - 1 - FORM_BITS
    if den & (den - 1) == 0 and sh > 0:  # den = 2^(FORM_BITS + sh): shifts, the same integers
        S = S >> FORM_BITS  # = f[n] Q (exactly: F divides it), the terms below also come over F
        for k in range(n):
            a = f[k]
            r = a >> sh if not upper else -((-a) >> sh)
            out[k] = r
            S += (a - (r << sh)) * box.plo[k]
        dq = box.Q << sh
        out[n] = S // dq if not upper else -((-S) // dq)
        return out
    for k in range(n):
        a = f[k]
        r = (a * F) // den if not upper else -((-a * F) // den)
        out[k] = r
        S += (a * F - r * den) * box.plo[k]
    dq = den * box.Q
    out[n] = S // dq if not upper else -((-S) // dq)
    return out


def round_rows(rows, M: int, upper: bool) -> list:
    """The rows ``v / M`` rounded to ``FORM_BITS`` fractional bits (numerators over
    ``2^FORM_BITS``): down, or up when ``upper``. A power-of-two ``M`` (float32 weights give
    one) takes a shift instead of a division, the same integers about 30 times faster."""
    F = 1 << FORM_BITS
    if M & (M - 1) == 0:
        sh = M.bit_length() - 1 - FORM_BITS
        if sh <= 0:
            return [[v << -sh for v in r] for r in rows]
        if upper:
            return [[-((-v) >> sh) for v in r] for r in rows]
        return [[v >> sh for v in r] for r in rows]
    if upper:
        return [[-((-v * F) // M) for v in r] for r in rows]
    return [[(v * F) // M for v in r] for r in rows]


_MATS_B: dict = {}  # id(layer) -> (layer, [W | b] as a flint matrix)


def _matmul_Wb(rows, layer: IntLayer):
    """``(rows W, rows b)`` (W = Wp + Wn of ``layer``) as a list of rows and a list, in one product."""
    if _flint is not None:
        got = _MATS_B.get(id(layer))
        if got is None or got[0] is not layer:
            if len(_MATS_B) > 64:
                _MATS_B.clear()
            Wb = [[p + q for p, q in zip(rp, rn)] + [c] for rp, rn, c in zip(layer.Wp, layer.Wn, layer.b)]
            got = (layer, _flint.fmpz_mat(Wb))
            _MATS_B[id(layer)] = got
        res = (_flint.fmpz_mat(rows) * got[1]).tolist()
        return [r[:-1] for r in res], [r[-1] for r in res]
    return [[_dot(r, col) for col in layer.WT] for r in rows], [_dot(r, layer.b) for r in rows]


def _matmul_W(rows, layer: IntLayer):
    """``rows W`` (W = Wp + Wn of ``layer``), as rows of ints."""
    if _flint is not None:
        return (_flint.fmpz_mat(rows) * _mats(layer)[3]).tolist()  # fmpz entries: they mix with ints
    return [[_dot(r, col) for col in layer.WT] for r in rows]


def layer_bounds(net: IntNet, states, li: int, box: ScaledBox, upper: bool, only=None, slopes=None, betas=None):
    """Backward (DeepPoly/CROWN-style) bounds of the pre-activations of layer ``li``: for each
    neuron, an exact rational ``<= min_B z`` (``upper``: ``>= max_B z``), substituting the
    layers below by their states as :func:`backward_form` does. Coefficients over a ReLU's
    output (``h >= 0``) are rounded to ``FORM_BITS`` fractional bits, down for a lower bound and
    up for an upper one, which keeps the bound valid. ``only``: the neurons wanted (all when
    None), in that order; ``slopes``: per neuron wanted, ``{(relu layer, neuron): numerator}``,
    lower slopes over ``2^SLOPE_BITS`` that replace the relaxations' alphas in its row;
    ``betas``: per neuron wanted, ``[(relu layer, neuron, phase, beta)]``, split multipliers
    added to the split neuron's coefficient once its layer's phases mapped it (a lower bound:
    ``-beta`` on phase 1, ``+beta`` on phase 0; an upper one the other way)."""
    P = 1 << SLOPE_BITS
    K2 = 1 << BOUND_BITS
    F = 1 << FORM_BITS
    layer = net.layers[li]
    pick = range(len(layer.b)) if only is None else only
    rows = [[p + q for p, q in zip(layer.Wp[i], layer.Wn[i])] for i in pick]
    M = layer.D
    cn, cd = [layer.b[i] for i in pick], layer.D  # the constants: integers cn over one denominator cd

    def add(vals, den):
        nonlocal cn, cd
        common = lcm(cd, den)
        if common != cd:
            f = common // cd
            cn = [c * f for c in cn]
            cd = common
        g = common // den
        cn = [c + v * g for c, v in zip(cn, vals)]

    k = len(states)
    for j in range(li - 1, -1, -1):
        below = net.layers[j]
        if below.relu:
            k -= 1
            st = states[k]
            rows = round_rows(rows, M, upper)  # over h >= 0
            M = F
            act = [c for c, sc in enumerate(st) if sc == 1]
            unst = [(c, sc) for c, sc in enumerate(st) if sc != 1 and sc != 0]
            width = len(st)
            tsums, new = [], []
            for ri, r in enumerate(rows):
                nr = [0] * width
                for c in act:
                    nr[c] = r[c] * P
                tsum = 0
                row_own = slopes[ri] if slopes is not None else {}
                for c, sc in unst:
                    v = r[c]
                    if not v:
                        continue
                    if (v > 0) != upper:  # the lower line alpha z
                        nr[c] = v * row_own.get((k, c), sc[0])
                    else:  # the upper line s z + t
                        nr[c] = v * sc[1]
                        tsum += v * sc[2]
                for kk, c, ph, b in (betas[ri] if betas is not None else ()):  # over F * P, as nr
                    if kk == k:
                        nr[c] += (1 if (ph == 1) == upper else -1) * int(b * F * P)
                new.append(nr)
                tsums.append(tsum)
            rows = new
            if any(tsums):
                add(tsums, M * P * K2)
            M = M * P
        rows, dots = _matmul_Wb(rows, below)
        add(dots, M * below.D)
        M = M * below.D
    out = []
    for r, c in zip(rows, cn):
        f = r + [0]
        num = _row_max(f, box) if upper else _row_min(f, box)
        out.append(Q(num * cd + c * M * box.Q, M * box.Q * cd))
    return out


def _limb_Wb(layer: IntLayer):
    got = _LIMB_W.get(id(layer))
    if got is None or got[0] is not layer:
        if len(_LIMB_W) > 64:
            _LIMB_W.clear()
        Wb = [[p + q for p, q in zip(rp, rn)] + [c] for rp, rn, c in zip(layer.Wp, layer.Wn, layer.b)]
        got = (layer, _limbs.from_ints(Wb))
        _LIMB_W[id(layer)] = got
    return got[1]


def _limb_state(st):
    """A ReLU layer's states as column arrays: the factor of a coefficient > 0 and of one < 0
    (over ``2^SLOPE_BITS``, the lower rule of :func:`layer_bounds`), the unstable mask and
    the intercepts ``t`` as a one-column limb matrix (None when no neuron is unstable)."""
    P = 1 << SLOPE_BITS
    pos = _np.array([P if sc == 1 else 0 if sc == 0 else sc[0] for sc in st], dtype=_np.int64)
    neg = _np.array([P if sc == 1 else 0 if sc == 0 else sc[1] for sc in st], dtype=_np.int64)
    unst = _np.array([sc != 1 and sc != 0 for sc in st], dtype=bool)
    ts = _limbs.from_ints([[0 if sc == 1 or sc == 0 else sc[2]] for sc in st]) if unst.any() else None
    return pos, neg, unst, ts


def _layer_bounds_limbs(net: IntNet, states, li: int, box: ScaledBox, lows, ups, prepared=None, grid=None,
                        slopes=None, betas=None):
    """:func:`layer_bounds` of the neurons ``lows`` (lower) and ``ups`` (upper) in one pass
    over int64 limbs (:mod:`symrel.vnnlib.limbs`): the upper bound of ``z`` is minus the
    lower bound of ``-z`` (rounding ``-z``'s rows down is rounding ``z``'s up, and the lower
    rule on ``-z`` picks the upper rule's lines), so the rows of ``z`` and ``-z`` go down
    together. The same integers as :func:`layer_bounds`; None when a denominator is not a
    power of two or an int64 bound cannot be guaranteed (the caller then uses
    :func:`layer_bounds`). ``slopes``: :func:`layer_bounds_pair`'s."""
    if any(layer.D & (layer.D - 1) for layer in net.layers[:li + 1]):
        return None
    own = None if slopes is None else list(slopes[0]) + list(slopes[1])  # per row, as the rows go
    # per row its splits' multipliers: -beta (side z >= 0) or +beta, the same for the rows of -z
    mult = None if betas is None else list(betas[0]) + list(betas[1])
    F = 1 << FORM_BITS
    P = 1 << SLOPE_BITS
    layer = net.layers[li]
    m = len(lows)
    Wb = _limb_Wb(layer)
    # -rows: limbs in (-2^B, 2^B], normalized here
    X = _limbs.normalize(_np.concatenate([Wb[:, lows, :-1], -Wb[:, ups, :-1]], axis=1), fresh=True)
    M = layer.D
    # the constants: a limb column over 2^ce (every denominator here is a power of two)
    cn, ce = (_limbs.normalize(_np.concatenate([Wb[:, lows, -1:], -Wb[:, ups, -1:]], axis=1), fresh=True),
              layer.D.bit_length() - 1)

    def add(vals, de):  # vals: a limb column over 2^de
        nonlocal cn, ce
        if de > ce:
            cn, ce = _limbs.floor_shift(cn, ce - de), de  # an exact left shift
        elif de < ce:
            vals = _limbs.floor_shift(vals, de - ce)
        cn = _limbs.add(cn, vals)

    try:
        k = len(states)
        for j in range(li - 1, -1, -1):
            below = net.layers[j]
            if below.relu:
                k -= 1
                pos, negf, unst, ts = prepared[k] if prepared is not None else _limb_state(states[k])
                X = _limbs.floor_shift(X, M.bit_length() - 1 - FORM_BITS)  # over h >= 0, over 2^FORM_BITS
                neg = _limbs.negative(X)
                if ts is not None:
                    sel = neg & unst[None, :]
                    if sel.any():  # h <= s z + t under a coefficient < 0: the intercepts
                        add(_limbs.matmul(X * sel, ts), FORM_BITS + SLOPE_BITS + BOUND_BITS)
                if own is not None and unst.any():  # each row's own lower slopes
                    posR = _np.tile(pos, (X.shape[1], 1))
                    for r, row in enumerate(own):
                        for (kk, c), a in row.items():
                            if kk == k:
                                posR[r, c] = a
                    X = _limbs.scale(X, _np.where(neg, negf[None, :], posR))
                else:
                    X = _limbs.scale(X, _np.where(neg, negf[None, :], pos[None, :]))
                if mult is not None and any(kk == k for row in mult for kk, *_ in row):  # over F * P now
                    add_rows = [[0] * X.shape[2] for _ in range(X.shape[1])]
                    for r, row in enumerate(mult):
                        for kk, c, ph, b in row:
                            if kk == k:
                                add_rows[r][c] += (-1 if ph == 1 else 1) * int(b * F * P)
                    X = _limbs.add(X, _limbs.from_ints(add_rows)) if X.shape[0] >= 1 else X
                M = F * P
            Wb = _limb_Wb(below)
            nz = (X != 0).any(axis=(0, 1))  # the columns not 0 (an inactive neuron's are) alone: the others add 0
            if not nz.all():
                keep = _np.nonzero(nz)[0]
                X, Wb = X[:, :, keep], Wb[:, keep, :]
            C = _limbs.matmul(X, Wb)
            add(C[:, :, -1:], (M * below.D).bit_length() - 1)
            X = C[:, :, :-1]
            M = M * below.D
        cn, cd = [r[0] for r in _limbs.to_ints(cn)], 1 << ce
        if X.shape[2] >= LIMB_FORWARD_INPUTS:  # the minimum of each row over the box, as limb products
            from . import limb_forms

            mins = limb_forms.extremes(X, [0] * X.shape[1], limb_forms.limb_box(box), True)
        else:
            mins = [_row_min(r + [0], box) for r in _limbs.to_ints(X)]
    except _limbs.TooWide:
        return None
    out = []
    den = M * box.Q * cd
    for v, c in zip(mins, cn):
        num = v * cd + c * M * box.Q
        out.append(Q(num, den) if grid is None else (num * grid) // den)
    return out[:m], [-v for v in out[m:]]


def layer_bounds_pair(net: IntNet, states, li: int, box: ScaledBox, only=None, prepared=None, grid=None, ups=None,
                      slopes=None, betas=None):
    """``(lower, upper)``: :func:`layer_bounds` both ways, the same exact rationals, in int64
    limbs where numpy is installed (``prepared``: :func:`_limb_state` of each state), the
    lower bounds of the neurons ``only`` (all when None) and the upper bounds of ``ups``
    (``only`` when None). ``grid``: a positive integer ``g``; the bounds are then returned as
    the integers ``floor(g * lower)`` and ``ceil(g * upper)`` (rounded outward to the grid ``1/g``). ``slopes``: ``(lower, upper)``, per
    neuron of ``only`` and of ``ups`` a dict ``{(relu layer, neuron): numerator}`` of lower slopes
    (over ``2^SLOPE_BITS``) of unstable neurons that replace the relaxations' alphas in that
    row's substitution, and ``betas``: ``(lower, upper)``, per neuron a list ``[(relu layer,
    neuron, phase, beta)]`` of split multipliers (a rational ``beta >= 0``, ``beta 2^56`` an
    integer) added to the split neuron's coefficient in that row (docs/format.md, "tighten")"""
    lows = list(range(len(net.layers[li].b)) if only is None else only)
    ups = lows if ups is None else list(ups)
    if _np is not None:
        got = _layer_bounds_limbs(net, states, li, box, lows, ups, prepared, grid, slopes, betas)
        if got is not None:
            return got
    lower = layer_bounds(net, states, li, box, False, lows, None if slopes is None else slopes[0],
                         None if betas is None else betas[0]) if lows else []
    upper = layer_bounds(net, states, li, box, True, ups, None if slopes is None else slopes[1],
                         None if betas is None else betas[1]) if ups else []
    if grid is None:
        return lower, upper
    return [floor(v * grid) for v in lower], [ceil(v * grid) for v in upper]


def _tighten(net: IntNet, states, li: int, box: ScaledBox, fl, fu, fixed, hints, prepared, qd) -> None:
    """The forward bounds ``fl``, ``fu`` of ReLU layer ``len(states)`` (layer ``li`` of the net;
    integers over ``qd``) tightened in place by the backward bounds (:func:`layer_bounds_pair`)
    of the neurons whose sign they leave open (:func:`propagate`'s ``hints``: the side the floats
    expect to settle the phase first, the other only where it did not)."""
    open_ = [i for i, (a, b) in enumerate(zip(fl, fu)) if a < 0 < b and (len(states), i) not in fixed]
    lows = ups = open_
    if hints is not None and open_:  # the side that settles the phase the floats expect, alone
        hl, hu = hints[len(states)]
        lows = [i for i in open_ if not hu[i] < 0]
        ups = [i for i in open_ if not hl[i] > 0]
    low_only, up_only = set(lows) - set(ups), set(ups) - set(lows)
    for _ in range(2):  # the second round: the other side, where the floats were wrong
        if lows or ups:
            bl, bu = layer_bounds_pair(net, states, li, box, lows, prepared, grid=qd, ups=ups)
            for i, a in zip(lows, bl):  # the tighter, rounded outward to the grid 1/qd
                fl[i] = max(fl[i], a)
            for i, b in zip(ups, bu):
                fu[i] = min(fu[i], b)
        # active needs fl >= 0 and inactive fu <= 0, but at fu = 0 an fl of 0 would
        # make the neuron active (the rule tests that first): fl is then needed too
        lows = [i for i in open_ if i in up_only and fu[i] >= 0]
        ups = [i for i in open_ if i in low_only and fl[i] < 0]


def _apply_tightening(net: IntNet, states, li: int, box: ScaledBox, fl, fu, fixed, slopes, qd, prepared,
                      record) -> None:
    """The bounds ``fl``, ``fu`` (integers over ``qd``) of ReLU layer ``k = len(states)`` tightened
    where ``slopes`` (:attr:`FloatBounds.tighten <symrel.vnnlib.floatbounds.FloatBounds.tighten>`:
    per layer some neurons and each one's float slopes of the neurons below) has a neuron they
    leave unstable: its backward bounds (:func:`layer_bounds_pair`) with those slopes, rounded
    down to ``2^-SLOPE_BITS`` (the rule's where the floats give none), in place of the
    relaxations' alphas (docs/format.md, "tighten"); each such entry ``(k, neuron, lower, upper)``
    (the slopes' numerators, one per unstable neuron below, in order) is appended to ``record``."""
    k = len(states)
    if k not in slopes:
        return
    P = 1 << SLOPE_BITS
    idx, rows = slopes[k][:2]
    mult = slopes[k][2] if len(slopes[k]) > 2 else None  # (the splits below, a row of multipliers per bound)
    unstable = [(kk, c, sc[0]) for kk, st in enumerate(states) for c, sc in enumerate(st) if isinstance(sc, tuple)]
    m = len(idx)
    ids, sides, mults = [], [], []
    for j, i in enumerate(idx):
        i = int(i)
        if fl[i] < 0 < fu[i] and (k, i) not in fixed:
            both, bb = [], []
            for r in (j, m + j):
                side = []
                for kk, c, a in unstable:
                    v = rows[kk][r, c]
                    side.append(a if v != v else min(P, max(0, int(v * P))))  # NaN: the rule's slope
                both.append(side)
                bb.append(None if mult is None else [_dyadic_beta(v) for v in mult[1][r]])
            ids.append(i)
            sides.append(both)
            mults.append(bb)
    if not ids:
        return
    keys = [(kk, c) for kk, c, _ in unstable]
    lower = [dict(zip(keys, both[0])) for both in sides]
    upper = [dict(zip(keys, both[1])) for both in sides]
    betas = None
    if mult is not None:
        sp = mult[0]
        betas = tuple([[(kk, c, ph, b) for (kk, c, ph), b in zip(sp, bb[s]) if b] for bb in mults] for s in (0, 1))
    bl, bu = layer_bounds_pair(net, states, li, box, ids, prepared, grid=qd, ups=ids, slopes=(lower, upper),
                               betas=betas)
    for i, a, b, both, bb in zip(ids, bl, bu, sides, mults):
        fl[i] = max(fl[i], a)
        fu[i] = min(fu[i], b)
        record.append((k, i, both[0], both[1], bb[0], bb[1]))


def _dyadic_beta(v: float):
    """A float multiplier rounded down to ``2^-32`` (as the engine rounds a close's betas), 0 when
    it is not positive."""
    return Q(max(0, int(v * 4294967296.0)), 4294967296) if v == v and v > 0 else Q(0)


def propagate(net: IntNet, box: ScaledBox, deep: bool = True, fixed=None, hints=None, tighten=None) -> Bounds:
    """Symbolic intervals of every neuron of ``net`` on ``box`` (module docstring).
    ``fixed``: ``{(relu layer, neuron): 1 or 0}``, phases set by ReLU splits (the bounds are
    then those of the part of the box where the set phases hold): a neuron set to ``z <= 0``
    is inactive (``h = 0``), one set to ``z >= 0`` active (``h = z``), whatever its bounds on
    the box (docs/format.md: a split clips the neuron's range to its side, which makes that
    phase valid). Active rather than relaxed by ``h <= z``, ``h >= alpha z`` with ``alpha``
    fixed by the forward bounds, as the float bounds (:mod:`symrel.vnnlib.floatbounds`) take
    it too: the relaxation's ``alpha`` would come from bounds the floats do not compute, and
    the engine's float gaps then promised closes the exact bounds refused.

    ``hints``: per ReLU layer the float bounds ``(l, u)`` of its pre-activations on the same
    box and phases (:class:`~symrel.vnnlib.floatbounds.FloatRun`'s ``pre``), or None. A
    neuron the floats call active (``l > 0``) then gets its backward lower bound alone, one
    they call inactive its upper bound alone, and the other side only where that one did not
    settle the phase: the same result, with fewer rows substituted (about half of the open
    neurons of a leaf turn out stable).

    ``tighten``: per ReLU layer some neurons and each one's float slopes of the neurons below
    (:attr:`FloatBounds.tighten <symrel.vnnlib.floatbounds.FloatBounds.tighten>`, from
    :mod:`symrel.vnnlib.intermediate`): where the backward bounds leave such a neuron unstable,
    its backward bounds are computed again with those slopes (rounded), the tighter taken, and
    the entry recorded in the result's ``tightened`` (docs/format.md, "tighten")."""
    fixed = fixed or {}
    n = net.n_inputs
    if len(box.plo) != n:
        raise InputError(f"expected a box of {n} inputs, got {len(box.plo)}", path="box")
    if _np is not None and n >= LIMB_FORWARD_INPUTS:
        got = _propagate_limbs(net, box, deep, fixed, hints, tighten)
        if got is not None:
            return got
    tightened = []
    # the inputs: L = U = x_k, denominator 1; forms are rows [a_0, ..., a_{n-1}, c]
    L = [[int(i == k) for i in range(n + 1)] for k in range(n)]
    U = L
    H = 1
    relaxed, states = [], []
    prepared = [] if _np is not None and deep else None  # the states as limb columns, for the backward bounds
    P = 1 << SLOPE_BITS
    K2 = 1 << BOUND_BITS
    for li, layer in enumerate(net.layers):
        zL, zU = _products(layer, L, U)
        den = layer.D * H
        shared = zL is zU
        for i, c in enumerate(layer.b):
            zL[i][n] += c * H
            if not shared:
                zU[i][n] += c * H
        if not layer.relu:
            L, U, H = zL, zU, den
            continue
        f = K2 // gcd(den, K2)  # so that the new denominator is a multiple of 2^BOUND_BITS
        newden = den * P * f
        tscale = newden // (P * K2)
        qd = box.Q * den
        zero = [0] * (n + 1)
        hL, hU, state = [], [], []  # state: 1 active, 0 inactive, (alpha, s, t) unstable
        if deep and states:  # backward bounds of this layer, where the forward ones leave a sign open
            fl = [_row_min(r, box) for r in zL]  # the bounds as integers over qd
            fu = [_row_max(r, box) for r in zU]
            _tighten(net, states, li, box, fl, fu, fixed, hints, prepared, qd)
            if tighten:
                _apply_tightening(net, states, li, box, fl, fu, fixed, tighten, qd, prepared, tightened)
        else:
            fl = fu = None
        for i in range(len(zL)):
            lrow, urow = zL[i], zU[i]
            forced = fixed.get((len(states), i))
            if forced == 0:  # a split's part z <= 0: h = 0 there
                state.append(0)
                hL.append(zero)
                hU.append(zero)
                continue
            if forced == 1:  # a split's part z >= 0: h = z there (the docstring)
                state.append(1)
                hL.append(_round_row(lrow, box, den, False))
                hU.append(_round_row(urow, box, den, True))
                continue
            if fl is not None:
                lz, uz = fl[i], fu[i]
            else:
                lz = _row_min(lrow, box)
            if lz >= 0:  # active
                state.append(1)
                # (the rounding of v * scale over newden = den * scale is that of v over den)
                hL.append(_round_row(lrow, box, den, False))
                hU.append(_round_row(urow, box, den, True))
                continue
            if fl is None:
                uz = _row_max(urow, box)
            if uz <= 0:  # inactive
                state.append(0)
                hL.append(zero)
                hU.append(zero)
                continue
            # the bounds rounded outward to BOUND_BITS fractional bits
            lk = (lz * K2) // qd
            uk = -((-uz * K2) // qd)
            a = P if uk >= -lk else 0
            s = -((-uk * P) // (uk - lk))
            t = -s * lk
            state.append((a, s, t))
            hL.append(_round_row(lrow, box, den, False) if a == P else zero)  # alpha = a / P is 1 or 0
            u = [v * s * f for v in urow]
            u[n] += t * tscale
            hU.append(_round_row(u, box, newden, True))
            relaxed.append((li, i, Q(a, P), Q(s, P), Q(t, P * K2)))
        states.append(state)
        if prepared is not None:
            prepared.append(_limb_state(state))
        L, U, H = hL, hU, 1 << FORM_BITS
    return Bounds([list(c) for c in zip(*L)], [list(c) for c in zip(*U)], H, box, relaxed, net, states, tightened)


#: inputs from which :func:`propagate` keeps the forms as int64 limbs (:func:`_propagate_limbs`):
#: below, rows of a few integers cost less in Python than the limbs' conversions
LIMB_FORWARD_INPUTS = 32
#: bytes of limb forms :func:`_propagate_limbs` keeps between calls (per process)
FORWARD_CACHE_BYTES = 96 << 20

_FORWARD: dict = {}  # (id(net), box, deep, splits up to a ReLU layer) -> the pass after that layer
_FORWARD_BYTES = [0]


def _remember(key, value, size):
    if size > FORWARD_CACHE_BYTES:
        return
    while _FORWARD and _FORWARD_BYTES[0] + size > FORWARD_CACHE_BYTES:
        old = next(iter(_FORWARD))
        _FORWARD_BYTES[0] -= _FORWARD.pop(old)[1]
    _FORWARD[key] = (value, size)
    _FORWARD_BYTES[0] += size


def _propagate_limbs(net: IntNet, box: ScaledBox, deep: bool, fixed, hints, tighten=None):
    """:func:`propagate` with the forms kept as int64 limbs (:mod:`symrel.vnnlib.limb_forms`):
    the same integers, the same :class:`Bounds`. None where it does not apply (a denominator
    not a power of two, one below ``2^BOUND_BITS``, a product too wide for int64 limbs): the
    caller then computes in Python integers.

    The pass after each ReLU layer is kept (up to :data:`FORWARD_CACHE_BYTES`), keyed by the
    net, the box and the splits up to that layer, on which alone it depends (``hints`` change
    the work, not the result): the leaves of a ReLU-split search share their box and most of
    their splits, so a leaf computes only the layers above its lowest split not seen before."""
    from . import limb_forms as lf

    if any(layer.D & (layer.D - 1) for layer in net.layers):
        return None
    n = net.n_inputs
    P = 1 << SLOPE_BITS
    K2 = 1 << BOUND_BITS
    boxkey = (box.plo, box.phi, box.Q)
    relu_at = [li for li, layer in enumerate(net.layers) if layer.relu]
    start, snap = 0, None
    for k in range(len(relu_at) - 1, -1, -1):  # the deepest pass kept
        tkey = tuple(id(tighten.get(kk)) for kk in range(k + 1)) if tighten else ()
        key = (id(net), boxkey, deep, tkey, k, tuple(sorted(item for item in fixed.items() if item[0][0] <= k)))
        got = _FORWARD.get(key)
        if got is not None and got[0][0] is net and all(a is b for a, b in zip(got[0][-1], tkey_objects(tighten, k))):
            snap, start = got[0], relu_at[k] + 1
            break
    try:
        lb = lf.limb_box(box)
        if snap is None:
            Xl = Xu = None  # the inputs: the identity forms
            cl = cu = None
            H = 1
            relaxed, states, tightened = [], [], []
            prepared = [] if deep else None
        else:
            _, Xl, cl, Xu, cu, H, relaxed, states, prepared, tightened, _ = snap
            relaxed, states, tightened = list(relaxed), list(states), list(tightened)
            prepared = list(prepared) if prepared is not None else None
        for li in range(start, len(net.layers)):
            layer = net.layers[li]
            m = len(layer.b)
            if Xl is None:  # W times the identity forms: W itself
                Wb = _limb_Wb(layer)
                zL = zU = _limbs.normalize(Wb[:, :, :-1])
                zcl = zcu = list(layer.b)
            else:
                # the neurons whose forms are not 0 (an inactive one's are): the others add nothing
                nz = (Xl != 0).any(axis=(0, 2)) | (Xu != 0).any(axis=(0, 2))
                live = [i for i in range(Xl.shape[1]) if nz[i] or cl[i] or cu[i]]
                if not live:
                    zL = zU = _np.zeros((1, m, n), dtype=_np.int64)
                    consts = [[0, 0]] * m
                else:
                    k_prev = Xl.shape[1]
                    M = _limb_pn(layer)[:, :, live + [k_prev + i for i in live]]
                    A, B = Xl[:, live], Xu[:, live]
                    Z = _limbs.matmul(M, lf.stack([lf.stack([A, B], 2), lf.stack([B, A], 2)], 1))
                    zL, zU = _limbs.normalize(Z[:, :, :n]), _limbs.normalize(Z[:, :, n:])
                    consts = _limbs.to_ints(_limbs.matmul(M, _limbs.from_ints(
                        [[cl[i], cu[i]] for i in live] + [[cu[i], cl[i]] for i in live])))
                zcl = [r[0] + c * H for r, c in zip(consts, layer.b)]
                zcu = [r[1] + c * H for r, c in zip(consts, layer.b)]
            den = layer.D * H
            if not layer.relu:
                Xl, cl, Xu, cu, H = zL, zcl, zU, zcu, den
                continue
            if K2 // gcd(den, K2) != 1:
                return None
            qd = box.Q * den
            fl = lf.extremes(zL, zcl, lb, True)
            fu = lf.extremes(zU, zcu, lb, False)
            if deep and states:
                _tighten(net, states, li, box, fl, fu, fixed, hints, prepared, qd)
                if tighten:
                    _apply_tightening(net, states, li, box, fl, fu, fixed, tighten, qd, prepared, tightened)
            keepL, keepU, state, unst = [], [], [], []
            for i in range(m):
                forced = fixed.get((len(states), i))
                if forced == 0 or (forced is None and fl[i] < 0 and fu[i] <= 0):
                    state.append(0)
                    keepL.append(False)
                    keepU.append(False)
                elif forced == 1 or fl[i] >= 0:
                    state.append(1)
                    keepL.append(True)
                    keepU.append(True)
                else:  # unstable: the bounds rounded outward to BOUND_BITS fractional bits
                    lk = (fl[i] * K2) // qd
                    uk = -((-fu[i] * K2) // qd)
                    a = P if uk >= -lk else 0
                    s = -((-uk * P) // (uk - lk))
                    t = -s * lk
                    state.append((a, s, t))
                    keepL.append(a == P)
                    keepU.append(False)
                    unst.append(i)
                    relaxed.append((li, i, Q(a, P), Q(s, P), Q(t, P * K2)))
            RL, rcl = lf.round_forms(zL, zcl, den, lb, False)
            RU, rcu = lf.round_forms(zU, zcu, den, lb, True)
            RL = lf.zero_rows(RL, keepL)
            rcl = [c if k else 0 for c, k in zip(rcl, keepL)]
            RU = lf.zero_rows(RU, keepU)
            rcu = [c if k else 0 for c, k in zip(rcu, keepU)]
            if unst:  # h <= s z + t: the upper forms times s, plus t, over den * P
                tscale = den // K2
                S = _np.array([state[i][1] for i in unst], dtype=_np.int64)[:, None]
                XU = _limbs.scale(zU[:, unst], S)
                UU, ucs = lf.round_forms(XU, [zcu[i] * state[i][1] + state[i][2] * tscale for i in unst],
                                         den * P, lb, True)
                L2 = max(RU.shape[0], UU.shape[0])
                RU = lf.pad(RU, L2)
                RU[:, unst] = lf.pad(UU, L2)
                RU = _limbs.normalize(RU, fresh=True)
                for i, v in zip(unst, ucs):
                    rcu[i] = v
            states.append(state)
            if prepared is not None:
                prepared.append(_limb_state(state))
            Xl, cl, Xu, cu, H = RL, rcl, RU, rcu, 1 << FORM_BITS
            k = len(states) - 1
            tkey = tuple(id(tighten.get(kk)) for kk in range(k + 1)) if tighten else ()
            key = (id(net), boxkey, deep, tkey, k, tuple(sorted(item for item in fixed.items() if item[0][0] <= k)))
            if key not in _FORWARD:
                _remember(key, (net, Xl, cl, Xu, cu, H, tuple(relaxed), tuple(states),
                                tuple(prepared) if prepared is not None else None, tuple(tightened),
                                tkey_objects(tighten, k)), Xl.nbytes + Xu.nbytes)
    except _limbs.TooWide:
        return None
    rowsL = [r + [c] for r, c in zip(_limbs.to_ints(Xl), cl)]
    rowsU = [r + [c] for r, c in zip(_limbs.to_ints(Xu), cu)]
    return Bounds([list(c) for c in zip(*rowsL)], [list(c) for c in zip(*rowsU)], H, box, relaxed, net, states,
                  tightened)


def tkey_objects(tighten, k):
    """The tightening data of the ReLU layers up to ``k`` (the objects whose ids key a kept pass)."""
    return tuple(tighten.get(kk) for kk in range(k + 1)) if tighten else ()


def _limb_pn(layer: IntLayer):
    """``[Wp | Wn]`` of ``layer`` as a limb matrix (kept for the last few layers)."""
    got = _LIMB_PN.get(id(layer))
    if got is None or got[0] is not layer:
        if len(_LIMB_PN) > 64:
            _LIMB_PN.clear()
        got = (layer, _limbs.from_ints([list(rp) + list(rn) for rp, rn in zip(layer.Wp, layer.Wn)]))
        _LIMB_PN[id(layer)] = got
    return got[1]


def backward_form(net: IntNet, states, y_coeffs, x_coeffs, betas=(), alphas=None, used=None):
    """A lower affine form (exact rationals, constant last) of ``sum_j c_j Y_j + sum_k d_k x_k``
    on the box, by substituting the layers backwards: an affine layer exactly, a ReLU by
    its state (active: ``h = z``; inactive: ``h = 0``; unstable: ``h >= alpha z`` for a
    coefficient >= 0, ``h <= s z + t`` for one < 0). ``betas``: ``(relu layer, neuron, phase,
    beta)`` for ReLU splits (phase 1: ``z >= 0`` holds, so the form may gain ``-beta z``; 0:
    ``+beta z``), ``beta >= 0`` rationals; the form is then a lower bound where the phases hold.
    ``alphas``: ``{(relu layer, neuron): a}`` replaces the lower slope ``alpha`` of those
    unstable neurons by ``a / 2^SLOPE_BITS`` (``0 <= a <= 2^SLOPE_BITS``: ``h >= alpha z``
    holds for every ``alpha`` in ``[0, 1]``, whatever the neuron's range). ``used``: a set that
    receives ``(relu layer, neuron)`` of every unstable neuron whose lower slope the form
    takes (its coefficient is positive), or None."""
    P = 1 << SLOPE_BITS
    K2 = 1 << BOUND_BITS
    if not any(y_coeffs):  # no output: the form is the atom's own
        return [Q(0) + (x_coeffs[k] if x_coeffs else 0) for k in range(net.n_inputs)] + [Q(0)]
    C = 1
    for c in list(y_coeffs) + [b[3] for b in betas]:
        C = lcm(C, int(c.denominator))
    mu = [int(c.numerator) * (C // int(c.denominator)) for c in y_coeffs]
    M = C
    const = Q(0)
    relu_k = len(states)
    for layer in reversed(net.layers):
        if layer.relu:
            relu_k -= 1
            st = states[relu_k]
            nu = [0] * len(mu)
            tsum = 0
            for i, v in enumerate(mu):
                sti = st[i]
                if sti == 1:
                    nu[i] = v * P
                elif sti == 0 or not v:
                    continue
                elif v > 0:
                    nu[i] = v * (sti[0] if alphas is None else alphas.get((relu_k, i), sti[0]))
                    if used is not None:
                        used.add((relu_k, i))
                else:
                    nu[i] = v * sti[1]
                    tsum += v * sti[2]
            if tsum:
                const += Q(tsum, M * P * K2)
            for bk, bi, bph, beta in betas:  # over M * P, beta * C integral
                if bk == relu_k:
                    nu[bi] += (-1 if bph == 1 else 1) * int(beta * C) * (M // C) * P
            mu, M = nu, M * P
        # z = W h + b: the coefficients move to h
        const += Q(_dot(mu, layer.b), M * layer.D)
        if _flint is not None:
            mu = (_flint.fmpz_mat([mu]) * _mats(layer)[3]).tolist()[0]
        else:
            mu = [_dot(mu, col) for col in layer.WT]
        M = M * layer.D
    form = [Q(v, M) + (x_coeffs[k] if x_coeffs else 0) for k, v in enumerate(mu)]
    return form + [const]
