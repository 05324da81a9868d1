"""Certified output bounds of ACAS Xu networks over the input regions of properties 1 to 4 (symrel.bounds), against the range seen by sampling.

Each instance (network ``ACASXU_run2a_I_J``, the input region of ``prop_P``) runs
:func:`symrel.bounds` twice: without a budget (the bounds of the whole box, one propagation) and
with a time budget spent on branching (the whole call, the trusted check of the
``output-bounds`` certificate included, on the default pool of one worker per core). The
*sampled range* of each output is the least and greatest exact value at many points of the
box: the corners, and the points of a float grid search (numpy proposes, the chosen points
are evaluated exactly), so it lies inside the true range, and the certified bounds outside it.
A row gives, over the five outputs, the largest and the median ratio of the certified width
``upper - lower`` to the sampled width ``max - min`` (1 means exact), for the whole box and after
the budget, the bounds attained (of 10), the leaves and the times.

``python -m benchmarks`` runs networks 1_1 on the regions of properties 1, 3 and 4 and 2_1 on that
of property 2 (the same box as property 1's) with a budget of 20 s, or the instances named by
``SYMREL_BOUNDS`` (``props:nets:budget``) or ``SYMREL_BOUNDS_PAIRS`` (``net:prop,...``). Standalone: ``python -m benchmarks.bench_bounds --props 3 --nets 1_1
--budget 60`` prints each output's bounds, the sampled range and the points found. Needs
``../shared/data/vnncomp2021`` and onnx.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "vnncomp2021" / "acasxu"
#: float points tried per output and side by the sampling (the best few are evaluated exactly)
SAMPLES = 20_000
#: points of each float search evaluated exactly
EXACT_PER_SIDE = 8


def sampled_range(net, lo, hi, seed: int = 0):
    """Per output ``(least, greatest)`` exact value seen at points of the box: its corners, and
    for each output and side the :data:`EXACT_PER_SIDE` best of :data:`SAMPLES` uniform float
    points, refined by a few steps of projected sign-gradient descent in floats (proposals:
    every value in the result is an exact evaluation)."""
    import itertools

    import numpy as np

    from symrel.exact import Q, to_float

    flo = np.array([to_float(v) for v in lo])
    fhi = np.array([to_float(v) for v in hi])
    layers = [(np.array([[to_float(w) for w in r] for r in layer.affine.exact_W.to_list()]),
               np.array([to_float(r[0]) for r in layer.affine.exact_b.to_list()]), layer.activation == "relu")
              for layer in net.layers]

    def forward(X):
        for W, b, relu in layers:
            X = X @ W.T + b
            if relu:
                X = np.maximum(X, 0.0)
        return X

    def exact_point(row):
        return [min(max(Q(*float(v).as_integer_ratio()), a), b) for v, a, b in zip(row, lo, hi)]

    rng = np.random.default_rng(seed)
    X = flo + (fhi - flo) * rng.random((SAMPLES, len(lo)))
    Y = forward(X)
    points = [list(c) for c in itertools.product(*zip(lo, hi))]
    n_out = Y.shape[1]
    for j in range(n_out):
        for sign in (1.0, -1.0):
            best = X[np.argsort(sign * Y[:, j])[:EXACT_PER_SIDE]]
            step = (fhi - flo) / 8
            for _ in range(20):  # finite-difference sign descent of sign * Y_j, kept in the box
                grad = np.zeros_like(best)
                base = sign * forward(best)[:, j]
                for i in range(len(lo)):
                    moved = best.copy()
                    moved[:, i] = np.minimum(moved[:, i] + 1e-7 * (fhi[i] - flo[i] + 1e-12), fhi[i])
                    grad[:, i] = sign * forward(moved)[:, j] - base
                trial = np.clip(best - step * np.sign(grad), flo, fhi)
                better = sign * forward(trial)[:, j] < base
                best[better] = trial[better]
                step = step * 0.7
            points += [exact_point(row) for row in best]
    values = [net.evaluate_exact(x) for x in points]
    return [(min(v[j] for v in values), max(v[j] for v in values)) for j in range(n_out)]


def instance(net_name: str, prop: int, budget: float, detail: bool = False) -> dict:
    """One network and region: the bounds without and with the budget, against the sampled range."""
    import symrel
    from symrel.exact import to_float
    from symrel.verification.files import read_network
    from symrel.verification.output_bounds import read_region

    net = read_network(DATA / f"ACASXU_run2a_{net_name}_batch_2000.onnx")
    lo, hi, _, _ = read_region(DATA / f"prop_{prop}.vnnlib", net)
    t = time.perf_counter()
    sampled = sampled_range(net, lo, hi)
    sample_s = time.perf_counter() - t
    rough = symrel.bounds(net, list(zip(lo, hi)))
    tight = symrel.bounds(net, list(zip(lo, hi)), timeout=budget)

    def ratios(result):
        return [to_float(b.exact_upper - b.exact_lower) / max(1e-300, to_float(hi_s - lo_s))
                for b, (lo_s, hi_s) in zip(result.outputs, sampled)]

    r0, r1 = ratios(rough), ratios(tight)
    row = {"instance": f"{net_name} prop_{prop}", "budget s": budget,
           "whole box: width / sampled (max)": max(r0), "(median)": statistics.median(r0),
           "after the budget: width / sampled (max)": max(r1), "(median) ": statistics.median(r1),
           "attained": f"{tight.attained} of {2 * len(tight.outputs)}", "leaves": tight.stats.get("leaves"),
           "search s": tight.stats.get("search_seconds"), "check s": tight.stats.get("check_seconds"),
           "seconds": tight.stats.get("seconds"), "checked": tight.checked,
           "bounds of": "the whole box (no time to check the search's)" if tight.stage == "check" else "the search",
           "sampling s": round(sample_s, 1)}
    if detail:
        for b, (lo_s, hi_s) in zip(tight.outputs, sampled):
            print(f"  Y_{b.output}: certified [{to_float(b.exact_lower):.6g}, {to_float(b.exact_upper):.6g}]  "
                  f"found [{to_float(b.least.exact_y):.6g}, {to_float(b.greatest.exact_y):.6g}]  "
                  f"sampled [{to_float(lo_s):.6g}, {to_float(hi_s):.6g}]  "
                  f"whole box [{to_float(rough[b.output].exact_lower):.6g}, {to_float(rough[b.output].exact_upper):.6g}]",
                  flush=True)
    return row


def _parse(spec: str):
    props, nets, budget = spec.split(":")
    return [int(p) for p in props.split(",")], nets.split(","), float(budget)


#: the instances ``python -m benchmarks`` runs by default: ``net:prop`` (properties 1 and 2 share
#: their input region, so property 2's is taken on another network)
DEFAULT_PAIRS = "1_1:1,2_1:2,1_1:3,1_1:4"


def run():
    if not DATA.exists():
        return {"instance": "skipped: ../shared/data/vnncomp2021 absent"}
    spec = os.environ.get("SYMREL_BOUNDS")
    if spec:
        props, nets, budget = _parse(spec)
        pairs = [(n, p) for p in props for n in nets]
    else:
        budget = 20.0
        pairs = [(pn.split(":")[0], int(pn.split(":")[1])) for pn in
                 os.environ.get("SYMREL_BOUNDS_PAIRS", DEFAULT_PAIRS).split(",")]
    rows = []
    for n, p in pairs:
        rows.append(instance(n, p, budget))
        print(f"[bench_bounds] {rows[-1]}", file=sys.stderr, flush=True)
    return rows


def main(argv=None) -> int:  # pragma: no cover - a script
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_bounds")
    ap.add_argument("--props", default="3")
    ap.add_argument("--nets", default="1_1")
    ap.add_argument("--budget", type=float, default=20.0, help="seconds for each bounds call with branching")
    args = ap.parse_args(argv)
    print(f"load before: {os.getloadavg()[0]:.2f}, cores: {os.cpu_count()}", flush=True)
    for p in (int(v) for v in args.props.split(",")):
        for n in args.nets.split(","):
            print(f"{n} prop_{p}:", flush=True)
            print(instance(n, p, args.budget, detail=True), flush=True)
    print(f"load after: {os.getloadavg()[0]:.2f}", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
