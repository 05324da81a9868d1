"""Softmax-vs-hardmax bounds: interval backends side by side, and the certified lambda of
compiled Transformers of depth 1 to 4 checked at many points (random and near-tie).

1. Rigorous enclosure of a 64-score softmax gap: rational Taylor referee, mpmath.iv and
   flint.arb (when installed), times as ratios against mpmath.iv, all enclosing the value.
2. For compiled Transformers of depth 1..4 (2 inputs, 3 units of rank 3 per layer, box
   [-1,1]^2) and eps = 1/1000: the certified lambda, the time to certify it, the worst
   error observed at ``points`` points (mpmath, 50 digits), and bound / observed.
3. lambda against eps = 10^-1 .. 10^-6 for a max head (lambda * eps constant) and a
   margin-separated selection head (lambda growing by ln(10)/delta per decade).

Run: ``python -m benchmarks.bench_softmax [points]`` (default 1000 points per depth; 200 inside
``python -m benchmarks``, where 1,000 took over 10 minutes of a loaded 2-core machine).
"""

from __future__ import annotations

import random
import sys
import time

from benchmarks.bench_eval import _best
from symrel.compiler import compile_maxout
from symrel.exact import Q, to_float
from symrel.models import Box, MaxoutLayer, MaxoutNet, MaxoutUnit
from symrel.constructions.random import random_maxout_net
from symrel.softmax import available_backends, empirical_check, lambda_min
from symrel.softmax.examples import selection_transformer
from symrel.softmax.intervals import backend
from symrel.softmax.lemmas import softmax_gap, softmax_gap_formula
from symrel.softmax.taylor import exp_bounds


def backends_row() -> dict:
    scores = [Q((7 * i * i) % 41 - 20, 9) for i in range(64)]
    lam = Q(37, 3)
    top = max(scores)
    d = [top - s for s in scores]
    alone = {}
    for name in available_backends():
        B = backend(name)
        def once():
            exp_bounds.cache_clear()  # time the referee's series, not its cache
            return B.run(softmax_gap_formula, lam, *d)

        alone[name], (lo, hi) = _best(once, repeat=5)
        ref = softmax_gap(scores, lam)
        assert lo <= ref.hi and ref.lo <= hi, f"{name} enclosure misses the referee's"
    base = alone["mpmath"]
    return {"benchmark": "enclosure of a 64-score softmax gap", **{f"{n}_ms": 1e3 * t for n, t in alone.items()},
            **{f"{n}_vs_mpmath": base / t for n, t in alone.items() if t > 0}}


def network_rows(points: int) -> list[dict]:
    rows = []
    for depth in (1, 2, 3, 4):
        net = random_maxout_net(random.Random(depth), 2, [3] * depth, rank=3, max_num=8, max_den=4)
        D = Box.cube(2)
        T = compile_maxout(net, D).transformer
        t = time.perf_counter()
        res = lambda_min(T, D, Q(1, 1000))
        t_cert = time.perf_counter() - t
        t = time.perf_counter()
        chk = empirical_check(T, D, res.lam, Q(1, 1000), points=points, seed=depth)
        t_emp = time.perf_counter() - t
        rows.append({"depth": depth, "lambda": str(res.lam), "certify_s": t_cert, "points": chk.points,
                     "worst": float(chk.worst), "eps_over_worst": float(chk.ratio), "violations": len(chk.violations),
                     "check_s": t_emp})
    return rows


def table_rows() -> list[dict]:
    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
    D = Box([[-1, 1]])
    T = compile_maxout(net, D).transformer
    S, SD = selection_transformer(delta=Q(1, 2))
    net2 = random_maxout_net(random.Random(2), 2, [3, 3], rank=3, max_num=8, max_den=4)
    T2 = compile_maxout(net2, Box.cube(2)).transformer
    rows = []
    for k in range(1, 7):
        eps = Q(1, 10**k)
        lm, ls = lambda_min(T, D, eps).lam, lambda_min(S, SD, eps).lam
        l2 = lambda_min(T2, Box.cube(2), eps).lam
        rows.append({"eps": f"1e-{k}", "max_head_lambda": to_float(lm), "lambda_times_eps": to_float(lm * eps),
                     "depth2_lambda_times_eps": to_float(l2 * eps), "selection_lambda": to_float(ls)})
    return rows


def run(points: int = 200) -> list[dict]:
    return [backends_row()] + network_rows(points) + table_rows()


def main():
    points = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    b = backends_row()
    print(b["benchmark"])
    for n in available_backends():
        print(f"  {n:7s} {b[f'{n}_ms']:8.2f} ms   {b.get(f'{n}_vs_mpmath', float('nan')):6.1f}x mpmath.iv")
    print(f"\ncompiled Transformers, eps = 1/1000, {points} points each (random, vertices, near-tie)")
    print("depth  lambda        certify  worst observed  eps/worst  violations  check")
    for r in network_rows(points):
        print(f"{r['depth']:5d}  {r['lambda']:12s}  {r['certify_s']:6.2f}s  {r['worst']:14.4e}  {r['eps_over_worst']:9.2f}"
              f"  {r['violations']:10d}  {r['check_s']:5.1f}s")
    print("\nlambda against eps: max head (|x| on [-1,1]), compiled depth-2 net, selection head (margin 1/2)")
    print("eps     max-head lambda   lambda*eps   depth-2 lambda*eps   selection lambda")
    for r in table_rows():
        print(f"{r['eps']:6s}  {r['max_head_lambda']:15.6g}  {r['lambda_times_eps']:10.6f}  "
              f"{r['depth2_lambda_times_eps']:18.6f}  {r['selection_lambda']:16.6f}")


if __name__ == "__main__":
    main()
