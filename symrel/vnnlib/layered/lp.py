"""The multipliers of a close, proposed by the LP over the whole relaxed net: proposals only.

Definition. On a node (its float states, :mod:`.floatbounds`), the LP minimises ``ay . y +
ax . x`` over the box, each unstable ReLU entry a variable ``h`` with the triangle ``h >= 0``,
``h >= z``, ``h <= s z + t``, each open max group a variable ``y`` with ``y >= x_j`` for every
piece and ``y <= s x_top + t``, settled entries substituted (``h = z``, ``h = 0``, ``y =
x_p``), and the splits' constraints (``z >= 0`` or ``z <= 0``; ``x_p >= x_m`` for the other
pieces of a split group). Its duals are the multipliers of a backward substitution that
reaches the LP's value (the Lagrangian dual): :func:`multipliers` returns them as the
close's ``betas`` (ReLU splits), ``lambdas`` (max splits), lower ``alphas`` (``alpha =
lam / mu``, the dual of ``h >= z`` over the entry's backward coefficient) and lower
``pieces`` (of each open group, the piece whose row ``y >= x_j`` has the largest dual).
Only these proposals leave this module: the exact bound (:mod:`.bounds`) decides.

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
    """Rows ``G v <= h`` gathered as sparse blocks, each remembered by name."""

    def __init__(self, ncol):
        self.blocks, self.tops, self.n, self.ncol, self.named = [], [], 0, ncol, {}

    def add(self, name, G, h):
        G = sp.csr_matrix(G)
        if G.shape[0] == 0:
            return
        self.named[name] = (self.n, G.shape[0])
        self.blocks.append(G)
        self.tops.append(np.asarray(h, dtype=float))
        self.n += G.shape[0]

    def matrix(self):
        return sp.vstack(self.blocks).tocsr() if self.blocks else sp.csr_matrix((0, self.ncol)), \
            np.concatenate(self.tops) if self.tops else np.zeros(0)


def multipliers(fnet, fb, sides, winners, ay, ax, rhs, reach=None):
    """The LP's multipliers for ``ay . y + ax . x`` on the node (module docstring), or None
    when the LP fails."""
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
    rows = _Rows(ncol)
    E = sp.hstack([sp.identity(n, format="csr"), sp.csr_matrix((n, ncol - n))]).tocsr()
    e = np.zeros(n)
    for k, fop in enumerate(fnet.ops):
        st = fb.states[k]
        if st is None:
            E = (fop.W @ E).tocsr()
            e = fop.W @ e + fop.b
            continue
        start, idx = cols[k]
        if st.op == "relu":
            width = len(e)
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
    G, h = rows.matrix()
    lo = np.r_[fb.lo, np.zeros(ncol - n)]
    hi = np.r_[fb.hi, np.full(ncol - n, np.inf)]
    for k, (start, idx) in cols.items():   # a group's y has no sign: its bounds are the group's
        st = fb.states[k]
        if st.op == "max" and len(idx):
            lo[start:start + len(idx)] = -np.inf
    status, value, duals = _lp(c, (G.indptr, G.indices, G.data), np.full(len(h), -np.inf), h, lo, hi)
    scale = 1.0
    if status == "infeasible":
        split_rows = [r for name, r in rows.named.items() if name[0] in ("beta", "lambda")]
        if not split_rows:
            return None
        slack = np.zeros(len(h))
        for start, m in split_rows:
            slack[start:start + m] = -1.0
        G2 = sp.hstack([G, sp.csr_matrix(slack[:, None])]).tocsr()
        status, s, duals = _lp(np.r_[np.zeros(ncol), 1.0], (G2.indptr, G2.indices, G2.data), np.full(len(h), -np.inf),
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
    return _backward_multipliers(fnet, fb, sides, winners, ay, rows.named, cols, dual, value)


def _backward_multipliers(fnet, fb, sides, winners, ay, named, cols, dual, value):
    """The LP's duals as a backward pass's multipliers (module docstring)."""
    from .ops.max_groups import float_backward

    out = Multipliers(value)
    C = np.asarray([ay], dtype=float)
    for k in range(len(fnet.ops) - 1, -1, -1):
        fop, st = fnet.ops[k], fb.states[k]
        if st is None:
            C = (fop.WT @ C.T).T
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
            C = np.maximum(C, 0.0) * alphas + np.minimum(C, 0.0) * st.aU
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
