"""Start-up: the wall time of a fresh ``python -m symrel --version`` and ``--help`` (which
import no subcommand, hence no sympy), beside the interpreter alone, ``import sympy`` and
``import z3`` (an SMT solver's start-up), and the full ``import symrel.models``.

Each command runs ``repeat`` times in a fresh process, alternating with the others; the
best and the median time are given (the best is the one least disturbed by the load).
Run: ``python -m benchmarks.bench_startup``.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

COMMANDS = {
    "python -c pass (the interpreter)": ["-c", "pass"],
    "python -m symrel --version": ["-m", "symrel", "--version"],
    "python -m symrel --help": ["-m", "symrel", "--help"],
    "python -c 'import symrel'": ["-c", "import symrel"],
    "python -c 'import z3'": ["-c", "import z3"],
    "python -c 'import sympy'": ["-c", "import sympy"],
    "python -c 'import symrel.models' (what --version imported before)": ["-c", "import symrel.models"],
}


def _once(args, env) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, check=True, timeout=60)
    return time.perf_counter() - t


def run(repeat: int = 7) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    commands = {k: v for k, v in COMMANDS.items() if "z3" not in k or importlib.util.find_spec("z3")}
    times: dict[str, list[float]] = {k: [] for k in commands}
    for _ in range(repeat):  # alternate, so that a burst of load falls on every command alike
        for name, args in commands.items():
            times[name].append(_once(args, env))
    return [{"command": name, "best s": min(ts), "median s": statistics.median(ts), "runs": len(ts)}
            for name, ts in times.items()]


if __name__ == "__main__":
    for row in run():
        print(row)
