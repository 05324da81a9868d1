"""Float bounds of a layered net on a node (CROWN by backward substitution): proposals only.

Definition. :func:`float_bounds` computes in float64 what :func:`~symrel.vnnlib.layered.bounds.leaf_bounds`
computes exactly (the interval pass, the backward refinement of the entries
``refine[k]``, the splits' clip, the states, without the rounding to ``2^-24``), and
:func:`float_lower` the lower bounds of rows ``ay . y + ax . x`` with optional lower slopes,
pieces and split multipliers, as :func:`~symrel.vnnlib.layered.bounds.lower_bound` does. :func:`scores` rates the
unstable ReLU entries and open max groups by what their relaxation loses under a row's
backward coefficients (BaBSR's score: ``|mu| * (-l u / (u - l))`` for a ReLU; ``|mu| *
(hi_top - lo_low)`` scaled the same way for a group), the candidates of a split.

Nothing here is trusted: the search closes a leaf only on the exact bounds.

>>> import pytest; _ = pytest.importorskip("scipy")
>>> from symrel.models.layered import LayeredNet, Relu, SparseAffine
>>> from symrel.vnnlib.layered.network import FloatNet
>>> fnet = FloatNet(LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]]), Relu(2), SparseAffine([[(0, 1), (1, 1)]])]))
>>> fb = float_bounds(fnet, np.array([-1.0]), np.array([2.0]), {}, {})
>>> round(float(float_lower(fnet, fb, np.array([[1.0]]), np.zeros((1, 1)))[0]), 6)
-1.0
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .ops import affine as _affine
from .ops import max_groups as _max
from .ops import relu as _relu


@dataclass
class FloatLeaf:
    """:func:`float_bounds`' result: ``states[k]`` (a :class:`~symrel.vnnlib.layered.ops.relu.FloatRelu` or
    :class:`~symrel.vnnlib.layered.ops.max_groups.FloatMaxState`, None for affine ops), ``pre[k] = (l, u)``, the
    box, and ``empty``: ``(k, kind, i)`` of the first empty range, or None."""

    lo: np.ndarray
    hi: np.ndarray
    states: list
    pre: list
    empty: tuple | None = None
    out: tuple = field(default=None)   # the output bounds (l, u) by intervals
    refined: dict = field(default_factory=dict)   # {k: the entries refined by backward substitution}


def _backward(fnet, fb: FloatLeaf, top: int, C, upper=False, alphas=None, pieces=None, betas=None, lambdas=None):
    """Substitute rows ``C`` over the vector op ``top`` reads down to the inputs: ``(A, c)``
    with ``C v >= A x + c`` (``<=`` when ``upper``) on the node's part."""
    const = np.zeros(C.shape[0])
    for k in range(top - 1, -1, -1):
        fop, st = fnet.ops[k], fb.states[k]
        if st is None:
            C, c = _affine.float_backward(fop, C)
        elif st.op == "relu":
            C, c = _relu.float_backward(st, C, upper, None if alphas is None else alphas.get(k))
            if betas and k in betas:
                C = C.copy()
                for i, side, beta in betas[k]:
                    C[:, i] += (-beta if side else beta) * (-1 if upper else 1)
        else:
            low = None if pieces is None or k not in pieces else pieces[k]
            C, c = _max.float_backward(fop, st, C, upper, low)
            if lambdas and k in lambdas:
                C = C.copy()
                sgn = -1 if upper else 1
                for g, p, lam in lambdas[k]:
                    group = fop.groups[g]
                    for m, x in enumerate(lam):
                        C[:, group[m]] += sgn * x
                        C[:, group[p]] -= sgn * x
        const = const + c
    return C, const


def _box_min(A, c, lo, hi):
    return np.maximum(A, 0.0) @ lo + np.minimum(A, 0.0) @ hi + c


def float_bounds(fnet, lo, hi, sides, winners, refine=None) -> FloatLeaf:
    """The float states of every nonlinear op on the node (module docstring); ``refine``:
    ``{k: entries}`` or ``"open"`` (every unsettled entry of every nonlinear op after the
    first, whose input an affine op computes)."""
    out = FloatLeaf(lo, hi, [None] * len(fnet.ops), [None] * len(fnet.ops))
    l, u = lo.astype(float), hi.astype(float)
    seen_nonlinear = False
    for k, fop in enumerate(fnet.ops):
        kind = fnet.kinds[k]
        if kind == "affine":
            out.pre[k] = (l, u)
            l, u = _affine.float_interval(fop, l, u)
            continue
        pick = None
        if refine == "open":
            if seen_nonlinear and k > 0 and fnet.kinds[k - 1] == "affine":
                pick = np.nonzero((l < 0) & (u > 0))[0] if kind == "relu" else np.nonzero(u > l)[0]
        elif refine:
            pick = refine.get(k)
        if pick is not None and len(pick):
            pick = np.asarray(pick)
            E = np.zeros((len(pick), len(l)))
            E[np.arange(len(pick)), pick] = 1.0
            A, c = _backward(fnet, out, k, E)
            bl = _box_min(A, c, lo, hi)
            A, c = _backward(fnet, out, k, E, upper=True)
            bu = -_box_min(-A, -c, lo, hi)
            l, u = l.copy(), u.copy()
            l[pick] = np.maximum(l[pick], bl)
            u[pick] = np.minimum(u[pick], bu)
            out.refined[k] = [int(i) for i in pick]
        out.pre[k] = (l, u)
        seen_nonlinear = True
        # an empty range is recorded and the pass goes on (the exact bounds may disagree)
        if kind == "relu":
            l, u, st, empty = _relu.float_transfer(l, u, sides.get(k, {}))
            if empty is not None and out.empty is None:
                out.empty = (k, "entry", empty)
        else:
            l, u, st, empty = _max.float_transfer(fop, l, u, winners.get(k, {}))
            if empty is not None and out.empty is None:
                out.empty = (k, "group", empty)
        out.states[k] = st
    out.out = (l, u)
    return out


def float_lower(fnet, fb: FloatLeaf, AY, AX, *, alphas=None, pieces=None, betas=None, lambdas=None):
    """The float lower bounds over the node of the rows ``AY[r] . y + AX[r] . x``."""
    A, c = float_form(fnet, fb, AY, AX, alphas=alphas, pieces=pieces, betas=betas, lambdas=lambdas)
    return _box_min(A, c, fb.lo, fb.hi)


def float_form(fnet, fb: FloatLeaf, AY, AX, **kw):
    """``(A, c)``: the rows' lower forms ``A x + c`` over the node."""
    A, c = _backward(fnet, fb, len(fnet.ops), np.asarray(AY, dtype=float), **kw)
    return A + AX, c


def coefficients(fnet, fb: FloatLeaf, ay):
    """``{k: mu}``: the backward coefficients of one row ``ay`` over the *output* of each
    nonlinear op ``k`` (what its relaxation multiplies), by the lower rule."""
    out = {}
    C = np.asarray([ay], dtype=float)
    for k in range(len(fnet.ops) - 1, -1, -1):
        fop, st = fnet.ops[k], fb.states[k]
        if st is None:
            C, _ = _affine.float_backward(fop, C)
            continue
        out[k] = C[0].copy()
        if st.op == "relu":
            C, _ = _relu.float_backward(st, C)
        else:
            C, _ = _max.float_backward(fop, st, C)
    return out


def scores(fnet, fb: FloatLeaf, ay, sides, winners):
    """``[(score, k, i), ...]``, highest first: the unstable ReLU entries and open max groups
    not yet split, scored by what their relaxation loses under the row ``ay`` (module
    docstring); the 64 highest of each op."""
    mus = coefficients(fnet, fb, ay)
    out = []
    top = 64   # per op, the highest scores only (a sort of every unstable entry costs more than the rest)
    for k, mu in mus.items():
        st = fb.states[k]
        if st.op == "relu":
            l, u = st.l, st.u
            unst = (l < 0) & (u > 0)
            gap = np.where(unst, -l * u / np.where(unst, u - l, 1.0), 0.0)
            sc = np.abs(mu) * gap
            taken = sides.get(k, {})
        else:
            rows = np.arange(len(st.low))
            lo_low = st.lp[rows, st.low_pos]
            U = np.where(np.isfinite(st.up), st.up, -np.inf)
            hi_top = U.max(axis=1)
            width = np.maximum(hi_top - lo_low, 0.0)
            sc = np.where(st.exact, 0.0, np.abs(mu) * width / 2)
            taken = winners.get(k, {})
        for i in taken:
            sc[i] = 0.0
        pick = np.nonzero(sc > 0)[0]
        if len(pick) > top:
            pick = pick[np.argpartition(-sc[pick], top)[:top]]
        out += [(float(sc[i]), k, int(i)) for i in pick]
    out.sort(key=lambda e: (-e[0], e[1], e[2]))
    return out
