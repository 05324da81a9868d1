"""symrel verify as a user runs it: serial (``--executor serial``) against the default (a process pool on the usable cores), on ACAS Xu 1_1 prop_3 and the five slowest instances of properties 1 to 4.

Each row is one whole command, ``python -m symrel verify NET PROP --json --timeout T`` in a
fresh process (reading, search and the trusted check of the certificate, which the default
runs on the pool too): its verdict, its wall time, its CPU time (the command and every worker
it started, from ``getrusage(RUSAGE_CHILDREN)``), the search's and the check's wall time as the
command reports them, and the load average before it. ``speedup`` is the serial wall time over
the default's on the same instance, measured one right after the other; ``cpu_over_serial``
the ratio of their CPU times (the cost of the pool). The five slowest instances are those of
``bench_acasxu``'s full run (the two hardest of property 2, then 4_9, 4_7 and 2_9 of property
1). The limit is 600 s, beyond the competition's 116 s, so that the serial runs finish and the
two can be compared; a row whose answer is ``unknown`` says so. On a loaded machine the wall
times mean little (the load is beside each row).

Run: ``python -m benchmarks --only verify-default`` (the page's section, about 20 minutes on
2 idle cores) or ``python -m benchmarks.bench_verify_default [--only 1_1:3]`` (rows printed).
Needs ``../shared/data/vnncomp2021/acasxu`` and onnx.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "vnncomp2021" / "acasxu"
INSTANCES = (("1_1", 3), ("4_2", 2), ("3_3", 2), ("4_9", 1), ("4_7", 1), ("2_9", 1))
LIMIT_S = 600
EXECUTORS = ("serial", "default")


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def command(net: str, prop: int, executor: str, limit: float = LIMIT_S) -> list[str]:
    """The command line of one run (``default``: no ``--executor``, what a user types).

    >>> command("1_1", 3, "serial")[-2:]
    ['--executor', 'serial']
    """
    cmd = [sys.executable, "-m", "symrel", "verify", str(DATA / f"ACASXU_run2a_{net}_batch_2000.onnx"),
           str(DATA / f"prop_{prop}.vnnlib"), "--json", "--no-progress", "--timeout", str(limit)]
    return cmd + (["--executor", executor] if executor != "default" else [])


def measure(net: str, prop: int, executor: str, limit: float = LIMIT_S) -> dict:
    """One whole command, timed from outside."""
    load = round(os.getloadavg()[0], 2)
    cpu, t = _children_cpu(), time.perf_counter()
    done = subprocess.run(command(net, prop, executor, limit), capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t, _children_cpu() - cpu
    try:
        out = json.loads(done.stdout)
    except ValueError:
        out = {"result": f"error (exit {done.returncode}): {done.stderr.strip()[-200:]}"}
    stats = out.get("stats", {})
    return {"instance": f"{net} prop_{prop}", "executor": executor, "result": out.get("result"),
            "wall s": round(wall, 2), "CPU s": round(cpu, 2), "search s": stats.get("search_seconds"),
            "check s": stats.get("check_seconds"), "nodes": stats.get("nodes"), "load": load}


def run(instances=INSTANCES, limit: float = LIMIT_S) -> list[dict]:
    if not DATA.is_dir():
        raise FileNotFoundError(f"{DATA} is not present")
    rows = []
    for net, prop in instances:
        pair = [measure(net, prop, e, limit) for e in EXECUTORS]
        serial = pair[0]
        for r in pair:
            r["speedup"] = round(serial["wall s"] / r["wall s"], 2) if r["wall s"] else None
            r["cpu_over_serial"] = round(r["CPU s"] / serial["CPU s"], 2) if serial["CPU s"] else None
        rows += pair
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_verify_default", description=__doc__.splitlines()[0])
    ap.add_argument("--only", metavar="NET:PROP,...", help="a subset, e.g. 1_1:3,4_7:1")
    ap.add_argument("--limit", type=float, default=LIMIT_S, help="each command's --timeout")
    args = ap.parse_args(argv)
    chosen = INSTANCES
    if args.only:
        chosen = [(p.split(":")[0], int(p.split(":")[1])) for p in args.only.split(",")]
    for row in run(chosen, args.limit):
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
