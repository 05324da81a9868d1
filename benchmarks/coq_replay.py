"""The Coq replay of compiled Transformers (docs/coq.md): coqc time beside the Python
checker's time, for the depth series of Theorem 3.2's script (d = 4, width 8, rank 3,
depth 1 to 8, on [-1, 1]^4) and for ACAS Xu 1_1 (its 18-block Transformer on its box;
the ``.nnet`` in ``../shared/data/acasxu``). Not part of ``python -m benchmarks`` (the
replays take minutes together: ACAS Xu alone about 40 s of coqc CPU and a minute of
proving); run ``python -m benchmarks.coq_replay [--depths 1,2,4,8] [--acas] [--out
docs/benchmarks.md]``, which prints a markdown table (and with ``--out`` writes it into the
page's Coq replay part, which ``python -m benchmarks`` keeps).

The library is compiled once (``build_library``; its CPU time is printed first) and every
instance is replayed against it: the coqc figures are ``Instance.v`` alone (the data, the
two computations and the claim) and ``Print Assumptions``. Per row: the certificate is
timed twice: the Python checker (``check_certificate``, CPU seconds of this process) and
``coqc`` on the exported folder (CPU seconds of the coqc processes, and wall seconds),
with the 1-minute load average before and after: on a loaded machine the wall time is
inflated, the CPU time much less.
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


def acas_net():
    """ACAS Xu 1_1 and its box, or None without ../shared."""
    from pathlib import Path

    from symrel.interop.nnet import read_nnet
    from symrel.mutation.decision import acas_box

    root = Path(__file__).resolve().parents[1]
    for shared in (root.parent / "shared", Path("/work/shared")):
        nnet = shared / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet"
        if nnet.exists():
            return read_nnet(nnet), acas_box(nnet)
    return None


def measure(depth, library=None) -> dict:
    """One row: ``depth`` is 1 to 8 (the random maxout series) or ``"ACAS Xu"``."""
    from symrel.certificates.io import certificate_of
    from symrel.checking import check_certificate
    from symrel.compiler import compile_model
    from symrel.constructions.random import random_maxout_net
    from symrel.interop.coq import export_coq, replay
    from symrel.models import Box
    from symrel.prover import prove_equivalence

    if depth == "ACAS Xu":
        net, box = acas_net()
    else:
        net = random_maxout_net(random.Random(50 + depth), 4, [8] * depth, rank=3, max_num=20, max_den=10)
        box = Box.cube(4)
    transformer = compile_model(net, box).transformer
    cert = certificate_of(prove_equivalence(net, transformer, box))
    load_before = os.getloadavg()[0]
    t = time.process_time()
    check_certificate(cert)
    python_cpu = time.process_time() - t
    with tempfile.TemporaryDirectory() as tmp:
        export_coq(cert, tmp)
        size = os.path.getsize(os.path.join(tmp, "Instance.v"))
        cpu, wall = _children_cpu(), time.perf_counter()
        r = replay(tmp, library=library)
        wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    return {"depth": depth, "blocks": len(transformer.blocks), "Instance.v KB": round(size / 1024), "replayed": r["ok"],
            "coqc CPU s": round(cpu, 1), "coqc wall s": round(wall, 1), "Python checker CPU s": round(python_cpu, 2),
            "load": f"{load_before:.1f} -> {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"}


def rows(depths=(1, 2, 3, 4, 5, 6, 7, 8), acas: bool = False):
    """The table's rows, one by one as they are measured."""
    from symrel.interop.coq import build_library

    if shutil.which("coqc") is None:
        yield {"depth": "-", "replayed": "coqc is not installed"}
        return
    with tempfile.TemporaryDirectory() as lib:
        cpu, wall = _children_cpu(), time.perf_counter()
        build_library(lib)
        print(f"library built once: {_children_cpu() - cpu:.1f} CPU s, {time.perf_counter() - wall:.1f} wall s, "
              f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
        for d in depths:
            yield measure(d, lib)
        if acas:
            yield (measure("ACAS Xu", lib) if acas_net() is not None
                   else {"depth": "ACAS Xu", "replayed": "../shared is not present"})


def run(depths=(1, 2, 3, 4, 5, 6, 7, 8), acas: bool = False) -> list[dict]:
    return list(rows(depths, acas))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depths", default="1,2,3,4,5,6,7,8", help="the depths of the random series ('' for none)")
    p.add_argument("--acas", action="store_true", help="also ACAS Xu 1_1's 18-block Transformer (../shared)")
    p.add_argument("--out", help="also write the table into this page's Coq replay part (docs/benchmarks.md)")
    args = p.parse_args(argv)
    keys, table = None, []
    for row in rows(tuple(int(d) for d in args.depths.split(",") if d), acas=args.acas):
        if keys is None:
            keys = list(row)
            table += ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
            print("\n".join(table))
        table.append("| " + " | ".join(str(row.get(k, "")) for k in keys) + " |")
        print(table[-1], flush=True)
    if args.out:
        write_part(args.out, table, args.acas)
    return 0


def write_part(page, table: list[str], acas: bool) -> None:
    """Put the table into ``page`` between its Coq replay markers (replacing an earlier one,
    else at the end): ``python -m benchmarks`` keeps that part when it rewrites the page."""
    from datetime import datetime, timezone
    from pathlib import Path

    from benchmarks.__main__ import COQ_END, COQ_START

    page = Path(page)
    old = page.read_text() if page.exists() else ""
    if COQ_START in old:
        old = old[:old.index(COQ_START)] + old[old.index(COQ_END) + len(COQ_END):].lstrip("\n")
    part = [COQ_START, "## The Coq replay (docs/coq.md)", "",
            f"`python -m benchmarks.coq_replay{' --acas' if acas else ''} --out docs/benchmarks.md`, "
            f"{datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}, {os.cpu_count()} cores: `coqc` on "
            "each exported folder's `Instance.v` (the library built once), CPU and wall seconds, beside the "
            "Python checker's CPU seconds on the same certificate; the load (1 minute) before and after "
            "each row. The goal for ACAS Xu: under a minute of `coqc`.", "", *table, COQ_END]
    page.write_text(old.rstrip("\n") + "\n\n" + "\n".join(part) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
