"""Cross-validation cost: where the time of ``crossvalidate`` goes, as ratios to the
float run it checks, measured in one process.

Net: the real ACAS Xu network 1_1 (5 -> 6 x 50 ReLU -> 5), its float32 weights read
exactly from the .onnx file, 1000 random float32 points of its input box. Parts: the
numpy float32 trace (the baseline), the exact trace (common-denominator integers),
the comparison (exact errors and ULPs) and the rigorous error bound.
Run: ``python -m benchmarks.bench_crossval``.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

ACAS = Path(__file__).resolve().parents[2] / "shared" / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1"


def _time(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def run(n_points: int = 1000) -> dict:
    import numpy as np

    from symrel.crossval.compare import CrossvalReport, _compare
    from symrel.crossval.error_bound import forward_error_bounds
    from symrel.crossval.points import PointSet, random_points
    from symrel.exact import from_columns, ground_types
    from symrel.interop.floats import FORMATS
    from symrel.interop.nnet import load_nnet
    from symrel.interop.numpy_export import NumpyModel
    from symrel.interop.onnx_import import read_onnx
    from symrel.interop.exact_trace import exact_trace

    fmt = FORMATS["float32"]
    net = read_onnx(ACAS.with_suffix(".onnx")).model
    box = load_nnet(ACAS.with_suffix(".nnet")).normalised_input_box()
    pts = random_points(box, n_points, random.Random(0), fmt)
    X = np.array([[float(v) for v in p] for p in pts])
    runner = NumpyModel(net, "float32")
    t_float, trace = _time(lambda: runner.trace(X))
    t_exact, exact = _time(lambda: exact_trace(net, pts))
    rep = CrossvalReport("relu", "numpy", "float32", "exact", PointSet(pts, ["random"] * n_points), [], [])
    t_cmp, _ = _time(lambda: _compare(rep, exact, trace, fmt))
    t_bound, _ = _time(lambda: forward_error_bounds(runner.program, runner.stages, from_columns(pts, 5), trace, fmt))
    return {"points": n_points, "ground_types": ground_types(), "float_s": t_float, "exact_s": t_exact,
            "compare_s": t_cmp, "bound_s": t_bound}


def main():
    r = run()
    base = r["float_s"]
    print(f"ACAS Xu 1_1, {r['points']} float32 points  [ground types: {r['ground_types']}]")
    print(f"  numpy float32 trace (baseline): {base * 1e3:9.2f} ms")
    for key, label in (("exact_s", "exact trace"), ("compare_s", "exact errors + ULPs"), ("bound_s", "rigorous bound")):
        print(f"  {label + ':':31} {r[key] * 1e3:9.1f} ms  = {r[key] / base:8.0f} x the float run")


if __name__ == "__main__":
    main()
