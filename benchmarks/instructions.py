"""Instruction counts of the region, evaluation and proof workloads, on an earlier commit and
on this tree.

``python -m benchmarks.instructions --compare-commit 23e6b14 [--jobs 2] [--out docs/instructions.md]``

Wall times on these shared machines can swing by 10 to 30 % between runs a minute apart.
The host's other guests take the cores, and the load average does not show it, so a
change of a few per cent is hidden. The number of instructions a workload executes does
not depend on the load. Valgrind's cachegrind counts them, and with ``PYTHONHASHSEED=0``
a run repeats to the instruction.

Method: a fresh interpreter runs each workload twice under cachegrind. The first run does
its set-up and one warm-up call; the second does those and one more call. The difference
is the instruction count of one warm call, without imports, set-up or first-call
caches. Both trees run the same workload code (:data:`WORKLOADS`), each against its own
symrel and its own ``benchmarks`` helpers. Commit C is checked out in a temporary git
worktree, with ``../shared`` beside it, as :mod:`benchmarks.compare` does.

This complements the timed page (``python -m benchmarks``); it does not replace it.
Counts weigh every instruction alike, so memory stalls and a slow C routine count less
than they cost in time.

Cost: valgrind runs Python about 40 times slower. The seven workloads take about 6
minutes per tree on one core, and ``--jobs 2`` runs two at once (the counts do not
depend on it). Needs valgrind on PATH: without it the command says so and exits 2.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


class Workload(NamedTuple):
    """``setup`` runs once; ``call`` is the measured statement."""

    name: str
    setup: str
    call: str


_ACAS = ("import benchmarks.bench_regions as B\nfrom symrel.regions import count_regions\n"
         "net, box = B.acas_slice(0, 1, B.Q(1, 20))\n")
_RANDOM = ("import benchmarks.bench_regions as B\nfrom symrel.models import Box\nfrom symrel.regions import count_regions\n"
           "net, box = B.random_relu_net(3, [16, 16]), Box([[-4, 4], [-4, 4]])\n")
# the random constructions left symrel.models for symrel.constructions (issue 26); an earlier
# tree has them in their old place
_RANDOM_IMPORT = ("try:\n    from symrel.constructions.random import random_maxout_net, random_point\n"
                  "except ImportError:\n    from symrel.models.random import random_maxout_net, random_point\n")
_EVAL = ("import random\n" + _RANDOM_IMPORT + ""
         "rng = random.Random(0)\n"
         "net = random_maxout_net(rng, 8, [16, 16, 16], rank=4, readout_dim=1, max_num=100, max_den=100)\n"
         "pts = [random_point(rng, 8, 100, 100) for _ in range(200)]\n")
_PROVE = ("import json, random\nfrom symrel.compiler import compile_maxout\nfrom symrel.models import Box\n"
          + _RANDOM_IMPORT + "from symrel.prover import prove_equivalence\n"
          "from symrel.checking import check_certificate\nfrom symrel.certificates.io import certificate_of\n"
          "net = random_maxout_net(random.Random(0), 8, [32] * 2, rank=4, max_num=8, max_den=4)\n"
          "D = Box.cube(8)\nT = compile_maxout(net, D).transformer\n")

# The rows of issue 14's benchmarks (bench_regions, bench_eval, bench_prove), as one call each.
WORKLOADS = [
    Workload("region count, ACAS Xu 1_1 slice (inputs 0, 1; half-width 1/20), exact LP", _ACAS,
             'count_regions(net, box, kind="activation", geometry="lp")'),
    Workload("region count, ACAS Xu 1_1 slice, polygon", _ACAS,
             'count_regions(net, box, kind="activation", geometry="polygon")'),
    Workload("region count, random ReLU net 2-16-16-1 on [-4,4]^2, exact LP", _RANDOM,
             'count_regions(net, box, kind="activation", geometry="lp")'),
    Workload("region count, random ReLU net 2-16-16-1, polygon", _RANDOM,
             'count_regions(net, box, kind="activation", geometry="polygon")'),
    Workload("exact batch evaluation (maxout 8-16x3-1, rank 4, 200 points)", _EVAL, "net.evaluate_points(pts)"),
    Workload("compile, maxout 8-32x2 (rank 4) on [-1,1]^8", _PROVE, "compile_maxout(net, D)"),
    Workload("prove, maxout 8-32x2 against its compiled Transformer", _PROVE, "prove_equivalence(net, T, D)"),
    Workload("check the proof's certificate, maxout 8-32x2", _PROVE
             + "cert = json.loads(json.dumps(certificate_of(prove_equivalence(net, T, D))))\n",
             "check_certificate(cert)"),
]

_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def parse_refs(stderr: str) -> int:
    """The ``I refs`` total of cachegrind's summary.

    >>> parse_refs("==7== \\n==7== I   refs:      8,474,310,736\\n")
    8474310736
    """
    m = _REFS.search(stderr)
    if m is None:
        raise RuntimeError("no instruction count in valgrind's output: " + (stderr.strip().splitlines() or [""])[-1])
    return int(m.group(1).replace(",", ""))


def program(tree: Path, w: Workload, calls: int) -> str:
    """The script for one cachegrind run: set-up, a warm-up call, then ``calls`` more."""
    return (f"import sys\nsys.path.insert(0, {str(tree)!r})\n" + w.setup + w.call + "\n"
            + f"for _ in range({calls}):\n    {w.call}\n")


def count(tree: Path, w: Workload, calls: int, timeout: float = 3600) -> int:
    """Instructions of one run of :func:`program` under cachegrind."""
    cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
           sys.executable, "-c", program(tree, w, calls)]
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    proc = subprocess.run(cmd, env=env, cwd=tree, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{w.name} on {tree}: " + (proc.stderr.strip().splitlines() or ["failed"])[-1])
    return parse_refs(proc.stderr)


def warm_call(tree: Path, w: Workload, pool=None) -> int:
    """Instructions of one warm call of ``w`` on ``tree``: two runs, their difference."""
    if pool is None:
        return count(tree, w, 1) - count(tree, w, 0)
    one, two = pool.submit(count, tree, w, 0), pool.submit(count, tree, w, 1)
    return two.result() - one.result()


def table(names, before, after) -> list[str]:
    """Markdown rows: workload, instructions before and after (millions), after / before.

    >>> table(["x"], [2_000_000_000], [1_500_000_000])[2]
    '| x | 2000.0 | 1500.0 | 0.750 |'
    """
    lines = ["| workload | before (M instructions) | after (M instructions) | after / before |", "|---|---:|---:|---:|"]
    for name, b, a in zip(names, before, after):
        lines.append(f"| {name} | {b / 1e6:.1f} | {a / 1e6:.1f} | {a / b:.3f} |")
    return lines


def _git(*args) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.instructions", description=__doc__.split("\n")[0])
    ap.add_argument("--compare-commit", required=True, metavar="COMMIT", help="the earlier commit")
    ap.add_argument("--jobs", type=int, default=1, help="cachegrind runs at once (default 1)")
    ap.add_argument("--out", help="write the Markdown page here (default: print it)")
    args = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("python -m benchmarks.instructions: error: needs valgrind on PATH", file=sys.stderr)
        return 2
    try:
        sha = _git("rev-parse", "--verify", f"{args.compare_commit}^{{commit}}")
    except subprocess.CalledProcessError:
        print(f"python -m benchmarks.instructions: error: {args.compare_commit!r} is not a commit of {ROOT}",
              file=sys.stderr)
        return 2
    head = _git("rev-parse", "--short", "HEAD")
    # only changes to the measured code count (symrel and the benchmark helpers the workloads import)
    dirty = " + uncommitted changes" if _git("status", "--porcelain", "--", "symrel", "benchmarks") else ""
    tmp = Path(tempfile.mkdtemp(prefix="symrel-instr-"))
    tree = tmp / sha[:10]
    _git("worktree", "add", "--detach", str(tree), sha)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (tmp / "shared").symlink_to(shared)
    try:
        before, after = [], []
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for w in WORKLOADS:
                print(f"[instructions] {w.name} ...", file=sys.stderr, flush=True)
                before.append(warm_call(tree, w, pool if args.jobs > 1 else None))
                after.append(warm_call(ROOT, w, pool if args.jobs > 1 else None))
                print(f"[instructions]   {after[-1] / before[-1]:.3f}", file=sys.stderr, flush=True)
    except (RuntimeError, subprocess.TimeoutExpired) as err:   # one line, and nothing written
        print(f"python -m benchmarks.instructions: error: {err}", file=sys.stderr)
        return 2
    finally:
        _git("worktree", "remove", "--force", str(tree))
        (tmp / "shared").unlink(missing_ok=True)
        tmp.rmdir()
    valgrind = subprocess.run(["valgrind", "--version"], capture_output=True, text=True).stdout.strip()
    from symrel.exact import ground_types

    page = [
        "# Instruction counts",
        "",
        "Produced by `python -m benchmarks.instructions` (do not edit by hand); the method is in that",
        "module's docstring. The instructions of one warm call of each workload, counted by cachegrind,",
        f"on commit {sha[:10]} (before) and on {head}{dirty} (after). These counts do not depend on the",
        "machine's load, unlike the times in [benchmarks](benchmarks.md). after / before below 1 means fewer",
        "instructions now.",
        "",
        f"- generated: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- {valgrind}, python {sys.version.split()[0]}, sympy ground types {ground_types()}, PYTHONHASHSEED=0",
        "",
        *table([w.name for w in WORKLOADS], before, after),
        "",
    ]
    text = "\n".join(page)
    if args.out:
        from symrel.fileformat import write_text_atomic

        write_text_atomic(args.out, text)
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        print(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
