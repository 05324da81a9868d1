"""The Coq replay of compiled Transformers (docs/coq.md): coqc time beside the Python
checker's time, for the depth series of Theorem 3.2's script (d = 4, width 8, rank 3,
depth 1 to 8, on [-1, 1]^4). Not part of ``python -m benchmarks`` (the replays take
minutes); run ``python -m benchmarks.coq_replay [--depths 1,2,4,8]``, which prints a
markdown table.

Per depth: the certificate is made by symrel's prover, then timed twice: the Python
checker (``check_certificate``, CPU seconds of this process) and ``coqc`` on the exported
folder (library and Instance.v, CPU seconds of the coqc processes, and wall seconds), with
the 1-minute load average before and after beside each figure: on a loaded machine the
wall time is inflated, the CPU time much less.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import tempfile
import time


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(depth: int) -> dict:
    from symrel.certificates.io import certificate_of
    from symrel.checking import check_certificate
    from symrel.compiler import compile_model
    from symrel.constructions.random import random_maxout_net
    from symrel.interop.coq import export_coq, replay
    from symrel.models import Box
    from symrel.prover import prove_equivalence

    net = random_maxout_net(random.Random(50 + depth), 4, [8] * depth, rank=3, max_num=20, max_den=10)
    box = Box.cube(4)
    cert = certificate_of(prove_equivalence(net, compile_model(net, box).transformer, box))
    load_before = os.getloadavg()[0]
    t = time.process_time()
    check_certificate(cert)
    python_cpu = time.process_time() - t
    with tempfile.TemporaryDirectory() as tmp:
        export_coq(cert, tmp)
        size = os.path.getsize(os.path.join(tmp, "Instance.v"))
        cpu, wall = _children_cpu(), time.perf_counter()
        r = replay(tmp)
        wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    return {"depth": depth, "blocks": 3 * depth, "Instance.v KB": round(size / 1024), "replayed": r["ok"],
            "coqc CPU s": round(cpu, 1), "coqc wall s": round(wall, 1), "Python checker CPU s": round(python_cpu, 2),
            "load": f"{load_before:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"}


def run(depths=(1, 2, 3, 4, 5, 6, 7, 8)) -> list[dict]:
    if shutil.which("coqc") is None:
        return [{"depth": "-", "replayed": "coqc is not installed"}]
    return [measure(d) for d in depths]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depths", default="1,2,3,4,5,6,7,8")
    args = p.parse_args(argv)
    rows = run(tuple(int(d) for d in args.depths.split(",")))
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for row in rows:
        print("| " + " | ".join(str(row.get(k, "")) for k in keys) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
