"""The splits' beta multipliers (beta-CROWN), proposed by float LPs: proposals only.

Definition. On a node whose ReLU splits set neurons to ``z <= 0`` or ``z >= 0``, the lower
bound of a linear function of the outputs and inputs may add ``beta * z`` (side ``z <= 0``)
or ``-beta * z`` (side ``z >= 0``) for any ``beta >= 0``: the term is ``<= 0`` on the node's
part. The best betas are the duals of the split constraints in an LP; two are offered:
:func:`split_betas`, an LP in the inputs alone over the splits' linear forms (cheap, weak),
and :func:`network_multipliers`, the LP over the whole relaxed net (a few milliseconds on ACAS
Xu), which also gives each unstable neuron's lower slope ``alpha`` (the triangle relaxation:
the backward pass with its betas and slopes reaches its value). The engine asks the second
only where the first leaves a node open. The exact bounds
(:mod:`symrel.vnnlib.symbolic`) recompute every bound with the betas rounded to rationals:
nothing here is trusted.

Both LPs go to scipy's binding of HiGHS directly (:func:`_lp`), ``linprog`` where that
binding is missing.

>>> import pytest; _ = pytest.importorskip("scipy")
>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib.floatbounds import FloatBounds
>>> from symrel.vnnlib.symbolic import integer_net
>>> fb = FloatBounds(integer_net(ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]),
...                                          DenseLayer([[1, 1]], [0], "none")])))  # |x|
>>> run = fb.run([-1.0], [2.0], {(0, 0): 1})          # the part where x >= 0
>>> bt, lam = network_multipliers(fb, run, [(0, 0, 1)], [1.0], [0.0], 0.0)
>>> round(fb.lower(run, [1.0], [0.0])[0], 3), round(fb.lower(run, [1.0], [0.0], [(0, 0, 1, bt[0])])[0], 3)
(-1.0, 0.0)
>>> run = fb.run([-1.0], [2.0], {})                   # no split: the slopes alone
>>> _, lam = network_multipliers(fb, run, [], [1.0], [0.0], 0.0)
>>> alphas = {}
>>> round(fb.lower(run, [1.0], [0.0], lam=lam, alphas=alphas)[0], 3), sorted(alphas.values())
(0.0, [0.0, 0.0])
"""

from __future__ import annotations

try:  # the "numeric" extra; the engine imports this module only where numpy is installed
    import numpy as np
except ImportError:  # pragma: no cover - a core-only install (the doctest below skips there)
    np = None

from .floatbounds import FloatBounds, FloatRun


def _highs_binding():
    """scipy's own binding of HiGHS, or None (a private module: its absence is not an error)."""
    try:
        from scipy.optimize._highspy import _core
        return _core if hasattr(_core, "_Highs") else None
    except ImportError:  # pragma: no cover - an older or a newer scipy
        return None


def _lp(c, rows, row_lo, row_hi, lo, hi):
    """``min c . x`` over ``lo <= x <= hi``, ``row_lo <= G x <= row_hi`` (``rows``: ``G`` in
    compressed rows, ``(starts, columns, values)``), by HiGHS in float64: ``("optimal", value,
    duals)`` (one dual per row: ``<= 0`` where the upper side binds, ``>= 0`` the lower),
    ``("infeasible", None, None)``, or ``(None, None, None)`` when it fails. Proposals only.
    The LP goes to scipy's binding of HiGHS directly: ``linprog`` checks its options and
    arguments on each call, about 1 ms, five times the solve of the splits' LPs;
    ``linprog`` where the binding is missing or refuses the model."""
    starts, cols, vals = rows
    m, n = len(row_lo), len(c)
    hc = _highs_binding()
    if hc is not None:
        try:
            lp = hc.HighsLp()
            lp.num_col_, lp.num_row_ = n, m
            lp.col_cost_ = np.asarray(c, dtype=float)
            lp.col_lower_, lp.col_upper_ = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
            lp.row_lower_, lp.row_upper_ = np.asarray(row_lo, dtype=float), np.asarray(row_hi, dtype=float)
            A = hc.HighsSparseMatrix()
            A.format_, A.num_col_, A.num_row_ = hc.MatrixFormat.kRowwise, n, m
            A.start_ = np.asarray(starts, dtype=np.int32)
            A.index_ = np.asarray(cols, dtype=np.int32)
            A.value_ = np.asarray(vals, dtype=float)
            lp.a_matrix_ = A
            solver = hc._Highs()
            solver.setOptionValue("output_flag", False)
            solver.passModel(lp)
            solver.run()
            status = solver.modelStatusToString(solver.getModelStatus())
            if status == "Optimal":
                sol = solver.getSolution()
                return "optimal", float(np.dot(c, sol.col_value)), np.array(sol.row_dual, dtype=float)
            if status == "Infeasible":
                return "infeasible", None, None
            return None, None, None
        except Exception:  # pragma: no cover - a binding that changed: linprog below
            pass
    try:
        from scipy.optimize import linprog
        from scipy.sparse import csr_matrix
    except ImportError:  # pragma: no cover
        return None, None, None
    G = csr_matrix((vals, cols, starts), shape=(m, n))
    row_lo, row_hi = np.asarray(row_lo, dtype=float), np.asarray(row_hi, dtype=float)
    eq = row_lo == row_hi
    up = ~eq & np.isfinite(row_hi)
    dn = ~eq & np.isfinite(row_lo)
    A_ub = G[np.nonzero(up)[0]] if not dn.any() else _vstack(G[np.nonzero(up)[0]], -G[np.nonzero(dn)[0]])
    b_ub = np.r_[row_hi[up], -row_lo[dn]]
    try:
        res = linprog(c, A_ub=A_ub if A_ub.shape[0] else None, b_ub=b_ub if len(b_ub) else None,
                      A_eq=G[np.nonzero(eq)[0]] if eq.any() else None, b_eq=row_hi[eq] if eq.any() else None,
                      bounds=list(zip(np.asarray(lo).tolist(), np.asarray(hi).tolist())), method="highs")
    except ValueError:  # pragma: no cover
        return None, None, None
    if res.status != 0:
        return ("infeasible", None, None) if res.status == 2 else (None, None, None)
    duals = np.zeros(m)
    k = int(up.sum())
    duals[up] = res.ineqlin.marginals[:k]
    duals[dn] = -res.ineqlin.marginals[k:]
    if eq.any():
        duals[eq] = res.eqlin.marginals
    return "optimal", float(res.fun), duals


def _vstack(a, b):
    from scipy.sparse import vstack
    return vstack([a, b]).tocsr()


def _dense_lp(c, G, h, lo, hi):
    """:func:`_lp` with the rows ``G x <= h`` given as a dense matrix."""
    m, n = G.shape
    return _lp(c, (np.arange(0, m * n + 1, n), np.tile(np.arange(n), m), np.ravel(G)), np.full(m, -np.inf), h, lo, hi)


def _one_row_beta(A, g, h, lo, hi):
    """The optimal ``beta >= 0`` of the dual of ``min A x`` over the box ``[lo, hi]`` with one
    row ``g x <= h``: the maximum of the concave piecewise-linear ``phi(beta) = min_box (A +
    beta g) x - beta h``, found by walking its breakpoints ``beta_i = -A_i / g_i`` upwards
    while its slope ``sum_i g_i x_i(beta) - h`` (``x_i`` at ``lo_i`` or ``hi_i`` by the sign
    of ``A_i + beta g_i``) stays positive. None when the slope stays positive after the last
    breakpoint: the row excludes the box (the LP's infeasible case).

    Why: most nodes whose splits' betas are asked have one split (60 % on ACAS Xu 3_3 prop_2),
    and this takes some 20 microseconds where the LP takes 500."""
    w = hi - lo
    # the slope just above beta = 0: x_i at lo_i where A_i + beta g_i > 0 there, else hi_i
    # (for A_i = 0 the sign of g_i decides)
    slope = float(g @ np.where(A > 0, lo, np.where(A < 0, hi, np.where(g > 0, lo, hi)))) - h
    if slope <= 0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        at = np.where(g != 0, -A / np.where(g != 0, g, 1.0), np.inf)
    # past its breakpoint (at > 0; one at 0 is in the slope above) coordinate i's slope term drops by |g_i| w_i
    order = [i for i in np.argsort(at, kind="stable") if 0 < at[i] < np.inf]
    for i in order:
        slope -= abs(float(g[i])) * float(w[i])
        if slope <= 0:
            return float(at[i])
    return None


def split_betas(fb: FloatBounds, run: FloatRun, splits, A, c):
    """Betas (floats >= 0, one per split ``(k, i, phase)``) proposed for the lower bound of the
    form ``A x + c`` on the box where the splits' phases hold: the dual values of the LP
    ``min A x + c`` over the box with ``U_z(x) >= 0`` (phase 1) or ``L_z(x) <= 0`` (phase 0)
    for each split (``L_z``, ``U_z``: the run's forms). None when scipy is absent or the LP
    fails; a large multiple of the infeasibility duals when the constraints exclude the box.
    Cheap (an LP in ``x`` alone) and weaker than :func:`network_betas`, which the engine asks
    only where these leave a node open."""
    rows, rhs = [], []
    for k, i, ph in splits:
        Al, cl, Au, cu = run.forms[k]
        if ph == 1:  # -(Au x + cu) <= 0
            rows.append(-Au[i])
            rhs.append(cu[i])
        else:  # Al x + cl <= 0
            rows.append(Al[i])
            rhs.append(-cl[i])
    A_ub = np.array(rows)
    b_ub = np.array(rhs)
    if len(rows) == 1:
        beta = _one_row_beta(np.asarray(A, dtype=float), A_ub[0], float(b_ub[0]), run.lo, run.hi)
        if beta is not None:
            return [beta]
    status, _, duals = _dense_lp(A, A_ub, b_ub, run.lo, run.hi)
    if status == "optimal":
        return [max(0.0, -float(v)) for v in duals]
    if status != "infeasible":
        return None
    # infeasible: the duals of min s with A_ub x - s <= b_ub prove it; scaled so they dominate A
    n = len(A)
    A2 = np.hstack([A_ub, -np.ones((len(rows), 1))])
    status, fun, duals = _dense_lp(np.r_[np.zeros(n), 1.0], A2, b_ub, np.r_[run.lo, -np.inf], np.r_[run.hi, np.inf])
    if status != "optimal" or fun <= 0:
        return None
    y = np.maximum(0.0, -duals)
    width = np.abs(A) @ (run.hi - run.lo) + 1.0
    scale = 2.0 * float(width) / float(fun)
    return [float(v) * scale for v in y]


def network_multipliers(fb: FloatBounds, run: FloatRun, splits, ay, ax, rhs):
    """``(betas, lam)`` for the lower bound of ``ay . y + ax . x`` on the box where the splits
    hold, optimal for the run's intermediate bounds: the duals of the LP over the whole relaxed
    net (``x`` in the box, ``z = W h + b``, for each unstable neuron the triangle ``h >= 0``,
    ``h >= z``, ``h <= aU z + tU``, ``h = z`` or ``h = 0`` for the settled and the split ones,
    and each split's ``z >= 0`` or ``z <= 0``). ``betas``: one float >= 0 per split ``(k, i,
    phase)``, the duals of the split rows; ``lam``: ``{k: array}``, per ReLU layer the duals of
    the rows ``h >= z`` (NaN where a neuron has none), from which :meth:`FloatBounds.lower`
    derives each unstable neuron's lower slope ``alpha = lam / mu`` in ``[0, 1]`` (the rest of
    its coefficient ``mu`` is the dual of ``h >= 0``). The backward pass with these betas and
    slopes is the LP's Lagrangian dual, so it reaches the LP's value.

    Why the whole net: an LP over the splits' linear forms in ``x`` alone (:func:`split_betas`)
    is much weaker: of 36 nodes it left open on ACAS Xu 3_3 prop_2, 17 close with the network
    LP's betas, none with its. Why the triangle, not the run's own lower line: of 150 nodes
    left open by the search on 3_3 prop_2 with the network LP's betas over the run's lines, the
    triangle's betas and slopes close 36.

    When the splits contradict one another (the LP is empty): the duals of the least violation
    of the splits, scaled to exceed ``rhs`` minus the plain bound. None when the LP fails.

    Cost: one LP of ``n + unstable`` columns and about ``3 * unstable`` rows, after ``layers``
    products of a layer's matrix with the substituted maps; about a millisecond on ACAS Xu."""
    where = {(k, i): (j, ph) for j, (k, i, ph) in enumerate(splits)}
    n = len(run.lo)
    # the LP in the inputs and one column per unstable neuron (its h): a settled or split
    # neuron's h is an affine map of these, substituted (with them the LP is some 40 columns
    # on ACAS Xu, against 600 with a column per neuron, and ten times faster)
    settled = [((aL == 0) & (aU == 0) & (tU == 0), (aL == 1) & (aU == 1) & (tU == 0)) for aL, aU, tU in run.relax]
    total = n + sum(int((~zero & ~same).sum()) for zero, same in settled)
    H = np.zeros((n, total + 1))  # the layer's h as rows over (x, h columns, 1)
    H[:, :n] = np.eye(n)
    ncol = n
    rows, tops = [], []  # rows over (x, h columns) with their right-hand sides: G v <= tops
    split_rows = []  # (row index, split index)
    lam_rows = []  # (relu layer, neuron, row index) of the rows h >= z
    widths = []
    k = 0
    last = len(fb.layers) - 1
    for li, (W, b, relu) in enumerate(fb.layers):
        if li == last and not relu:
            break
        Z = W @ H
        Z[:, -1] += b
        if not relu:
            H = Z
            continue
        aU, tU = run.relax[k][1], run.relax[k][2]
        zero, same = settled[k]
        H = np.where(same[:, None], Z, 0.0)
        for i in np.nonzero(~zero & ~same)[0]:  # h >= z and h <= aU z + tU (h >= 0: the column's bound)
            H[i, ncol] = 1.0
            lam_rows.append((k, int(i), len(rows)))
            r = Z[i].copy()
            r[ncol] -= 1.0
            rows.append(r[:-1])
            tops.append(-r[-1])
            r = -aU[i] * Z[i]
            r[ncol] += 1.0
            rows.append(r[:-1])
            tops.append(tU[i] - r[-1])
            ncol += 1
        for i in range(len(Z)):
            if (k, i) in where:  # -z <= 0 (z >= 0) or z <= 0
                j, ph = where[(k, i)]
                split_rows.append((len(rows), j))
                r = -Z[i] if ph == 1 else Z[i]
                rows.append(r[:-1])
                tops.append(-r[-1])
        widths.append(len(Z))
        k += 1
    Wo, _, relu = fb.layers[-1]
    out = H if relu else Wo @ H
    c = np.asarray(ay, dtype=float) @ out[:, :-1]
    c[:n] += np.asarray(ax, dtype=float)
    G = np.array(rows).reshape(len(rows), ncol)
    h = np.array(tops, dtype=float)
    lo = np.r_[np.asarray(run.lo, dtype=float), np.zeros(ncol - n)]
    hi = np.r_[np.asarray(run.hi, dtype=float), np.full(ncol - n, np.inf)]

    def multipliers(duals, scale):
        betas = [0.0] * len(splits)
        for r, j in split_rows:
            betas[j] = max(0.0, -float(duals[r])) * scale
        lam = {k: np.full(w, np.nan) for k, w in enumerate(widths)}
        for k, i, r in lam_rows:
            lam[k][i] = max(0.0, -float(duals[r])) * scale
        return betas, lam

    status, _, duals = _dense_lp(c, G, h, lo, hi)
    if status == "optimal":
        return multipliers(duals, 1.0)
    if status != "infeasible" or not splits:
        return None
    # the least violation s of the splits (each split row minus s): its duals, scaled
    slack = np.zeros((len(h), 1))
    slack[[r for r, _ in split_rows]] = -1.0
    status, s, duals = _dense_lp(np.r_[np.zeros(ncol), 1.0], np.hstack([G, slack]), h, np.r_[lo, 0.0],
                                 np.r_[hi, np.inf])
    if status != "optimal" or s <= 0:
        return None
    plain = fb.lower(run, ay, ax)[0]
    return multipliers(duals, 4.0 * (abs(float(rhs) - plain) + 1.0) / s)
