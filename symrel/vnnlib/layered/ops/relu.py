"""The ReLU operator ``h = max(0, z)`` of a layered net: exact and float transfer functions.

Definition. On bounds ``lo <= z <= hi`` (integers over one denominator ``den``), clipped
first by the ReLU splits of the node (side 1: the part where ``z_i >= 0``, so ``lo_i :=
max(lo_i, 0)``; side 0: ``z_i <= 0``, ``hi_i := min(hi_i, 0)``), each entry gets a *state*,
the three numbers ``(alpha, s, t)`` of the lines ``alpha z <= h <= s z + t`` valid on its
range (``alpha`` and ``s`` over ``P = 2^16``, ``t`` over ``P * 2^24``):

* active, ``lo_i >= 0``: ``(P, P, 0)``, that is ``h = z``;
* inactive, else ``hi_i <= 0``: ``(0, 0, 0)``, ``h = 0``;
* unstable, otherwise: with ``lk = floor(2^24 lo_i / den)`` and ``uk = ceil(2^24 hi_i /
  den)``, ``alpha = P`` when ``uk >= -lk`` else 0 (the lower line ``h >= z`` or ``h >= 0``),
  ``s = ceil(P uk / (uk - lk))`` and ``t = -s lk`` (the chord of ReLU over the rounded
  range, its slope rounded up: above ``max(0, z)`` at both ends, hence on the range).

This is the rule of docs/format.md ("vnnlib-unsat", layered nets); the numbers are fixed
by the bounds, so a certificate records none of them. :func:`transfer` gives the states and
the bounds of ``h`` (``[max(lo, 0), max(hi, 0)]``); :func:`backward` maps a coefficient
vector over ``h`` to one over ``z``: a coefficient ``v >= 0`` takes the lower line (``v
alpha``), one ``v < 0`` the upper (``v s``, and ``v t`` into the constant), optionally
with a close's own lower slopes (``alphas``) and the splits' multipliers (``betas``: side 1
adds ``-beta`` to ``z_i``'s coefficient, side 0 ``+beta``; on the node's part ``-beta z <=
0`` and ``beta z <= 0`` there, so the bound stays a lower bound).

Cost: one comparison or product per entry.

>>> lo, hi, den, states, empty = transfer([-1, 2, -3], [3, 5, -1], 1, {})
>>> lo, hi, states[1], states[2], empty
([0, 2, 0], [3, 5, 0], (65536, 65536, 0), (0, 0, 0), None)
>>> a, s, t = states[0]; a / P, s / P, t / (P * K2)  # z in [-1, 3]: h >= z, h <= 3/4 z + 3/4
(1.0, 0.75, 0.75)
>>> transfer([-1], [3], 1, {0: 0})[3:]           # the split's part z <= 0: inactive there
([(0, 0, 0)], None)
>>> transfer([1], [3], 1, {0: 0})[4]             # z <= 0 where z >= 1: no point, entry 0
0
"""

from __future__ import annotations

from math import lcm

from ....exact import Q

#: fractional bits of the slopes alpha and s
SLOPE_BITS = 16
#: fractional bits of the rounded bounds behind a chord
BOUND_BITS = 24
P = 1 << SLOPE_BITS
K2 = 1 << BOUND_BITS
ACTIVE = (P, P, 0)
INACTIVE = (0, 0, 0)


def relaxation(lo: int, hi: int, den: int):
    """``(alpha, s, t)`` of an unstable entry with ``lo / den < 0 < hi / den`` (module
    docstring), as integers over ``P``, ``P`` and ``P * 2^24``."""
    lk = (lo * K2) // den
    uk = -((-hi * K2) // den)
    s = -((-uk * P) // (uk - lk))
    return (P if uk >= -lk else 0), s, -s * lk


def transfer(lo, hi, den: int, sides):
    """``(lo', hi', den, states, empty)``: the bounds of ``h``, the states of the entries
    and the first entry whose clipped range is empty (None when none is: an empty range
    says the node's part holds no point). ``sides``: ``{entry: 1 or 0}``, the splits."""
    lo, hi = list(lo), list(hi)
    empty = None
    for i, side in sides.items():
        if side:
            lo[i] = max(lo[i], 0)
        else:
            hi[i] = min(hi[i], 0)
        if lo[i] > hi[i] and (empty is None or i < empty):
            empty = i
    states = []
    for a, b in zip(lo, hi):
        if a >= 0:
            states.append(ACTIVE)
        elif b <= 0:
            states.append(INACTIVE)
        else:
            states.append(relaxation(a, b, den))
    return [max(v, 0) for v in lo], [max(v, 0) for v in hi], den, states, empty


#: most stored entries of a row whose ReLU may take a line over its inputs' box (2^m vertices)
HULL_ENTRIES = 10


def line_above(row, b: int, D: int, lo, hi, den: int, a, c) -> bool:
    """Whether ``max(0, w . v + b) <= a . v + c`` for ``v`` in the box ``[lo, hi] / den`` of
    the row's columns (``row``: ``(column, w * D)`` pairs, ``b`` over ``D``; ``a``: one exact
    rational per pair, ``c`` exact). ``max(0, w . v + b) - a . v`` is convex, so its maximum
    over the box is at a vertex: the ``2^m`` vertices are checked, exactly.

    >>> line_above([(0, 1)], 0, 1, [-1], [3], 1, [Q(3, 4)], Q(3, 4))     # ReLU(v) <= 3/4 v + 3/4 on [-1, 3]
    True
    >>> line_above([(0, 1)], 0, 1, [-1], [3], 1, [Q(1, 2)], Q(1))        # 1/2 v + 1 < 3 at v = 3
    False
    """
    cols = [j for j, _ in row]
    for corner in range(1 << len(cols)):
        v = [Q(hi[j] if corner >> m & 1 else lo[j], den) for m, j in enumerate(cols)]
        z = sum((Q(w, D) * x for (_, w), x in zip(row, v)), Q(b, D))
        if max(z, Q(0)) > sum((ai * x for ai, x in zip(a, v)), Q(c)):
            return False
    return True


def backward(states, mu, M: int, alphas=None, betas=(), used=None, hulls=None, redirected=None, used_lines=None):
    """``(nu, M', c, C)``: ``mu . h >= nu . z + c`` on the node's part (``nu`` integers over
    ``M'``, ``c`` over ``C``), for ``mu`` integers over ``M``. ``alphas``: ``{entry: a}``,
    lower slopes ``a / P`` (``0 <= a <= P``) of unstable entries replacing the states';
    ``betas``: ``(entry, side, beta)`` with ``beta >= 0`` an exact rational; ``used``: a set
    that receives the entries whose own slope was applied. ``hulls``: the entries with a line
    over their inputs' box (:func:`line_above`): one with a coefficient ``v < 0`` gets 0 here
    and ``(entry, v)`` goes to ``redirected``, for the caller to put ``v`` times the line on the
    vector the affine op below reads (``used_lines``: a set that receives those entries)."""
    nu = [0] * len(mu)
    c = 0
    for i, v in enumerate(mu):
        if v:
            a, s, t = states[i]
            if v > 0:
                if alphas is not None and i in alphas:
                    a = alphas[i]
                    if used is not None:
                        used.add(i)
                nu[i] = v * a
            elif hulls is not None and i in hulls:
                redirected.append((i, v))
                if used_lines is not None:
                    used_lines.add(i)
            else:
                nu[i] = v * s
                if t:
                    c += v * t
    Mn = M * P
    if betas:
        B = 1
        for _, _, beta in betas:
            B = lcm(B, int(beta.denominator))
        if B > 1:
            nu = [v * B for v in nu]
            c *= B
        for i, side, beta in betas:
            step = int(beta.numerator) * (B // int(beta.denominator)) * Mn
            nu[i] += -step if side else step
        Mn *= B
        return nu, Mn, c, Mn * K2
    return nu, Mn, c, Mn * K2


# -- floats (proposals) ----------------------------------------------------------------------------
class FloatRelu:
    """The float states of one node: ``aL z <= h <= aU z + tU`` per entry, and the bounds
    ``l``, ``u`` of ``z`` after the splits' clip."""

    op = "relu"

    def __init__(self, l, u, aL, aU, tU):
        self.l, self.u, self.aL, self.aU, self.tU = l, u, aL, aU, tU

    @property
    def unstable(self):
        return (self.l < 0) & (self.u > 0)


def float_transfer(l, u, sides):
    """The float counterpart of :func:`transfer`: ``(l', u', FloatRelu, empty)``."""
    import numpy as np

    l, u = l.copy(), u.copy()
    for i, side in sides.items():
        if side:
            l[i] = max(l[i], 0.0)
        else:
            u[i] = min(u[i], 0.0)
    bad = np.nonzero(l > u)[0]
    empty = int(bad[0]) if len(bad) else None
    act = l >= 0
    unst = (l < 0) & (u > 0)
    aL = act.astype(float)
    aU = act.astype(float)
    tU = np.zeros_like(l)
    if unst.any():
        lu, uu = l[unst], u[unst]
        s = uu / (uu - lu)
        aU[unst] = s
        tU[unst] = -s * lu
        aL[unst] = (uu >= -lu).astype(float)
    return np.maximum(l, 0.0), np.maximum(u, 0.0), FloatRelu(l, u, aL, aU, tU), empty


def float_backward(st: FloatRelu, C, upper: bool = False, alphas=None):
    """``(C', c)`` for the rows ``C`` over ``h``: ``C h >= C' z + c`` (``<=`` when ``upper``);
    ``alphas``: an array of lower slopes replacing ``aL`` (None: the states')."""
    import numpy as np

    aL = st.aL if alphas is None else alphas
    Cp, Cn = np.maximum(C, 0.0), np.minimum(C, 0.0)
    if upper:
        return Cp * st.aU + Cn * aL, Cp @ st.tU
    return Cp * aL + Cn * st.aU, Cn @ st.tU


def float_forward(X):
    import numpy as np

    return np.maximum(X, 0.0)
