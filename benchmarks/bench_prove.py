"""Layer-by-layer proof of "T(x) = net(x) on D" for a compiled maxout net: time of the
proof and of the independent certificate check, and how both grow with depth.

Net: input dim 8, width 32, rank 4, weights p/q with |p| <= 8, q <= 4, on [-1, 1]^8.
Depth 1 to 8, with the time per layer (about constant when the cost is linear in depth)
and ``check_over_prove`` = check_s / prove_s: the trusted checker replays the whole proof
from the certificate, and the goal is that checking is no slower than proving (<= 1). The baseline measured in the
same process is the exact evaluation of the Transformer at one point (the prover
executes it symbolically over the whole box, so it is the natural unit).
Run: ``python -m benchmarks.bench_prove``.
"""

from __future__ import annotations

import json
import random
import time


def _time(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def row(depth: int, d: int = 8, width: int = 32, rank: int = 4, seed: int = 0) -> dict:
    from symrel.checking import check_certificate
    from symrel.compiler import compile_maxout
    from symrel.models import Box
    from symrel.constructions.random import random_maxout_net
    from symrel.certificates.io import certificate_of
    from symrel.prover import prove_equivalence

    net = random_maxout_net(random.Random(seed), d, [width] * depth, rank=rank, max_num=8, max_den=4)
    D = Box.cube(d)
    t_compile, comp = _time(lambda: compile_maxout(net, D))
    T = comp.transformer
    t_eval, _ = _time(lambda: T.evaluate(D.center()))
    t_prove, proof = _time(lambda: prove_equivalence(net, T, D))
    assert proof.result == "proved", proof.obstacle
    cert = json.loads(json.dumps(certificate_of(proof)))
    t_check, _ = _time(lambda: check_certificate(cert))
    return {"depth": depth, "blocks": len(T.blocks), "steps": len(proof.steps), "compile_s": round(t_compile, 3),
            "prove_s": round(t_prove, 3), "prove_per_layer_s": round(t_prove / depth, 3),
            "check_s": round(t_check, 3), "check_over_prove": round(t_check / t_prove, 2),
            "prove_over_one_eval": round(t_prove / t_eval, 1),
            "certificate_kB": len(json.dumps(cert)) // 1024}


def run() -> list[dict]:
    return [row(depth) for depth in range(1, 9)]


if __name__ == "__main__":  # pragma: no cover
    from symrel.exact import ground_types

    import os

    print(f"ground types: {ground_types()}; input dim 8, width 32, rank 4, [-1, 1]^8; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    rows = run()
    keys = list(rows[0])
    print(" | ".join(keys))
    for r in rows:
        print(" | ".join(str(r[k]) for k in keys))
