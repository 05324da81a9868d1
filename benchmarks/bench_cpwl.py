"""CPWL functions on 2-D meshes of about 100, 300 and 1,000 triangles: the exact lattice
form, compilation into a hardmax Transformer and the layer-by-layer proof against f.

Mesh: the Freudenthal grid of [0, 1]^2 (n x (n + 1) cells, two triangles each) with random
values p/7, |p| <= 50 (generic: every triangle its own piece). Columns: the sizes of
Ovchinnikov's lattice form (one term per simplex) and of the reduced one symrel compiles,
the Transformer's tokens and width, and the times of the lattice form, compilation,
proof and certificate check; beside them the Wang-Sun form (maxima of at most 3 affine
pieces, from the hat functions): its maxima and pieces, the time to build it and check it
at every vertex, and the tokens/width of the Transformer its one-layer maxout net would
compile to (by its layout; it is not compiled). ``load`` is the 1-minute load average when the row started
(the machine is shared). The baseline measured in the same process is exact evaluation
of f at 1,000 points. Run: ``python -m benchmarks.bench_cpwl``.
"""

from __future__ import annotations

import json
import os
import random
import time

SIZES = (7, 12, 22)          # 2 n (n + 1) triangles: 112, 312, 1012


def _time(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def row(n: int, seed: int = 1) -> dict:
    from symrel.certificates.io import certificate_of
    from symrel.checking import check_certificate
    from symrel.compiler import compile_model
    from symrel.exact import Q
    from symrel.compiler.cpwl_form_sizes import cpwl_form_sizes
    from symrel.models import Box
    from symrel.constructions import freudenthal_mesh, lattice_forms
    from symrel.prover import prove_equivalence

    load = os.getloadavg()[0]
    rng = random.Random(seed)
    f = freudenthal_mesh([[0, 1], [0, 1]], [n, n + 1], lambda x: [Q(rng.randint(-50, 50), 7)])
    D = Box([[0, 1], [0, 1]])
    t_eval, _ = _time(lambda: f.evaluate_batch(D.sample(1000, seed=seed)))
    t_lattice, (lat,) = _time(lambda: lattice_forms(f))
    t_compile, comp = _time(lambda: compile_model(f, D))
    T = comp.transformer
    t_prove, proof = _time(lambda: prove_equivalence(f, T, D))
    assert proof.result == "proved", proof.obstacle
    cert = json.loads(json.dumps(certificate_of(proof)))
    t_check, _ = _time(lambda: check_certificate(cert))
    t_ws, both = _time(lambda: cpwl_form_sizes(f, lattices=[lat]))
    ws = both["Wang-Sun form"]
    s = lat.sizes()
    return {"triangles": len(f.simplices), "load": round(load, 2),
            "ovchinnikov terms/pieces": f"{s['ovchinnikov']['terms']}/{s['ovchinnikov']['pieces']}",
            "reduced terms/pieces": f"{s['terms']}/{s['term_pieces']}",
            "tokens": T.tokens, "width": T.width, "blocks": len(T.blocks),
            "lattice_s": round(t_lattice, 2), "compile_s": round(t_compile, 2), "prove_s": round(t_prove, 2),
            "check_s": round(t_check, 2), "eval_1000_points_s": round(t_eval, 3),
            "wang-sun maxima/pieces": f"{ws['terms']}/{ws['pieces']}",
            "wang-sun tokens/width": f"{ws['transformer']['tokens']}/{ws['transformer']['width']}",
            "wang-sun_s": round(t_ws, 2), "load_end": round(os.getloadavg()[0], 2),
            "certificate_MB": round(len(json.dumps(cert)) / 2**20, 1)}


def run() -> list[dict]:
    return [row(n) for n in SIZES]


if __name__ == "__main__":  # pragma: no cover
    rows = run()
    keys = list(rows[0])
    print(" | ".join(keys))
    for r in rows:
        print(" | ".join(str(r[k]) for k in keys))
