"""Exact region enumeration (symrel.regions) against a float enumeration of the same net,
in one run: cells per second and their ratio, so the cost of exactness is a number.

* a random 2-input ReLU net 2-16-16-1 by default (weights p/q, |p| <= 20, q <= 10) on
  [-4, 4]^2; ``--full`` (or ``run(widths=(32, 32))``) takes 2-32-32-1, about 2,000
  regions, which took over 10 minutes of a loaded 2-core machine inside
  ``python -m benchmarks``, too slow for a regular run;
* an ACAS Xu slice (inputs 1 and 2 vary over a sub-box, the others fixed at the
  centre of the normalised input box), when ../shared/data/acasxu is present;
* the ACAS Xu survey: every pair of inputs as a 2-D slice of half-width ``w`` around the
  centre, and every axis line through the centre; the slice with the most regions is
  reported with its count and time.

Exact runs: every outcome decided by the exact LP (``geometry="lp"``, as the
certificates need), and by exact polygon clipping (``geometry="polygon"``, the
default for counting 1-D/2-D inputs). The float baseline is the LP search (witness
test first, box bound, then one LP per outcome the witness does not settle, same
pruning) with numpy forms and HiGHS (scipy) LPs with a 1e-9 tolerance; its count is
compared with the exact one. A second float baseline runs symrel's own simplex in
Python floats (the same code as the exact LP, without exactness), so the ratio
against it isolates the cost of exact arithmetic from scipy's per-call overhead.
Run: ``python -m benchmarks.bench_regions [--full] [--survey [--plot DIR]]``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

from symrel.exact import Q, ground_types, rows, to_float
from symrel.models import Box, DenseLayer, ReLUNet
from symrel.regions import count_regions, restrict_to_affine_slice

ACAS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet"


def random_relu_net(seed: int, widths, d: int = 2) -> ReLUNet:
    rng = random.Random(seed)
    layers, n = [], d
    for w in widths:
        W = [[Q(rng.randint(-20, 20), rng.randint(1, 10)) for _ in range(n)] for _ in range(w)]
        b = [Q(rng.randint(-10, 10), rng.randint(1, 10)) for _ in range(w)]
        layers.append(DenseLayer(W, b))
        n = w
    layers.append(DenseLayer([[Q(rng.randint(-5, 5)) for _ in range(n)]], [Q(0)], "none"))
    return ReLUNet(d, layers)


# -- the float baseline -----------------------------------------------------------------------


def _python_float_lp(M, d, eps):
    """max t s.t. M[:, :d] x + t <= -M[:, d], t <= 1 with symrel's simplex run in floats."""
    from symrel.exact.float_simplex import FloatSimplex as _FloatSimplex
    from symrel.exact.simplex import RevisedSimplex as _RevisedSimplex

    lp = _FloatSimplex.__new__(_FloatSimplex)
    _RevisedSimplex.__init__(lp, [list(map(float, r[:d])) for r in M], [float(-r[d]) for r in M], [], [],
                             [True] * len(M))
    lp.drive_out_artificials()
    status, pi = lp.solve(max_pivots=10_000)
    if status != "optimal" or pi[d] <= eps:
        return None
    return pi[:d]


def float_count(net: ReLUNet, box: Box, eps: float = 1e-9, solver: str = "highs") -> int:
    """Open activation cells of a ReLU net over a box, in floating point; LPs by HiGHS
    (scipy) or by symrel's own simplex run in Python floats (``solver="python"``)."""
    import numpy as np
    from scipy.optimize import linprog

    d = net.input_dim
    layers = [(np.array([[to_float(v) for v in r] for r in rows(L.affine.exact_W)]),
               np.array([to_float(r[0]) for r in rows(L.affine.exact_b)]), L.activation) for L in net.layers]
    lo = np.array([to_float(a) for a, _ in box.bounds])
    hi = np.array([to_float(b) for _, b in box.bounds])
    dom = []
    for i in range(d):
        e = np.zeros(d + 1)
        e[i], e[d] = 1.0, -hi[i]
        dom.append(e)
        e = np.zeros(d + 1)
        e[i], e[d] = -1.0, lo[i]
        dom.append(e)

    def lp(rws):
        if solver == "python":
            p = _python_float_lp(rws, d, eps)
            return None if p is None else np.array(p)
        M = np.array(rws)
        A = np.hstack([M[:, :d], np.ones((len(rws), 1))])
        c = np.zeros(d + 1)
        c[d] = -1.0
        res = linprog(c, A_ub=A, b_ub=-M[:, d], bounds=[(None, None)] * d + [(None, 1.0)], method="highs")
        if res.status != 0 or -res.fun <= eps:
            return None
        return res.x[:d]

    def forms_after(k, F):
        W, b, _ = layers[k]
        G = W @ F
        G[:, d] += b
        return G

    cells = 0
    start = np.hstack([np.eye(d), np.zeros((d, 1))])
    w0 = lp(dom)
    stack = [(0, 0, forms_after(0, start), [], list(dom), len(dom), w0)]
    while stack:
        k, j, pre, signs, rws, n_active, w = stack.pop()
        if layers[k][2] == "none" or j == pre.shape[0]:
            if layers[k][2] == "relu":
                F = pre * np.array([1.0 if s else 0.0 for s in signs])[:, None]
                if k + 1 < len(layers):
                    stack.append((k + 1, 0, forms_after(k + 1, F), [], rws, n_active, w))
                    continue
            cells += 1
            continue
        z = pre[j]
        feasible = []
        for positive, row in ((True, -z), (False, z)):
            if not row[:d].any():
                if row[d] < 0:
                    feasible.append((positive, row, w))
                continue
            if row[:d] @ w + row[d] < -eps:
                feasible.append((positive, row, w))
                continue
            lo_b = row[d] + np.sum(np.where(row[:d] > 0, row[:d] * lo, row[:d] * hi))
            if lo_b >= 0:
                continue
            p = lp(rws[:n_active] + [row])
            if p is not None:
                feasible.append((positive, row, p))
        split = len(feasible) > 1
        for positive, row, p in reversed(feasible):
            new_rows = (rws[:n_active] + [row]) if split else rws
            stack.append((k, j + 1, pre, signs + [positive], new_rows, len(new_rows) if split else n_active, p))
    return cells


def _compare(name, net, box):
    row = {"benchmark": name, "ground_types": ground_types()}
    counts = {}
    for geometry in ("lp", "polygon"):
        t = time.perf_counter()
        res = count_regions(net, box, kind="activation", geometry=geometry)
        dt = time.perf_counter() - t
        counts[geometry] = res.count
        row.update({f"exact_{geometry}_cells": res.count, f"exact_{geometry}_s": dt,
                    f"exact_{geometry}_cells_per_s": res.count / dt})
        if geometry == "lp":
            row["exact_lps"] = res.stats.get("lps")
    try:
        for solver in ("highs", "python"):
            t = time.perf_counter()
            n_float = float_count(net, box, solver=solver)
            t_float = time.perf_counter() - t
            row.update({f"float_{solver}_cells": n_float, f"float_{solver}_s": t_float,
                        f"float_{solver}_cells_per_s": n_float / t_float,
                        f"exact_lp_time_over_float_{solver}": row["exact_lp_s"] / t_float,
                        f"exact_polygon_time_over_float_{solver}": row["exact_polygon_s"] / t_float,
                        f"float_{solver}_count_agrees": n_float == counts["lp"]})
    except ImportError:
        row["float_highs_cells"] = None
    assert counts["lp"] == counts["polygon"], "the two exact geometries disagree"
    return row


def acas_slice(i: int, j: int, half_width):
    from symrel.interop.nnet import load_nnet

    f = load_nnet(ACAS)
    net = f.net()
    c = f.normalised_input_box().center()
    dirs = [[1 if k == i else 0 for k in range(5)], [1 if k == j else 0 for k in range(5)]]
    base = [Q(0) if k in (i, j) else c[k] for k in range(5)]
    s = restrict_to_affine_slice(net, base, dirs)
    return s, Box([[c[i] - half_width, c[i] + half_width], [c[j] - half_width, c[j] + half_width]])


def acas_line(i: int, half_width):
    from symrel.interop.nnet import load_nnet

    f = load_nnet(ACAS)
    net = f.net()
    c = f.normalised_input_box().center()
    base = [Q(0) if k == i else c[k] for k in range(5)]
    s = restrict_to_affine_slice(net, base, [[1 if k == i else 0 for k in range(5)]])
    return s, Box([[c[i] - half_width, c[i] + half_width]])


def survey(half_width=Q(1, 20), line_half_width=Q(1, 4), plot_dir=None) -> list[dict]:
    """Linear regions of every 2-D axis slice and every axis line of ACAS Xu 1_1."""
    out = []
    for i in range(5):
        for j in range(i + 1, 5):
            s, box = acas_slice(i, j, half_width)
            res = count_regions(s, box)
            out.append({"slice": f"inputs ({i}, {j}), half-width {half_width}", "linear_regions": res.count,
                        "cells": res.activation_cells, "seconds": round(res.seconds, 2)})
            if plot_dir is not None:
                from symrel.regions.plot import plot_regions

                plot_regions(res, Path(plot_dir) / f"acasxu_slice_{i}{j}.png",
                             title=f"ACAS Xu 1_1, inputs {i},{j} (others at centre): {res.count} linear regions")
    for i in range(5):
        s, box = acas_line(i, line_half_width)
        res = count_regions(s, box)
        out.append({"slice": f"line along input {i}, half-width {line_half_width}", "linear_regions": res.count,
                    "cells": res.activation_cells, "seconds": round(res.seconds, 2)})
    return out


def run(seed: int = 3, widths=(16, 16)) -> list[dict]:
    name = "-".join(map(str, (2, *widths, 1)))
    rows_ = [_compare(f"random ReLU net {name} on [-4,4]^2", random_relu_net(seed, list(widths)), Box([[-4, 4], [-4, 4]]))]
    if ACAS.exists():
        s, box = acas_slice(0, 1, Q(1, 20))
        rows_.append(_compare("ACAS Xu 1_1 slice (inputs 0, 1; half-width 1/20)", s, box))
    return rows_


if __name__ == "__main__":  # pragma: no cover
    for r in run(widths=(32, 32) if "--full" in sys.argv else (16, 16)):
        print(r)
    if "--survey" in sys.argv:
        rows_ = survey(plot_dir=sys.argv[sys.argv.index("--plot") + 1] if "--plot" in sys.argv else None)
        for r in rows_:
            print(r)
        best = max((r for r in rows_ if "line" not in r["slice"]), key=lambda r: r["linear_regions"])
        print("most regions:", best)
