"""Start-up: the wall time of fresh ``symrel`` processes on trivial inputs, beside the
interpreter alone, ``import sympy`` and ``import z3`` (an SMT solver's start-up).

The commands: ``--help``, ``import symrel``, and ``prove``, ``check-certificate`` and
``eval`` on a 1-unit maxout net (``prove A.json A.json --domain D.json``, the check of its
certificate, one point). With python-flint or gmpy2 none of the three imports sympy (issue
29: they compute on the ground type; sympy, 0.4 s of imports, is loaded only for the Python
API's public numbers). Each is measured on this tree and, as "before", on commit
:data:`BEFORE` (the last one whose commands imported sympy), checked out in a temporary git
worktree when git has it.

Each command runs ``repeat`` times in a fresh process, alternating with the others; the
best and the median wall time are given (the best is the one least disturbed by the load),
and the best CPU time (user + system of the process), which the load disturbs less.
``import ms`` is the sum of the self times ``python -X importtime`` reports in one more
run, and ``sympy`` whether that run imported it. Run: ``python -m benchmarks.bench_startup``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import threading
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the commit before the CLI's path left sympy (its prove, check and eval import sympy)
BEFORE = "ac2fe3d"

NET = {"symrel": 1, "kind": "maxout", "input_dim": 2, "readout": {"W": [[1]], "b": [0]},
       "layers": [{"units": [{"pieces": [{"w": [1, 0], "b": 0}, {"w": [0, 1], "b": "1/2"}]}]}]}
BOX = {"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1]]}


def _commands(d: Path) -> dict[str, list[str]]:
    a, box, cert = str(d / "a.json"), str(d / "d.json"), str(d / "c.json")
    return {
        "python -c pass (the interpreter)": ["-c", "pass"],
        "symrel --help": ["-m", "symrel", "--help"],
        "python -c 'import symrel'": ["-c", "import symrel"],
        "symrel prove A A --domain D (1-unit net)": ["-m", "symrel", "prove", a, a, "--domain", box],
        "symrel check-certificate C (its certificate)": ["-m", "symrel", "check-certificate", cert],
        "symrel eval A --input 0,1/2": ["-m", "symrel", "eval", a, "--input", "0,1/2"],
        "python -c 'import z3'": ["-c", "import z3"],
        "python -c 'import sympy'": ["-c", "import sympy"],
    }


def _env(tree: Path) -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tree), os.environ.get("PYTHONPATH")]))}


def _once(args, env, cwd) -> tuple[float, float]:
    """(wall, CPU) seconds of one fresh process; its CPU time (user + system) is the less
    disturbed by the machine's other work."""
    before, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    # a blocking wait, the time-out by a timer: subprocess's own time-out polls with sleeps of
    # up to 50 ms, which rounded every wall time up to the next 50 ms
    proc = subprocess.Popen([sys.executable, *args], env=env, cwd=cwd, stdout=subprocess.DEVNULL)
    timer = threading.Timer(60, proc.kill)
    timer.start()
    code = proc.wait()
    wall, after = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN)
    timer.cancel()
    if code != 0:
        raise subprocess.CalledProcessError(code, args)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _importtime(args, env, cwd) -> tuple[float, bool]:
    """(sum of the self times in ms, whether sympy was imported) of one ``-X importtime`` run."""
    out = subprocess.run([sys.executable, "-X", "importtime", *args], env=env, cwd=cwd, capture_output=True,
                         text=True, check=True, timeout=60)
    rows = [m.groups() for m in re.finditer(r"^import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)$", out.stderr, re.M)]
    return sum(int(us) for us, _ in rows) / 1000, any(name == "sympy" for _, name in rows)


def _before_tree(tmp: Path) -> Path | None:
    """Commit :data:`BEFORE` in a git worktree under ``tmp`` (None without git or the commit)."""
    tree = tmp / "before"
    made = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), BEFORE],
                          capture_output=True, text=True)
    return tree if made.returncode == 0 else None


def run(repeat: int = 7) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "a.json").write_text(json.dumps(NET))
        (d / "d.json").write_text(json.dumps(BOX))
        subprocess.run([sys.executable, "-m", "symrel", "prove", str(d / "a.json"), str(d / "a.json"), "--domain",
                        str(d / "d.json"), "--certificate", str(d / "c.json")], env=_env(ROOT), cwd=tmp,
                       stdout=subprocess.DEVNULL, check=True, timeout=60)
        commands = {k: v for k, v in _commands(d).items() if "z3" not in k or importlib.util.find_spec("z3")}
        before = _before_tree(d)
        trees = {"now": ROOT, **({f"before ({BEFORE})": before} if before else {})}
        try:
            times = {(t, k): [] for t in trees for k in commands if t == "now" or "symrel" in k}
            for _ in range(repeat):  # alternate, so that a burst of load falls on every command alike
                for t, k in times:
                    times[t, k].append(_once(commands[k], _env(trees[t]), tmp))
            out = []
            for (t, k), ts in times.items():
                ms, sympy = _importtime(commands[k], _env(trees[t]), tmp)
                walls, cpus = [w for w, _ in ts], [c for _, c in ts]
                out.append({"command": k, "tree": t, "best s": min(walls), "median s": statistics.median(walls),
                            "best cpu s": min(cpus), "runs": len(ts), "import ms": round(ms, 1), "sympy": sympy})
            return out
        finally:
            if before:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)],
                               capture_output=True)


if __name__ == "__main__":
    for row in run():
        print(row)
