"""CPU time of the trusted check of ACAS Xu vnnlib-unsat certificates against the search's,
before and after a change of the checker.

For each instance (a net and a property of ``../shared/data/vnncomp2021/acasxu``) this tree's
``symrel verify --json --executor serial`` runs once, in one process, and writes the
certificate; its stats give the search's CPU seconds (``search_cpu_seconds``) and the check's
(``check_cpu_seconds``). Then, in ``rounds`` alternating rounds, each a fresh process, the
checker of every tree given (this tree, and ``--against DIR``: another worktree, e.g. the main
branch) checks that same certificate; the figure is ``time.process_time`` around
``check_certificate`` on the parsed JSON, the best of the rounds, with the load average
beside it (the machine is shared: CPU time is the steadier figure, though it still varies
with the load).

``python -m benchmarks.bench_vnnlib_check [--against /work/main] [--rounds 2] [--instances
5_8:prop_1,1_1:prop_3]``. Cost: one search and ``rounds`` checks per tree per instance (a
minute or so each on a loaded machine).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "vnncomp2021" / "acasxu"
INSTANCES = ("5_8:prop_1", "1_1:prop_3", "4_7:prop_1", "2_9:prop_1", "1_7:prop_3")

_CHECK = r'''
import json, os, sys, time
sys.path.insert(0, sys.argv[1])
from symrel.checking import check_certificate
cert = json.loads(open(sys.argv[2]).read())
load = os.getloadavg()[0]
start = time.process_time()
result = check_certificate(cert)["result"]
print(json.dumps({"cpu": time.process_time() - start, "load": load, "result": result}))
'''


def _env(tree: Path) -> dict:
    return {**os.environ, "PYTHONPATH": str(tree)}


def search(net: Path, prop: Path, certificate: Path) -> dict:
    """``symrel verify`` of this tree, serial: its stats (search and check CPU seconds)."""
    proc = subprocess.run([sys.executable, "-m", "symrel", "verify", str(net), str(prop), "--json", "--executor",
                           "serial", "--certificate", str(certificate)], capture_output=True, text=True,
                          env=_env(ROOT), cwd=ROOT)
    found = json.loads(proc.stdout)
    return {"result": found.get("result"), **{k: found["stats"].get(k) for k in (
        "search_cpu_seconds", "check_cpu_seconds", "leaves")}, "load": round(os.getloadavg()[0], 2)}


def check(tree: Path, certificate: Path) -> dict:
    """The CPU seconds of ``tree``'s checker on ``certificate``, in a fresh process."""
    proc = subprocess.run([sys.executable, "-c", _CHECK, str(tree), str(certificate)], capture_output=True,
                          text=True, env=_env(tree), cwd=tree)
    if proc.returncode != 0:
        return {"cpu": None, "load": round(os.getloadavg()[0], 2), "result": proc.stderr.strip().splitlines()[-1]}
    return json.loads(proc.stdout)


def run():
    """``python -m benchmarks``: too long for the page's run; the command is in the module's docstring."""
    return {"instance": "run by hand: python -m benchmarks.bench_vnnlib_check (see its docstring)"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", action="append", default=[], help="another tree whose checker is timed too")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--instances", default=",".join(INSTANCES), help="NET:PROP,... (e.g. 5_8:prop_1)")
    args = parser.parse_args(argv)
    trees = [ROOT] + [Path(t).resolve() for t in args.against]
    with tempfile.TemporaryDirectory() as tmp:
        for item in args.instances.split(","):
            net_id, prop_id = item.split(":")
            net = DATA / f"ACASXU_run2a_{net_id}_batch_2000.onnx"
            certificate = Path(tmp) / f"{net_id}_{prop_id}.json"
            found = search(net, DATA / f"{prop_id}.vnnlib", certificate)
            print(f"{net_id} {prop_id}: verify {found}", flush=True)
            if found["result"] != "unsat":
                continue
            best: dict = {}
            for _ in range(args.rounds):
                for tree in trees:
                    got = check(tree, certificate)
                    print(f"  {tree}: check cpu {got['cpu'] and round(got['cpu'], 2)} s, load {got['load']:.2f}, "
                          f"{got['result']}", flush=True)
                    if got["cpu"] is not None:
                        best[tree] = min(best.get(tree, got["cpu"]), got["cpu"])
            print(f"  best: " + ", ".join(f"{tree.name} {cpu:.2f} s" for tree, cpu in best.items())
                  + f" (search {found['search_cpu_seconds']} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
