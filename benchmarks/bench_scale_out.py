"""Scale-out: the same work in this process (serial), on 2 local processes (``processes:2``) and on a 2-worker Dask LocalCluster (``dask-local:2``), with each speedup as a ratio to serial.

Three workloads, each checked to give the serial answer on every executor:

* a region count (activation regions of a random ReLU net 2-32-32-1 on [-4, 4]^2, 1935
  regions, exact LPs; the cell search split into 32 subtrees per worker,
  :mod:`symrel.regions.parallel`);
* the mutation campaign (every prover, 60 mutants per instance; one task per instance);
* ``symrel proofs`` on six of the shipped statements (one task per statement; the heavy
  softmax and region-growth ones left out to keep the section short).

The sizes are those of a real run: about 10 s and 6 s serially on an idle core, long
enough that a start-up of a second or two is worth paying. ``seconds`` is the work alone:
each executor is started, and its workers have imported the modules the work needs
(``open_executor(..., preload=...)``, what the command line does), before the clock
starts; ``startup_s`` is that start, and ``speedup_with_startup`` charges it to the run,
as a user timing the whole command would. The local processes are spawned here, not
forked from this process: it has just run the same work serially, and a forked worker
would inherit its caches (sympy's, symrel's), a head start no real run has; Dask's
workers are spawned too. ``cpu_s`` is the CPU time of the work in all processes (this
one with Dask's scheduler, and the workers), and ``cpu_over_serial`` its ratio to the
serial run's: the cost of running in parallel, which a loaded machine changes less than
the wall times (2 workers can at best give 2 / ``cpu_over_serial``). The goal on 2 idle
cores is a work speedup of 1.6 or more for the region count and the campaign; on a
loaded machine the ratios mean little, which is why every row carries the load average
before and after it (a row under a load above the number of cores says ``loaded``).
Run: ``python -m benchmarks --only scale-out`` (the page's section) or
``python -m benchmarks.bench_scale_out [--quick]`` (rows printed; ``--quick``: 2-24-24-1
and 20 mutants per instance, a third of the time).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

EXECUTORS = ("serial", "processes:2", "dask-local:2")
STATEMENTS = ("a1_maxout_layer", "a2_deep_maxout", "a3_relu_nets", "b1_symmetric_relation", "b2_asymmetric_relation",
              "b3_retrieval_debreu")


def _regions(executor, widths):
    from benchmarks.bench_regions import random_relu_net
    from symrel.models import Box
    from symrel.regions import count_regions

    res = count_regions(random_relu_net(3, list(widths)), Box([[-4, 4], [-4, 4]]), kind="activation",
                        geometry="lp", executor=executor)
    return res.count, f"{res.count} regions"


def _mutation(executor, per_instance):
    from symrel.mutation import run_campaign

    tallies = run_campaign(per_instance=per_instance, executor=executor)
    key = [(t.prover, t.mutants, t.refuted, t.open, t.equivalent_proved, t.defects) for t in tallies]
    return key, f"{sum(t.mutants for t in tallies)} mutants"


def _proofs(executor, statements):
    from symrel.statements import default_dir, run_all

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "scripts"
        folder.mkdir()
        for p in sorted(default_dir().glob("*.py")):
            if p.name.startswith("_") or statements is None or p.stem in statements:
                shutil.copy(p, folder / p.name)
        summaries, _ = run_all(folder, Path(tmp) / "out", ["md"], executor=executor, progress=False)
    return [(s.statement.key, s.result, s.instances) for s in summaries], f"{len(summaries)} statements"


WORKLOADS = {
    "region count": (_regions, ("symrel.regions",)),
    "mutation campaign": (_mutation, ("symrel.mutation", "symrel.prover", "symrel.regions", "symrel.softmax")),
    "symrel proofs": (_proofs, ("symrel.statements", "symrel.report", "symrel.prover")),
}


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def cpu_of_all() -> float | None:
    """CPU seconds used so far by this process and every live process under it (the pool's
    or the cluster's workers, started before the clock), or None without psutil (it comes
    with the dask extra). Summed over the processes, it is the work's cost whatever the
    load: on a loaded machine the wall time of 2 workers says little, but a CPU time of
    1.1 x serial still means that 2 idle cores would do the work about 1.8 x as fast."""
    try:
        import psutil
    except ImportError:
        return None
    me = psutil.Process()
    total = 0.0
    for p in [me] + me.children(recursive=True):
        try:
            t = p.cpu_times()
        except psutil.Error:  # ended in between
            continue
        total += t.user + t.system
    return total


def measure(name, arg, executors=EXECUTORS) -> list[dict]:
    from symrel.cli.executors import open_executor

    fn, modules = WORKLOADS[name]
    rows, serial = [], None
    for spec in executors:
        load_before = _load()
        t0 = time.perf_counter()
        try:
            # spawned, not forked: a worker forked from this process would inherit the caches
            # (sympy's, symrel's lru caches) that the serial run just filled with these very
            # results, a head start that no real run has (Dask's workers are spawned too)
            with open_executor(spec, start_method="spawn", preload=modules) as executor:
                startup = time.perf_counter() - t0
                t, cpu = time.perf_counter(), cpu_of_all()
                key, what = fn(executor, arg)
                seconds = time.perf_counter() - t
                cpu = None if cpu is None else cpu_of_all() - cpu
        except Exception as err:  # an executor that cannot start here (no distributed) is reported
            rows.append({"workload": name, "executor": spec, "error": f"{type(err).__name__}: {err}"})
            continue
        load_after = _load()
        if serial is None:
            serial = (key, seconds, cpu)
        rows.append({
            "workload": name, "size": what, "executor": spec, "startup_s": round(startup, 2), "seconds": seconds,
            "speedup": serial[1] / seconds, "speedup_with_startup": serial[1] / (startup + seconds),
            "cpu_s": cpu, "cpu_over_serial": cpu / serial[2] if cpu and serial[2] else None,
            "same_result_as_serial": key == serial[0], "load_before": load_before, "load_after": load_after,
            "loaded": "loaded" if max(load_before, load_after) > (os.cpu_count() or 1) else "",
        })
    return rows


def run(quick: bool = False) -> list[dict]:
    rows = measure("region count", (24, 24) if quick else (32, 32))
    rows += measure("mutation campaign", 20 if quick else 60)
    rows += measure("symrel proofs", STATEMENTS)
    return rows


if __name__ == "__main__":  # pragma: no cover
    for r in run(quick="--quick" in sys.argv):
        print(r)
