"""ACAS Xu properties 1 to 4 (VNN-COMP 2021) decided by the exact engine, each certificate checked.

Each instance (network ``ACASXU_run2a_I_J``, property ``prop_P``) runs
:func:`symrel.vnnlib.engine.decide` with a per-instance limit; an unsat certificate is then
checked by the trusted checker, a sat witness by the net's exact evaluation. The rows give the
verdict, the time, the check time; the summary the decided count, the median and maximum
times and the ratio of the median to nnenum's published median (about 1 s an instance in
VNN-COMP 2022, on a larger machine).

The whole benchmark (180 instances, 116 s each) takes hours; ``python -m benchmarks`` runs the
subset named by ``SYMREL_ACAS`` (``props:nets:limit``, e.g. ``3,4:1_1,2_1:116``; default
``3:1_6,4_5:30``). Standalone: ``python -m benchmarks.bench_acasxu --props 3,4 --nets 1_1,1_2
--limit 116`` prints one line per instance and the summary. Needs ``../shared/data/vnncomp2021``
and onnx.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "vnncomp2021" / "acasxu"
NNENUM_MEDIAN_S = 1.0


def instance(net_name: str, prop: int, limit: float) -> dict:
    """Decide one instance and check its result; a row."""
    from symrel.checking import check_certificate
    from symrel.interop.onnx_import import read_onnx
    from symrel.vnnlib.engine import decide
    from symrel.vnnlib.reader import read_vnnlib

    net = read_onnx(DATA / f"ACASXU_run2a_{net_name}_batch_2000.onnx").model
    p = read_vnnlib(DATA / f"prop_{prop}.vnnlib")
    t, c = time.perf_counter(), time.process_time()
    v = decide(net, p, timeout=limit)
    took, cpu = time.perf_counter() - t, time.process_time() - c
    check = None
    if v.status == "unsat":
        t = time.process_time()
        check_certificate(v.certificate)
        check = time.process_time() - t
    elif v.status == "sat":
        t = time.perf_counter()
        y = net.evaluate_exact(list(v.witness_x))
        assert p.in_region(list(v.witness_x)) and p.holds(list(v.witness_x), y)
        check = time.perf_counter() - t
    return {"instance": f"{net_name} prop_{prop}", "verdict": v.status, "seconds": round(took, 2),
            "cpu s": round(cpu, 2), "check s": None if check is None else round(check, 2),
            "nodes": v.stats.get("nodes"), "relu splits": v.stats.get("relu_splits"),
            "covered": f"{float(v.covered):.3f}", "load": round(os.getloadavg()[0], 2)}


def summary(rows) -> dict:
    decided = [r for r in rows if r["verdict"] in ("sat", "unsat")]
    times = [r["seconds"] for r in decided]
    cpus = [r["cpu s"] for r in decided]
    checks = [r["check s"] for r in decided if r["check s"] is not None]
    med = statistics.median(times) if times else None
    return {"instance": f"summary: {len(decided)} of {len(rows)} decided",
            "verdict": f"median {med} s, max {max(times) if times else None} s",
            "seconds": None if med is None else f"{med / NNENUM_MEDIAN_S:.1f} x nnenum's ~1 s median",
            "cpu s": f"median {statistics.median(cpus):.2f}, max {max(cpus):.2f}" if cpus else None,
            "check s": f"median {statistics.median(checks):.2f}, max {max(checks):.2f} (CPU)" if checks else None,
            "nodes": None, "relu splits": None, "covered": None, "load": None}


def _parse(spec: str):
    props, nets, limit = spec.split(":")
    return [int(p) for p in props.split(",")], nets.split(","), float(limit)


def run():
    if not DATA.exists():
        return {"instance": "skipped: ../shared/data/vnncomp2021 absent"}
    props, nets, limit = _parse(os.environ.get("SYMREL_ACAS", "3:1_6,4_5:30"))
    rows = [instance(n, p, limit) for p in props for n in nets]
    return rows + [summary(rows)]


def main(argv=None) -> int:  # pragma: no cover - a script
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_acasxu")
    ap.add_argument("--props", default="3,4")
    ap.add_argument("--nets", default="1_1")
    ap.add_argument("--limit", type=float, default=116.0)
    ap.add_argument("--pairs", default=None, help="net:prop pairs, e.g. 1_1:1,2_3:2 (instead of --props x --nets)")
    args = ap.parse_args(argv)
    print(f"load before: {os.getloadavg()[0]:.2f}, cores: {os.cpu_count()}", flush=True)
    rows = []
    if args.pairs:
        pairs = [(pn.split(":")[1], pn.split(":")[0]) for pn in args.pairs.split(",")]
    else:
        pairs = [(p, n) for p in args.props.split(",") for n in args.nets.split(",")]
    for p, n in pairs:
        rows.append(instance(n, int(p), args.limit))
        print(rows[-1], flush=True)
    print(summary(rows))
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
