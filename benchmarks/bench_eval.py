"""Exact batch evaluation of a maxout net: symrel (DomainMatrix over QQ) against a plain
``fractions.Fraction`` list implementation and a numpy float64 evaluation, in one run.

Net: input dim 8, 3 layers of width 16, rank 4, weights p/q with |p|, q <= 100; 200 points.
Run: ``python -m benchmarks.bench_eval``.
"""

from __future__ import annotations

import random
import time
from fractions import Fraction

from symrel.exact import ground_types, to_fraction
from symrel.constructions.random import random_maxout_net, random_point


def fraction_eval(layers, readout, x):
    """The plain baseline: lists of Fractions, one point at a time."""
    h = x
    for units in layers:
        h = [max(sum((w * v for w, v in zip(ws, h)), Fraction(0)) + b for ws, b in unit) for unit in units]
    W, b = readout
    return [sum((w * v for w, v in zip(row, h)), Fraction(0)) + c for row, c in zip(W, b)]


def _best(fn, repeat=3):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, out


def run(seed: int = 0, n_points: int = 200, other_ground_types: bool = True) -> list[dict]:
    """Rows for the current ground types and, in subprocesses, for the other two."""
    rows = measure(seed, n_points)
    if other_ground_types:
        import json
        import os
        import subprocess
        import sys

        for gt in ("flint", "gmpy", "python"):
            if gt == rows[0]["ground_types"]:
                continue
            env = dict(os.environ, SYMPY_GROUND_TYPES=gt)
            code = f"import json; from benchmarks.bench_eval import measure; print(json.dumps(measure({seed}, {n_points})))"
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
            if out.returncode == 0:
                rows += json.loads(out.stdout.strip().splitlines()[-1])
    return rows


def measure(seed: int = 0, n_points: int = 200) -> list[dict]:
    rng = random.Random(seed)
    net = random_maxout_net(rng, 8, [16, 16, 16], rank=4, readout_dim=1, max_num=100, max_den=100)
    pts = [random_point(rng, 8, 100, 100) for _ in range(n_points)]
    layers = [[[([to_fraction(v) for v in w], to_fraction(c)) for w, c in u.pieces.exact_pieces()] for u in L.units] for L in net.layers]
    readout = ([[to_fraction(v) for v in r] for r, _ in net.readout.exact_pieces()], [to_fraction(c) for _, c in net.readout.exact_pieces()])
    fpts = [[to_fraction(v) for v in p] for p in pts]

    t_sym, out_sym = _best(lambda: net.evaluate_points(pts))
    t_frac, out_frac = _best(lambda: [fraction_eval(layers, readout, p) for p in fpts])
    assert [[to_fraction(v) for v in r] for r in out_sym] == out_frac, "exact results differ"
    rows = [{"benchmark": "exact batch evaluation (maxout 8-16x3-1, rank 4, 200 points)",
             "symrel_s": t_sym, "fraction_s": t_frac, "speedup_vs_fraction": t_frac / t_sym,
             "ground_types": ground_types()}]
    try:
        import numpy as np
    except ImportError:
        rows[0]["numpy_s"] = None
        return rows
    Ws = [[(np.array([[float(w) for w in ws] for ws, _ in u]), np.array([float(b) for _, b in u])) for u in units] for units in layers]
    RW = np.array([[float(v) for v in r] for r in readout[0]])
    Rb = np.array([float(v) for v in readout[1]])
    X = np.array([[float(v) for v in p] for p in fpts]).T

    def numpy_eval():
        H = X
        for units in Ws:
            H = np.stack([(W @ H + b[:, None]).max(axis=0) for W, b in units])
        return RW @ H + Rb[:, None]

    t_np, _ = _best(numpy_eval, repeat=10)
    rows[0]["numpy_s"] = t_np
    rows[0]["slowdown_vs_numpy"] = t_sym / t_np
    return rows


def main():
    for row in run(other_ground_types=False):
        print(f"{row['benchmark']}  [ground types: {row['ground_types']}]")
        print(f"  symrel (DomainMatrix/QQ): {row['symrel_s'] * 1e3:9.1f} ms")
        print(f"  plain Fraction lists:     {row['fraction_s'] * 1e3:9.1f} ms   symrel is {row['speedup_vs_fraction']:.1f}x faster")
        if row.get("numpy_s"):
            print(f"  numpy float64:            {row['numpy_s'] * 1e3:9.3f} ms   symrel is {row['slowdown_vs_numpy']:.0f}x slower (the cost of exactness)")


if __name__ == "__main__":
    main()
