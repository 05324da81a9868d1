"""The multipliers of a close, proposed by the LP over the whole relaxed net: proposals only.

Definition. On a node (its float states, :mod:`~symrel.vnnlib.layered.floatbounds`), the LP minimises ``ay . y +
ax . x`` over the box, each unstable ReLU entry a variable ``h`` with the triangle ``h >= 0``,
``h >= z``, ``h <= s z + t``, each open max group a variable ``y`` with ``y >= x_j`` for every
piece and ``y <= s x_top + t``, settled entries substituted (``h = z``, ``h = 0``, ``y =
x_p``), and the splits' constraints (``z >= 0`` or ``z <= 0``; ``x_p >= x_m`` for the other
pieces of a split group). Its duals are the multipliers of a backward substitution that
reaches the LP's value (the Lagrangian dual): :func:`multipliers` returns them as the
close's ``betas`` (ReLU splits), ``lambdas`` (max splits), lower ``alphas`` (``alpha =
lam / mu``, the dual of ``h >= z`` over the entry's backward coefficient) and lower
``pieces`` (of each open group, the piece whose row ``y >= x_j`` has the largest dual).
Only these proposals leave this module: the exact bound (:mod:`~symrel.vnnlib.layered.bounds`) decides.

When the splits contradict one another (the LP is empty), the duals of the least violation
of the splits' rows, scaled to exceed ``rhs`` minus the plain bound, are offered instead.

Cost: one LP (HiGHS) of ``inputs + unstable entries + open groups`` columns, about three
rows per unstable entry and one per piece of an open group, after one sparse product per
affine op.

>>> import pytest; _ = pytest.importorskip("scipy")
>>> import numpy as np
>>> from symrel.models.layered import LayeredNet, Relu, SparseAffine
>>> from symrel.vnnlib.layered.network import FloatNet
>>> from symrel.vnnlib.layered.floatbounds import float_bounds, float_lower
>>> fnet = FloatNet(LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]]), Relu(2), SparseAffine([[(0, 1), (1, 1)]])]))
>>> fb = float_bounds(fnet, np.array([-1.0]), np.array([2.0]), {1: {0: 1}}, {})   # the part x >= 0
>>> got = multipliers(fnet, fb, {1: {0: 1}}, {}, [1.0], [0.0], 0.0)
>>> round(got.value, 6), round(float(float_lower(fnet, fb, np.array([[1.0]]), np.zeros((1, 1)), **got.kw())[0]), 6)
(0.0, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..betas import _lp


@dataclass
class Multipliers:
    """A close's multipliers (module docstring): ``betas[k] = [(entry, side, beta)]``,
    ``lambdas[k] = [(group, winner, [lambda per position])]``, ``alphas[k]`` an array of lower
    slopes, ``pieces[k]`` an array of the lower pieces' global indices; ``value``: the LP's."""

    value: float
    hulls: dict = field(default_factory=dict)   # {k: {entry: (columns, a, c)}}: lines over the inputs' box
    betas: dict = field(default_factory=dict)
    lambdas: dict = field(default_factory=dict)
    alphas: dict = field(default_factory=dict)
    pieces: dict = field(default_factory=dict)

    def kw(self) -> dict:
        return {"betas": self.betas, "lambdas": self.lambdas, "alphas": self.alphas, "pieces": self.pieces}


def reaching(fnet):
    """Per op ``k`` the mask of the entries of the vector it reads that reach an output."""
    masks = [None] * len(fnet.ops)
    m = np.ones(fnet.output_dim, dtype=bool)
    for k in range(len(fnet.ops) - 1, -1, -1):
        fop, kind = fnet.ops[k], fnet.kinds[k]
        if kind == "affine":
            m = np.asarray((abs(fop.W).T @ m.astype(float)) > 0).ravel()
        elif kind == "max":
            r = np.zeros(fop.input_dim, dtype=bool)
            r[fop.G[m].ravel()] = True
            m = r
        masks[k] = m
    return masks


class _Rows:
    """Rows ``lo <= G v <= h`` gathered as sparse blocks, each remembered by name (``lo``:
    minus infinity unless given; equal to ``h`` for an equality)."""

    def __init__(self, ncol):
        self.blocks, self.tops, self.lows, self.n, self.ncol, self.named = [], [], [], 0, ncol, {}

    def add(self, name, G, h, lo=None):
        G = sp.csr_matrix(G)
        if G.shape[0] == 0:
            return
        self.named[name] = (self.n, G.shape[0])
        self.blocks.append(G)
        self.tops.append(np.asarray(h, dtype=float).reshape(-1))
        self.lows.append(np.full(G.shape[0], -np.inf) if lo is None else np.asarray(lo, dtype=float).reshape(-1))
        self.n += G.shape[0]

    def matrix(self):
        if not self.blocks:
            return sp.csr_matrix((0, self.ncol)), np.zeros(0), np.zeros(0)
        return sp.vstack(self.blocks).tocsr(), np.concatenate(self.lows), np.concatenate(self.tops)


def _vertices(lo, hi):
    """The ``2^m`` vertices of the box ``[lo, hi]`` (rows), the first coordinate fastest."""
    m = len(lo)
    bits = (np.arange(1 << m)[:, None] >> np.arange(m)[None, :]) & 1
    return np.where(bits == 1, hi[None, :], lo[None, :])


def _hull_entries(fnet, fb, cols, ay):
    """``{k: [(entry, columns, weights, bias, vertices, values)]}``: the unstable entries (with
    an LP column) of ReLU ops read from an affine op, of rows of at most
    :data:`~symrel.vnnlib.layered.ops.relu.HULL_ENTRIES` entries, whose backward coefficient is negative (their
    upper line is what the bound uses): the vertices of the box of the vector the affine op
    reads, restricted to the row's columns, and the ReLU's values there."""
    from .floatbounds import coefficients
    from .ops.relu import HULL_ENTRIES

    mus = coefficients(fnet, fb, ay)
    out = {}
    for k, st in enumerate(fb.states):
        if st is None or st.op != "relu" or k == 0 or fnet.kinds[k - 1] != "affine" or k not in cols:
            continue
        W = fnet.ops[k - 1].W
        lo, hi = fb.pre[k - 1]
        items = []
        for i in cols[k][1]:
            a, b = W.indptr[i], W.indptr[i + 1]
            if mus[k][i] >= 0 or b - a > HULL_ENTRIES or b == a:
                continue
            S, w = W.indices[a:b], W.data[a:b]
            V = _vertices(lo[S], hi[S])
            items.append((int(i), S, w, float(fnet.ops[k - 1].b[i]), V, np.maximum(V @ w + fnet.ops[k - 1].b[i], 0.0)))
        if items:
            out[k] = items
    return out


def _hull_rows(rows, k, items, hcol, lam_cols, E_in, e_in, ncol):
    """The rows of the concave envelopes of op ``k``'s entries ``items`` (:func:`_hull_entries`):
    per entry ``h - sum_p lam_p R_p <= 0``, ``v_S - sum_p lam_p v_p = 0`` (one row per column of
    ``S``) and ``sum_p lam_p = 1``, each family one block built at once."""
    hr, hc, hv = [], [], []
    xr, xc, xv, xs = [], [], [], []
    orow, oc = [], []
    xrow = 0
    for t, (i, S, w, b, V, R) in enumerate(items):
        L = lam_cols[(k, i)] + np.arange(len(V))
        hr.append(np.full(len(V) + 1, t))
        hc.append(np.r_[hcol[i], L])
        hv.append(np.r_[1.0, -R])
        m = len(S)
        xr.append(np.repeat(xrow + np.arange(m), len(V)))
        xc.append(np.tile(L, m))
        xv.append(-V.T.ravel())
        xs.append(S)
        orow.append(np.full(len(V), t))
        oc.append(L)
        xrow += m
    n = len(items)
    rows.add(("hull", k), sp.csr_matrix((np.concatenate(hv), (np.concatenate(hr), np.concatenate(hc))), shape=(n, ncol)),
             np.zeros(n))
    S = np.concatenate(xs)
    X = E_in[S] + sp.csr_matrix((np.concatenate(xv), (np.concatenate(xr), np.concatenate(xc))), shape=(xrow, ncol))
    rows.add(("hullx", k), X, -e_in[S], -e_in[S])
    one = np.concatenate(oc)
    rows.add(("hull1", k), sp.csr_matrix((np.ones(len(one)), (np.concatenate(orow), one)), shape=(n, ncol)),
             np.ones(n), np.ones(n))


def multipliers(fnet, fb, sides, winners, ay, ax, rhs, reach=None, hull=False):
    """The LP's multipliers for ``ay . y + ax . x`` on the node (module docstring), or None
    when the LP fails. ``hull``: the ReLU entries of :func:`_hull_entries` are bounded above by
    the concave envelope of ``ReLU(w . v + b)`` over the box of the vector ``v`` they read
    (``h <= sum_p lam_p ReLU(w . v_p + b)`` with ``v = sum_p lam_p v_p`` a convex combination of
    the box's vertices), a relaxation the triangle's chord is far from when ``v`` has a few
    entries (a 2 x 2 convolution's); its duals give each such entry a line ``h <= a . v + c``."""
    n = len(fb.lo)
    reach = reach or reaching(fnet)
    # the columns: the inputs, then one per unstable entry and open group that reaches an output
    cols, ncol = {}, n
    for k, st in enumerate(fb.states):
        if st is None:
            continue
        if st.op == "relu":
            idx = np.nonzero(st.unstable & reach[k])[0]
        else:
            out_reach = reach[k + 1] if k + 1 < len(reach) and reach[k + 1] is not None else np.ones(len(st.low), bool)
            idx = np.nonzero(~st.exact & out_reach)[0]
        cols[k] = (ncol, idx)
        ncol += len(idx)
    hulls = _hull_entries(fnet, fb, cols, ay) if hull else {}
    lam_cols = {}
    for k, items in hulls.items():
        for item in items:
            lam_cols[(k, item[0])] = ncol
            ncol += len(item[4])
    rows = _Rows(ncol)
    E = sp.hstack([sp.identity(n, format="csr"), sp.csr_matrix((n, ncol - n))]).tocsr()
    e = np.zeros(n)
    E_in = e_in = None
    for k, fop in enumerate(fnet.ops):
        st = fb.states[k]
        if st is None:
            E_in, e_in = E, e
            E = (fop.W @ E).tocsr()
            e = fop.W @ e + fop.b
            continue
        start, idx = cols[k]
        if st.op == "relu":
            width = len(e)
            if k in hulls:
                _hull_rows(rows, k, hulls[k], {int(i): start + j for j, i in enumerate(idx)}, lam_cols, E_in, e_in,
                           ncol)
            keep = (st.l >= 0)
            for i, side in sides.get(k, {}).items():
                keep[i] = bool(side)
            unit = sp.csr_matrix((np.ones(len(idx)), (idx, start + np.arange(len(idx)))), shape=(width, ncol))
            Eu = E[idx]
            rows.add(("lam", k), Eu - unit[idx], -e[idx])                       # z - h <= 0
            rows.add(("up", k), unit[idx] - sp.diags(st.aU[idx]) @ Eu, st.aU[idx] * e[idx] + st.tU[idx])
            sp_items = sorted(sides.get(k, {}).items())
            if sp_items:
                si = np.array([i for i, _ in sp_items])
                sg = np.array([-1.0 if s else 1.0 for _, s in sp_items])        # side 1: -z <= 0
                rows.add(("beta", k), sp.diags(sg) @ E[si], -sg * e[si])
            E = (sp.diags(keep.astype(float)) @ E + unit).tocsr()
            e = np.where(keep, e, 0.0)
        else:
            ng = len(st.low)
            unit = sp.csr_matrix((np.ones(len(idx)), (idx, start + np.arange(len(idx)))), shape=(ng, ncol))
            for j, g in enumerate(idx):
                group = fop.groups[g]
                gi = np.array(group)
                rows.add(("piece", k, int(g)), E[gi] - unit[[g] * len(gi)], -e[gi])    # x_j - y <= 0
            if len(idx):
                rows.add(("up", k), unit[idx] - sp.diags(st.s[idx]) @ E[st.top[idx]], st.s[idx] * e[st.top[idx]]
                         + st.t[idx])
            for g, p in sorted(winners.get(k, {}).items()):
                gi = np.array(fop.groups[g])
                rows.add(("lambda", k, g), E[gi] - E[[gi[p]] * len(gi)], e[gi[p]] - e[gi])   # x_m - x_p <= 0
            exact = np.nonzero(st.exact)[0]
            sel = sp.csr_matrix((np.ones(len(exact)), (exact, st.low[exact])), shape=(ng, len(e)))
            E = (sel @ E + unit).tocsr()
            e = sel @ e
    c = np.asarray(ay, dtype=float) @ E
    c = np.asarray(c).ravel()
    c[:n] += np.asarray(ax, dtype=float)
    const = float(np.asarray(ay, dtype=float) @ e)
    G, glo, h = rows.matrix()
    lo = np.r_[fb.lo, np.zeros(ncol - n)]
    hi = np.r_[fb.hi, np.full(ncol - n, np.inf)]
    for k, (start, idx) in cols.items():   # a group's y has no sign: its bounds are the group's
        st = fb.states[k]
        if st.op == "max" and len(idx):
            lo[start:start + len(idx)] = -np.inf
    status, value, duals = _lp(c, (G.indptr, G.indices, G.data), glo, h, lo, hi)
    scale = 1.0
    if status == "infeasible":
        split_rows = [r for name, r in rows.named.items() if name[0] in ("beta", "lambda")]
        if not split_rows:
            return None
        slack = np.zeros(len(h))
        for start, m in split_rows:
            slack[start:start + m] = -1.0
        G2 = sp.hstack([G, sp.csr_matrix(slack[:, None])]).tocsr()
        status, s, duals = _lp(np.r_[np.zeros(ncol), 1.0], (G2.indptr, G2.indices, G2.data), glo,
                               h, np.r_[lo, 0.0], np.r_[hi, np.inf])
        if status != "optimal" or s <= 0:
            return None
        from .floatbounds import float_lower

        plain = float(float_lower(fnet, fb, np.asarray([ay], dtype=float), np.asarray([ax], dtype=float))[0])
        scale = 4.0 * (abs(float(rhs) - plain) + 1.0) / s
        value = float("inf")
    elif status != "optimal":
        return None
    else:
        value += const
    dual = np.maximum(0.0, -duals) * scale
    lines = {}
    for k, items in hulls.items():   # h <= a . v + c from the duals (docstring); c the least valid
        r0, _ = rows.named[("hull", k)]
        rx = rows.named[("hullx", k)][0]
        for t, (i, S, w, b, V, R) in enumerate(items):
            theta = -duals[r0 + t]
            m = len(S)
            if theta > 1e-12:
                a = duals[rx:rx + m] / theta
                lines.setdefault(k, {})[i] = (S, a, float(np.max(R - V @ a)))
            rx += m
    out = _backward_multipliers(fnet, fb, sides, winners, ay, rows.named, cols, dual, value, lines)
    out.hulls = lines
    return out


def _backward_multipliers(fnet, fb, sides, winners, ay, named, cols, dual, value, lines=None):
    """The LP's duals as a backward pass's multipliers (module docstring); ``lines``: the ReLU
    entries' lines over their inputs, which take a negative coefficient past the affine op."""
    from .ops.max_groups import float_backward

    out = Multipliers(value)
    C = np.asarray([ay], dtype=float)
    bypass = None
    for k in range(len(fnet.ops) - 1, -1, -1):
        fop, st = fnet.ops[k], fb.states[k]
        if st is None:
            C = (fop.WT @ C.T).T
            if bypass is not None:
                C = C + bypass
                bypass = None
            continue
        if st.op == "relu":
            alphas = st.aL.copy()
            if ("lam", k) in named:
                start, m = named[("lam", k)]
                idx = cols[k][1]
                mu = C[0, idx]
                pos = mu > 0
                alphas[idx[pos]] = np.clip(dual[start:start + m][pos] / mu[pos], 0.0, 1.0)
            out.alphas[k] = alphas
            mine = (lines or {}).get(k, {})
            if mine:
                bypass = np.zeros((1, fnet.ops[k - 1].input_dim))
                for i, (S, a, _) in mine.items():
                    if C[0, i] < 0:
                        bypass[0, S] += C[0, i] * a
            Cn = np.minimum(C, 0.0)
            for i in mine:
                Cn[0, i] = 0.0
            C = np.maximum(C, 0.0) * alphas + Cn * st.aU
            items = sorted(sides.get(k, {}).items())
            if items and ("beta", k) in named:
                start, _ = named[("beta", k)]
                C = C.copy()
                bl = []
                for j, (i, side) in enumerate(items):
                    beta = float(dual[start + j])
                    bl.append((i, side, beta))
                    C[0, i] += -beta if side else beta
                out.betas[k] = bl
        else:
            low = st.low.copy()
            for g in cols[k][1]:
                key = ("piece", k, int(g))
                if key in named and C[0, g] > 0:
                    start, m = named[key]
                    low[g] = fop.groups[g][int(np.argmax(dual[start:start + m]))]
            out.pieces[k] = low
            C, _ = float_backward(fop, st, C, False, low)
            lam = []
            C = C.copy()
            for g, p in sorted(winners.get(k, {}).items()):
                start, m = named[("lambda", k, g)]
                ls = [float(dual[start + j]) if j != p else 0.0 for j in range(m)]
                lam.append((g, p, ls))
                group = fop.groups[g]
                for j, x in enumerate(ls):
                    C[0, group[j]] += x
                    C[0, group[p]] -= x
            if lam:
                out.lambdas[k] = lam
    return out
