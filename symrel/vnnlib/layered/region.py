"""A counterexample on the linear region of a refuted float proposal.

A float attack proposes a point whose float margin says it is unsafe; exact evaluation may
refute it. Where the counterexamples form a set no double reaches (the outputs touch the
unsafe condition's bound at a single point such as ``(1/3, 1/5)``), halving the box never
lands on it.

Definition. The *linear region* of a point ``x`` is the polyhedron of the points where every
ReLU entry has the phase it has at ``x`` (active where its input is ``>= 0``) and every max
group the largest piece it has at ``x`` (the first of the largest): on it the net is affine.
:func:`region_point` looks, in the node's box, for a point of that region where every atom of
one unsafe disjunct holds (and the input disjunct's constraints beyond the box):

* on a small net (:data:`EXACT_ROWS`), exactly: the region's rows and the outputs' affine
  forms are propagated in exact rationals and the exact LP (:func:`symrel.exact.lp.feasibility`)
  answers, with a witness point that is a counterexample;
* on a larger one, HiGHS in floats on the same rows, maximising the least slack: a
  proposal, kept by the caller only after exact evaluation.

Cost: one pass of affine forms over the net (exact: ``inputs`` rationals per entry; floats:
sparse products), then one LP per unsafe disjunct.

>>> from symrel.exact import Q
>>> from symrel.models.layered import LayeredNet, Relu, SparseAffine
>>> from symrel.vnnlib import LinearAtom
>>> from symrel.vnnlib.layered.network import prepare
>>> net = LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]], ["-1/3", "1/3"]), Relu(2), SparseAffine([[(0, 1), (1, 1)]], [-1])])
>>> touch = [[LinearAtom((Q(0),), (Q(1),), Q(-1))]]        # |x - 1/3| - 1 <= -1: only at 1/3
>>> [str(v) for v in region_point(prepare(net), None, [Q(3333, 10000)], [Q(0)], [Q(1)], touch)]
['1/3']
"""

from __future__ import annotations

from ...exact import Q, ZERO

#: the exact LP runs when the region has at most this many rows and the net this many inputs
EXACT_ROWS = 4000
EXACT_INPUTS = 64


def _exact_pattern(enet, x):
    """The region's rows (``r . (x, 1) <= 0``, exact) and the outputs' forms, at the exact point ``x``."""
    n = enet.input_dim
    forms = [[Q(int(i == k)) for i in range(n)] + [ZERO] for k in range(n)]
    rows = []
    for kind, op in enet.ops:
        if kind == "affine":
            new = []
            for r, c in zip(op.rows, op.b):
                f = [ZERO] * n + [Q(c, op.D)]
                for j, w in r:
                    wq = Q(w, op.D)
                    fj = forms[j]
                    for m in range(n + 1):
                        if fj[m]:
                            f[m] += wq * fj[m]
                new.append(f)
            forms = new
        elif kind == "relu":
            new = []
            for f in forms:
                v = sum((f[m] * x[m] for m in range(n)), f[n])
                if v >= 0:
                    rows.append([-a for a in f])
                    new.append(f)
                else:
                    rows.append(list(f))
                    new.append([ZERO] * (n + 1))
            forms = new
        else:
            new = []
            for group in op:
                vals = [sum((forms[j][m] * x[m] for m in range(n)), forms[j][n]) for j in group]
                p = max(range(len(group)), key=lambda q: (vals[q], -q))
                fp = forms[group[p]]
                for q, j in enumerate(group):
                    if q != p:
                        rows.append([a - b for a, b in zip(forms[j], fp)])
                new.append(fp)
            forms = new
    return rows, forms


def _rows_count(enet) -> int:
    """The rows of a linear region: one per ReLU entry, one per piece of a group but its largest."""
    return sum(op if kind == "relu" else sum(len(g) - 1 for g in op) if kind == "max" else 0 for kind, op in enet.ops)


def region_point(enet, fnet, x, lo, hi, conjunctions, extra=(), budget=None):
    """A point of the box ``[lo, hi]`` in the linear region of ``x`` where every atom of one
    of ``conjunctions`` holds, and every atom of ``extra``: exact on a small net, a float
    proposal (a tuple of floats) on a larger one (module docstring); None when none is found."""
    n = enet.input_dim
    if n <= EXACT_INPUTS and _rows_count(enet) <= EXACT_ROWS:
        from ...exact.lp import feasibility

        rows, outputs = _exact_pattern(enet, [Q(*v.as_integer_ratio()) if isinstance(v, float) else Q(v) for v in x])
        A = [r[:n] for r in rows]
        b = [-r[n] for r in rows]
        for k in range(n):
            A += [[Q(int(i == k)) for i in range(n)], [Q(-int(i == k)) for i in range(n)]]
            b += [Q(hi[k]), Q(-lo[k])]
        for a in extra:
            A.append([Q(v) for v in a.x])
            b.append(Q(a.rhs))
        for conj in conjunctions:
            A2, b2 = list(A), list(b)
            for a in conj:
                A2.append([Q(a.x[m]) + sum((Q(a.y[j]) * outputs[j][m] for j in range(len(outputs))), ZERO)
                           for m in range(n)])
                b2.append(Q(a.rhs) - sum((Q(a.y[j]) * outputs[j][n] for j in range(len(outputs))), ZERO))
            res = feasibility(A2, b2, budget=budget)
            if res.feasible:
                return tuple(res.point)
        return None
    if fnet is None:
        return None
    return _float_region_point(fnet, [float(v) for v in x], lo, hi, conjunctions, extra)


def _float_region_point(fnet, x, lo, hi, conjunctions, extra):
    import numpy as np
    import scipy.sparse as sp

    n = len(x)
    E = sp.hstack([sp.identity(n, format="csr"), sp.csr_matrix((n, 1))]).tocsr()   # columns: x, then s
    e = np.zeros(n)
    X = np.asarray(x, dtype=float)
    v = X.copy()
    blocks, tops = [], []
    for fop, kind in zip(fnet.ops, fnet.kinds):
        if kind == "affine":
            E = (fop.W @ E).tocsr()
            e = fop.W @ e + fop.b
            v = fop.W @ v + fop.b
        elif kind == "relu":
            act = v >= 0
            sg = np.where(act, -1.0, 1.0)
            blocks.append(sp.diags(sg) @ E)
            tops.append(-sg * e)
            E = (sp.diags(act.astype(float)) @ E).tocsr()
            e = np.where(act, e, 0.0)
            v = np.where(act, v, 0.0)
        else:
            V = np.where(fop.mask, v[fop.G], -np.inf)
            p = V.argmax(axis=1)
            top = fop.G[np.arange(len(p)), p]
            R = fop.G[fop.mask]
            T = np.repeat(top, fop.mask.sum(axis=1))
            keep = R != T
            blocks.append(E[R[keep]] - E[T[keep]])
            tops.append(e[T[keep]] - e[R[keep]])
            E, e, v = E[top], e[top], v[top]
    for a in extra:
        blocks.append(sp.csr_matrix(np.r_[[float(c) for c in a.x], 0.0][None]))
        tops.append(np.array([float(a.rhs)]))
    for conj in conjunctions:
        B, T = list(blocks), list(tops)
        for a in conj:
            ay = np.array([float(c) for c in a.y])
            row = np.asarray(ay @ E).ravel()
            row[:n] += np.array([float(c) for c in a.x])
            row[n] = 1.0                                        # + s: the atom's slack
            B.append(sp.csr_matrix(row[None]))
            T.append(np.array([float(a.rhs) - float(ay @ e)]))
        G = sp.vstack(B).tocsr()
        h = np.concatenate(T)
        c = np.zeros(n + 1)
        c[n] = -1.0                                             # max s
        got = _solve_point(c, G, h, lo, hi, n)
        if got is not None:
            return got
    return None


def _solve_point(c, G, h, lo, hi, n):
    """The optimal point of the LP of :func:`_float_region_point` (HiGHS through ``linprog``),
    when its least slack is not negative; None otherwise."""
    import numpy as np
    from scipy.optimize import linprog

    bounds = [(float(a), float(b)) for a, b in zip(lo, hi)] + [(None, 1.0)]
    res = linprog(c, A_ub=G, b_ub=h, bounds=bounds, method="highs")
    if res.status != 0 or res.x[n] < 0:
        return None
    return tuple(float(v) for v in np.clip(res.x[:n], [float(a) for a in lo], [float(b) for b in hi]))
