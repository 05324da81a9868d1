"""ACAS Xu properties 1 to 4 (VNN-COMP 2021) decided by the exact engine, each certificate checked.

Each instance (network ``ACASXU_run2a_I_J``, property ``prop_P``) runs
:func:`symrel.vnnlib.engine.decide` with a per-instance limit; an unsat certificate is then
checked by the trusted checker, a sat witness by the net's exact evaluation. The rows give the
verdict, the time, the check time; the summary the decided count, the median and maximum
times and the ratio of the median to nnenum's published median (about 1 s an instance in
VNN-COMP 2022, on a larger machine).

The whole benchmark (180 instances, 116 s each) takes hours; ``python -m benchmarks`` runs the
subset named by ``SYMREL_ACAS`` (``props:nets:limit[:cpu]``, e.g. ``3,4:1_1,2_1:116``; default
``3:1_6,4_5:30``; ``:cpu`` puts the limit on CPU time, for a loaded machine) or by
``SYMREL_ACAS_PAIRS`` (``net:prop`` pairs, with the limit of ``SYMREL_ACAS``). Standalone: ``python -m benchmarks.bench_acasxu --props 3,4 --nets 1_1,1_2
--limit 116 [--workers 2]`` prints one line per instance and the summary (``--workers N``: each
search on a pool of N processes, with the wall-clock limit, as the competition runs). Needs ``../shared/data/vnncomp2021``
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


class _CpuLimit(Exception):
    pass


def instance(net_name: str, prop: int, limit: float, cpu: bool = False, executor=None) -> dict:
    """Decide one instance and check its result; a row. ``cpu``: the limit is on the process's
    CPU time (checked after each round of the search) instead of the wall clock, for a shared
    machine whose load would otherwise decide the verdicts. ``executor``: the search's rounds
    run on it (the competition's setting: a wall-clock limit, all cores); the verdict is the
    serial one's, only sooner."""
    if cpu and executor is not None:
        raise ValueError("a CPU-time limit counts this process only: give either cpu or an executor")
    from symrel.checking import check_certificate
    from symrel.interop.onnx_import import read_onnx
    from symrel.vnnlib.engine import decide
    from symrel.vnnlib.reader import read_vnnlib

    net = read_onnx(DATA / f"ACASXU_run2a_{net_name}_batch_2000.onnx").model
    p = read_vnnlib(DATA / f"prop_{prop}.vnnlib")
    t, c = time.perf_counter(), time.process_time()
    if cpu:
        def stop(stats):
            if time.process_time() - c > limit:
                raise _CpuLimit

        try:
            v = decide(net, p, progress=stop)
        except _CpuLimit:
            v = None
    else:
        v = decide(net, p, timeout=limit, executor=executor)
    took, cpu = time.perf_counter() - t, time.process_time() - c
    # with an executor the search ran in the workers: this process's CPU time is not its cost,
    # and the row has no CPU column
    cpu_cell = {} if executor is not None else {"cpu s": round(cpu, 2)}
    if v is None:
        return {"instance": f"{net_name} prop_{prop}", "verdict": "unknown", "seconds": round(took, 2),
                **cpu_cell, "check s": None, "nodes": None, "relu splits": None, "covered": None,
                "load": round(os.getloadavg()[0], 2)}
    check = None  # the check runs in this process, on one core
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
            **cpu_cell, "check s": None if check is None else round(check, 2),
            "nodes": v.stats.get("nodes"), "relu splits": v.stats.get("relu_splits"),
            "covered": f"{float(v.covered):.3f}", "load": round(os.getloadavg()[0], 2)}


def summary(rows) -> dict:
    decided = [r for r in rows if r["verdict"] in ("sat", "unsat")]
    times = [r["seconds"] for r in decided]
    cpus = [r["cpu s"] for r in decided if r.get("cpu s") is not None]
    checks = [r["check s"] for r in decided if r["check s"] is not None]
    med = statistics.median(times) if times else None
    out = {"instance": f"summary: {len(decided)} of {len(rows)} decided",
           "verdict": f"median {med} s, max {max(times) if times else None} s",
           "seconds": None if med is None else f"{med / NNENUM_MEDIAN_S:.1f} x nnenum's ~1 s median"}
    if cpus:
        out["cpu s"] = (f"median {statistics.median(cpus):.2f} ({statistics.median(cpus) / NNENUM_MEDIAN_S:.1f} x "
                        f"nnenum), max {max(cpus):.2f}")
    out["check s"] = f"median {statistics.median(checks):.2f}, max {max(checks):.2f} (CPU)" if checks else None
    return out


def _parse(spec: str):
    props, nets, limit, *kind = spec.split(":")
    return [int(p) for p in props.split(",")], nets.split(","), float(limit), kind == ["cpu"]


def run():
    if not DATA.exists():
        return {"instance": "skipped: ../shared/data/vnncomp2021 absent"}
    props, nets, limit, cpu = _parse(os.environ.get("SYMREL_ACAS", "3:1_6,4_5:30"))
    pairs = [(n, p) for p in props for n in nets]
    if os.environ.get("SYMREL_ACAS_PAIRS"):  # "1_1:1,2_3:2": net:prop pairs instead of props x nets
        pairs = [(pn.split(":")[0], int(pn.split(":")[1])) for pn in os.environ["SYMREL_ACAS_PAIRS"].split(",")]
    rows = []
    for n, p in pairs:
        rows.append(instance(n, p, limit, cpu))
        print(f"[bench_acasxu] {rows[-1]}", file=sys.stderr, flush=True)
    return rows + [summary(rows)]


def write_section(rows, page: str, note: str) -> None:
    """Replace the ``## bench_acasxu`` section of ``page`` (docs/benchmarks.md) by ``rows`` and
    their summary, with ``note`` (when and under what load they were measured); the rest of
    the page is kept."""
    import json as _json

    from benchmarks.__main__ import _table

    text = Path(page).read_text()
    start = text.index("## bench_acasxu")
    end = text.index("\n## ", start + 1) + 1
    body = ["## bench_acasxu", "", __doc__.strip().splitlines()[0], ""]
    body += _table([_json.loads(_json.dumps(r)) for r in rows + [summary(rows)]]) + ["", note, ""]
    Path(page).write_text(text[:start] + "\n".join(body) + "\n" + text[end:])


def main(argv=None) -> int:  # pragma: no cover - a script
    import json

    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_acasxu")
    ap.add_argument("--props", default="3,4")
    ap.add_argument("--nets", default="1_1")
    ap.add_argument("--limit", type=float, default=116.0)
    ap.add_argument("--cpu", action="store_true", help="the limit is on CPU time (a loaded machine)")
    ap.add_argument("--pairs", default=None, help="net:prop pairs, e.g. 1_1:1,2_3:2 (instead of --props x --nets)")
    ap.add_argument("--workers", type=int, default=0,
                    help="run each search's rounds on a process pool of this many workers (with a wall-clock limit)")
    ap.add_argument("--rows", default=None, help="append each row to this JSON-lines file")
    ap.add_argument("--write-page", default=None, help="write the rows of --rows into this page's section; no run")
    ap.add_argument("--note", default="", help="with --write-page: how and under what load the rows were measured")
    args = ap.parse_args(argv)
    if args.write_page:
        rows = [json.loads(line) for line in Path(args.rows).read_text().splitlines() if line.strip()]
        write_section(rows, args.write_page, args.note)
        return 0
    print(f"load before: {os.getloadavg()[0]:.2f}, cores: {os.cpu_count()}", flush=True)
    rows = []
    if args.pairs:
        pairs = [(pn.split(":")[1], pn.split(":")[0]) for pn in args.pairs.split(",")]
    else:
        pairs = [(p, n) for p in args.props.split(",") for n in args.nets.split(",")]
    executor = None
    if args.workers:
        from concurrent.futures import ProcessPoolExecutor

        executor = ProcessPoolExecutor(args.workers)  # one pool for every instance: started once
    for p, n in pairs:
        rows.append(instance(n, int(p), args.limit, args.cpu, executor))
        if executor is not None:
            rows[-1]["workers"] = args.workers
        print(rows[-1], flush=True)
        if args.rows:
            with open(args.rows, "a") as f:
                f.write(json.dumps(rows[-1]) + "\n")
    if executor is not None:
        executor.shutdown()
    print(summary(rows))
    print(f"load after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
