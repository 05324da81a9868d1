"""The max operator ``y_g = max_{j in group g} x_j`` of a layered net: exact and float
transfer functions.

Definition. On bounds ``lo <= x <= hi`` (integers over one denominator ``den``), each group
(its *pieces* ``x_j``, ``j`` in the group, in the group's order: positions ``0, 1, ...``)
gets a *state* ``(low, top, s, t)``: positions of the group and the numbers of the lines
``x_low <= y <= s x_top + t`` (``s`` over ``P = 2^16``, ``t`` over ``P * 2^24``), valid on
the node's part:

* a *split* group, whose node lies where piece ``p`` is the largest (a max split's child):
  ``(p, p, P, 0)``, ``y = x_p``; its bounds are ``[max_j lo_j, hi_p]`` (an empty range:
  the part holds no point);
* an *exact* group: with ``p`` the first position of the largest ``lo``, when ``lo_p >=
  hi_m`` for every other position ``m`` (piece ``p`` dominates): ``(p, p, P, 0)``;
* an *open* group, otherwise: ``low = p`` (any piece is a lower bound of the max; a close
  may choose another, ``pieces``), ``top = k`` the first position of the largest ``hi``,
  and the chord of ``max(w, M)`` (``M = max_{m != k} hi_m``) over ``w`` in ``[lo_k, hi_k]``,
  rounded outward: with ``lk = floor(2^24 lo_k / den)``, ``uk = ceil(2^24 hi_k / den)``
  and ``Mk = ceil(2^24 M / den)``, ``s = ceil(P (uk - Mk) / (uk - lk))`` and ``t = Mk P - s lk``.
  Why it is above: ``y <= max(x_k, M)`` (every other piece is at most ``M``), a convex
  function of ``x_k`` below its chord; not being exact, ``lk < Mk <= uk``.

The bounds of ``y``: ``[max_j lo_j, max_j hi_j]`` (a split group's as above).
:func:`backward` maps a coefficient vector over ``y`` to one over ``x``: ``v >= 0`` onto
the piece ``low`` (``v``), ``v < 0`` onto ``top`` (``v s``, and ``v t`` into the constant).
A split group's constraints ``x_p >= x_m`` enter with multipliers ``lambda_m >= 0``: the
coefficient of ``x_m`` gains ``lambda_m`` and that of ``x_p`` loses it (``lambda_m (x_m -
x_p) <= 0`` on the part).

Cost: one comparison per piece, one product per group.

>>> groups = ((0, 1), (2, 3))
>>> lo, hi, den, states, empty = transfer(groups, [0, -2, 5, 0], [4, 3, 6, 5], 1, {})
>>> lo, hi, states[1], empty        # group 1: x2 >= 5 >= x3 everywhere, so y1 = x2
([0, 5], [4, 6], (0, 0, 65536, 0), None)
>>> states[0][:2], states[0][2] / 65536     # group 0: y0 >= x0, y0 <= 3 + (x0 - 0) / 4
((0, 0), 0.25)
"""

from __future__ import annotations

from math import lcm

from .relu import K2, P

EXACT = "exact"


def _chord(lo: int, hi: int, M: int, den: int):
    """``(s, t)`` of the chord of ``max(w, M / den)`` over ``[lo, hi] / den`` (module docstring)."""
    lk = (lo * K2) // den
    uk = -((-hi * K2) // den)
    Mk = -((-M * K2) // den)
    s = -((-(uk - Mk) * P) // (uk - lk))
    return s, Mk * P - s * lk


def group_state(l, u, den: int, winner=None):
    """``(state, lower, upper)`` of one group with piece bounds ``l``, ``u`` (lists over
    ``den``); ``winner``: the position set largest by a split, or None."""
    if winner is not None:
        return (winner, winner, P, 0), max(l), u[winner]
    p = max(range(len(l)), key=lambda m: (l[m], -m))
    if all(l[p] >= u[m] for m in range(len(l)) if m != p):
        return (p, p, P, 0), l[p], u[p]
    k = max(range(len(u)), key=lambda m: (u[m], -m))
    M = max(u[m] for m in range(len(u)) if m != k)
    s, t = _chord(l[k], u[k], M, den)
    return (p, k, s, t), l[p], u[k]


def transfer(groups, lo, hi, den: int, winners):
    """``(lo', hi', den, states, empty)``: the bounds of ``y``, the groups' states, and the
    first group whose (split) range is empty, or None. ``winners``: ``{group: position}``."""
    out_lo, out_hi, states = [], [], []
    empty = None
    for g, group in enumerate(groups):
        st, a, b = group_state([lo[j] for j in group], [hi[j] for j in group], den, winners.get(g))
        if a > b and empty is None:
            empty = g
        states.append(st)
        out_lo.append(a)
        out_hi.append(b)
    return out_lo, out_hi, den, states, empty


def backward(groups, states, mu, M: int, width: int, pieces=None, lambdas=(), used=None):
    """``(nu, M', c, C)``: ``mu . y >= nu . x + c`` on the node's part (``nu`` over ``M'``
    integers of the ``width`` entries of ``x``, ``c`` over ``C``), for ``mu`` integers over
    ``M``. ``pieces``: ``{group: position}``, a close's own lower pieces of open groups;
    ``lambdas``: ``(group, winner, [lambda per position])``, exact rationals ``>= 0``; ``used``:
    a set that receives the groups whose own lower piece was applied."""
    nu = [0] * width
    c = 0
    for g, v in enumerate(mu):
        if v:
            low, top, s, t = states[g]
            group = groups[g]
            if v > 0:
                if pieces is not None and g in pieces:
                    low = pieces[g]
                    if used is not None:
                        used.add(g)
                nu[group[low]] += v * P
            else:
                nu[group[top]] += v * s
                if t:
                    c += v * t
    Mn = M * P
    if lambdas:
        L = 1
        for _, _, lam in lambdas:
            for x in lam:
                L = lcm(L, int(x.denominator))
        if L > 1:
            nu = [v * L for v in nu]
            c *= L
        for g, p, lam in lambdas:
            group = groups[g]
            for m, x in enumerate(lam):
                if x:
                    step = int(x.numerator) * (L // int(x.denominator)) * Mn
                    nu[group[m]] += step
                    nu[group[p]] -= step
        Mn *= L
    return nu, Mn, c, Mn * K2


# -- floats (proposals) ----------------------------------------------------------------------------
class FloatMax:
    """The groups as index arrays: ``G`` (groups x longest group, padded with each group's
    first index) and ``mask`` (True on the real entries)."""

    op = "max"

    def __init__(self, op):
        import numpy as np

        n = max(len(g) for g in op.groups)
        self.groups = op.groups
        self.G = np.array([list(g) + [g[0]] * (n - len(g)) for g in op.groups], dtype=np.int64)
        self.mask = np.array([[True] * len(g) + [False] * (n - len(g)) for g in op.groups], dtype=bool)
        self.input_dim, self.output_dim = op.input_dim, op.output_dim


class FloatMaxState:
    """Per group the float lines ``x_low <= y <= s x_top + t`` (global indices ``low``,
    ``top``), as :func:`transfer`, without rounding; ``exact``: the split or dominated groups."""

    op = "max"

    def __init__(self, low, top, s, t, exact, lp, up):
        self.low, self.top, self.s, self.t, self.exact = low, top, s, t, exact
        self.lp, self.up = lp, up   # the pieces' bounds, (groups x longest) with -inf / +inf padding


def float_transfer(fm: FloatMax, l, u, winners):
    """The float counterpart of :func:`transfer`: ``(l', u', FloatMaxState, empty)``."""
    import numpy as np

    L = np.where(fm.mask, l[fm.G], -np.inf)
    U = np.where(fm.mask, u[fm.G], -np.inf)
    rows = np.arange(len(fm.G))
    p = L.argmax(axis=1)                                  # the first of the largest lower bounds
    k = U.argmax(axis=1)
    lp = L[rows, p]
    Uo = U.copy()
    Uo[rows, p] = -np.inf
    exact = lp >= Uo.max(axis=1)
    Uk = U.copy()
    Uk[rows, k] = -np.inf
    M = Uk.max(axis=1)
    lk, uk = L[rows, k], U[rows, k]
    with np.errstate(divide="ignore", invalid="ignore"):
        s = np.where(uk > lk, (uk - np.maximum(M, lk)) / np.where(uk > lk, uk - lk, 1.0), 0.0)
    s = np.clip(s, 0.0, 1.0)
    t = np.maximum(M, lk) - s * lk
    top = k.copy()
    out_l, out_u = lp.copy(), U.max(axis=1)
    empty = None
    for g, w in winners.items():
        p[g] = top[g] = w
        exact[g] = True
        out_l[g] = L[g].max()
        out_u[g] = U[g, w]
        if out_l[g] > out_u[g] and (empty is None or g < empty):
            empty = g
    top = np.where(exact, p, top)
    s = np.where(exact, 1.0, s)
    t = np.where(exact, 0.0, t)
    st = FloatMaxState(fm.G[rows, p], fm.G[rows, top], s, t, exact, L, np.where(fm.mask, u[fm.G], np.inf))
    st.low_pos, st.top_pos = p, top
    return out_l, out_u, st, empty


def float_backward(fm: FloatMax, st: FloatMaxState, C, upper: bool = False, low=None):
    """``(C', c)`` for the rows ``C`` over ``y``: ``C y >= C' x + c`` (``<=`` when
    ``upper``); ``low``: global indices of the lower pieces replacing the state's."""
    import numpy as np

    low = st.low if low is None else low
    Cp, Cn = np.maximum(C, 0.0), np.minimum(C, 0.0)
    out = np.zeros((C.shape[0], fm.input_dim))
    if upper:
        np.add.at(out.T, st.top, (Cp * st.s).T)
        np.add.at(out.T, low, Cn.T)
        return out, Cp @ st.t
    np.add.at(out.T, low, Cp.T)
    np.add.at(out.T, st.top, (Cn * st.s).T)
    return out, Cn @ st.t


def float_forward(fm: FloatMax, X):
    """``y`` for each column of ``X`` and the argmax global index of each group (per column)."""
    import numpy as np

    V = np.where(fm.mask[:, :, None], X[fm.G], -np.inf)   # groups x longest x points
    arg = V.argmax(axis=1)
    Y = np.take_along_axis(V, arg[:, None, :], axis=1)[:, 0, :]
    return Y, np.take_along_axis(np.broadcast_to(fm.G[:, :, None], V.shape), arg[:, None, :], axis=1)[:, 0, :]
