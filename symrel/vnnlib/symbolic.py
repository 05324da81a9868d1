"""Certified bounds of a ReLU net on a box: symbolic intervals in integer arithmetic.

Definition. On a box ``B`` every neuron ``z`` of the net gets two affine forms of the
input, ``L_z(x) <= z(x) <= U_z(x)`` for all ``x`` in ``B`` (the symbolic intervals of
Neurify/DeepPoly, propagated forward). An affine layer maps them with the positive and
negative parts of its weights; a ReLU ``h = max(0, z)`` is

* *active* when ``min_B L_z >= 0`` (then ``h = z``), else *inactive* when
  ``max_B U_z <= 0`` (then ``h = 0``), tested in this order;
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
from ..exact import Q, rational

#: fractional bits of the relaxation slopes alpha and s
SLOPE_BITS = 16
#: fractional bits of the rounded bound behind each intercept t
BOUND_BITS = 24


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
    denominators of ``W`` and ``b`` as ``D``). Refuses other models by name."""
    from ..models import ReLUNet

    if not isinstance(net, ReLUNet):
        raise InputError(f"expected a ReLU net (kind relu), got {type(net).__name__}", path="network")
    layers = []
    for k, layer in enumerate(net.layers):
        W = layer.affine.exact_W.to_list()
        b = [r[0] for r in layer.affine.exact_b.to_list()]
        D = 1
        for v in [v for r in W for v in r] + b:
            D = lcm(D, int(v.denominator))
        Wi = [[int(v.numerator) * (D // int(v.denominator)) for v in r] for r in W]
        bi = tuple(int(v.numerator) * (D // int(v.denominator)) for v in b)
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


def _min_num(cols, i, box: ScaledBox) -> int:
    """``Q * den * min_B form_i`` for the form of neuron i in columns ``cols``."""
    n = len(box.plo)
    total = cols[n][i] * box.Q
    for k in range(n):
        a = cols[k][i]
        if a:
            total += a * (box.plo[k] if a > 0 else box.phi[k])
    return total


def _max_num(cols, i, box: ScaledBox) -> int:
    n = len(box.plo)
    total = cols[n][i] * box.Q
    for k in range(n):
        a = cols[k][i]
        if a:
            total += a * (box.phi[k] if a > 0 else box.plo[k])
    return total


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

    def backward(self, y_coeffs, x_coeffs):
        """:func:`backward_form` on this box (exact rationals, constant last)."""
        return backward_form(self.net, self.states, y_coeffs, x_coeffs)

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


def propagate(net: IntNet, box: ScaledBox) -> Bounds:
    """Symbolic intervals of every neuron of ``net`` on ``box`` (module docstring)."""
    n = net.n_inputs
    if len(box.plo) != n:
        raise InputError(f"expected a box of {n} inputs, got {len(box.plo)}", path="box")
    # the inputs: L = U = x_k, denominator 1
    Lc = [[int(i == k) for i in range(n)] for k in range(n)] + [[0] * n]
    Uc = Lc
    H = 1
    relaxed, states = [], []
    P = 1 << SLOPE_BITS
    K2 = 1 << BOUND_BITS
    for li, layer in enumerate(net.layers):
        m = len(layer.b)
        if Lc is Uc:  # equal forms (no relaxation yet): one product
            zL = [[_dot(layer.Wp[i], Lc[k]) + _dot(layer.Wn[i], Lc[k]) for i in range(m)] for k in range(n + 1)]
            zU = zL
        else:
            zL = [[_dot(layer.Wp[i], Lc[k]) + _dot(layer.Wn[i], Uc[k]) for i in range(m)] for k in range(n + 1)]
            zU = [[_dot(layer.Wp[i], Uc[k]) + _dot(layer.Wn[i], Lc[k]) for i in range(m)] for k in range(n + 1)]
        den = layer.D * H
        bias = [v * H for v in layer.b]
        zL[n] = [a + c for a, c in zip(zL[n], bias)]
        if zU is not zL:
            zU[n] = [a + c for a, c in zip(zU[n], bias)]
        if not layer.relu:
            Lc, Uc, H = zL, zU, den
            continue
        f = K2 // gcd(den, K2)  # so that the new denominator is a multiple of 2^BOUND_BITS
        newden = den * P * f
        scale = P * f
        tscale = newden // (P * K2)
        qd = box.Q * den
        hL = [[0] * m for _ in range(n + 1)]
        hU = [[0] * m for _ in range(n + 1)]
        state = [0] * m  # 1 active, 0 inactive, (alpha, s, t) over P, P, P * 2^BOUND_BITS: unstable
        for i in range(m):
            lz = _min_num(zL, i, box)
            if lz >= 0:  # active
                state[i] = 1
                for k in range(n + 1):
                    hL[k][i] = zL[k][i] * scale
                    hU[k][i] = zU[k][i] * scale
                continue
            uz = _max_num(zU, i, box)
            if uz <= 0:  # inactive
                continue
            # the bounds rounded outward to BOUND_BITS fractional bits
            lk = (lz * K2) // qd
            uk = -((-uz * K2) // qd)
            a = P if uk >= -lk else 0
            s = -((-uk * P) // (uk - lk))
            t = -s * lk
            state[i] = (a, s, t)
            for k in range(n + 1):
                hL[k][i] = zL[k][i] * a * f
                hU[k][i] = zU[k][i] * s * f
            hU[n][i] += t * tscale
            relaxed.append((li, i, Q(a, P), Q(s, P), Q(t, P * K2)))
        states.append(state)
        Lc, Uc, H = hL, hU, newden
    return Bounds(Lc, Uc, H, box, relaxed, net, states)


def backward_form(net: IntNet, states, y_coeffs, x_coeffs):
    """A lower affine form (exact rationals, constant last) of ``sum_j c_j Y_j + sum_k d_k x_k``
    on the box, by substituting the layers backwards: an affine layer exactly, a ReLU by
    its state (active: ``h = z``; inactive: ``h = 0``; unstable: ``h >= alpha z`` for a
    coefficient >= 0, ``h <= s z + t`` for one < 0)."""
    P = 1 << SLOPE_BITS
    K2 = 1 << BOUND_BITS
    C = 1
    for c in y_coeffs:
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
                    nu[i] = v * sti[0]
                else:
                    nu[i] = v * sti[1]
                    tsum += v * sti[2]
            if tsum:
                const += Q(tsum, M * P * K2)
            mu, M = nu, M * P
        # z = W h + b: the coefficients move to h
        const += Q(_dot(mu, layer.b), M * layer.D)
        mu = [_dot(mu, col) for col in layer.WT]
        M = M * layer.D
    form = [Q(v, M) + (x_coeffs[k] if x_coeffs else 0) for k, v in enumerate(mu)]
    return form + [const]
