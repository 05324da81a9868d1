"""The decision campaign's small claims timed as whole processes: ``symrel prove`` against z3.

``python -m benchmarks.decision_processes [--claims 65] [--repeat 1] [--out docs/decision.md]``

The claims are the first ``--claims`` of the seeded campaign of
:mod:`symrel.mutation.decision_claims` on small nets (seeds 1000, 1001, ...: a net
against its compiled hardmax Transformer, then against five single-number ``+1/10^6``
mutants of it), written as files. Each claim is decided by two fresh processes, one after
the other (the order alternating from claim to claim, so that a burst of load falls on
both alike): ``python -m symrel prove A.json B.json --domain D.json`` and
``python benchmarks/z3_decide.py A.json B.json D.json`` (z3 on the QF_LRA encoding of
:mod:`symrel.crossval.z3_claims`; its time includes its interpreter, ``import z3``, the
encoding and the search). Times are wall-clock and CPU (user plus system), measured around each process; the
1-minute load average is read before each claim. With ``--repeat N`` each claim runs N
times per tool and keeps its least time per tool. The two answers must agree (exit 0 is
proved, 1 refuted): a disagreement is reported.

With ``--out``, the section between the markers ``<!-- whole-processes -->`` and
``<!-- /whole-processes -->`` of that page is replaced (appended when absent); the rest
of the page is kept. Cost: about 2 x claims x repeat process start-ups.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN, END = "<!-- whole-processes -->", "<!-- /whole-processes -->"
EXIT_RESULTS = {0: "proved", 1: "refuted", 3: "open"}


def claims(count: int) -> list[dict]:
    """The first ``count`` claims of the seeded campaign on small nets (seeds from 1000)."""
    from symrel.mutation.decision_claims import campaign_claims

    seeds = range(1000, 1000 + (count + 5) // 6)
    return campaign_claims(seeds=seeds, mutants_per_pair=5, equal_seeds=(), size="small")[:count]


def _write(claim, folder: Path) -> list[str]:
    paths = []
    for key in ("a", "b", "domain"):
        p = folder / f"{key}.json"
        p.write_text(json.dumps(claim[key]), encoding="utf-8")
        paths.append(str(p))
    return paths


def _environment(pycache: Path) -> dict:
    """The processes' environment: this tree first on the path, and bytecode cached under
    ``pycache`` (an installed package has its ``.pyc`` files; without a cache, and with
    ``PYTHONDONTWRITEBYTECODE`` set, every symrel module would be compiled anew in every
    process, while z3's, from site-packages, are not)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(args, env) -> tuple[tuple[float, float], subprocess.CompletedProcess]:
    """``((wall s, CPU s), the finished process)``."""
    t, c = time.perf_counter(), _cpu()
    done = subprocess.run([sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=900)
    return (time.perf_counter() - t, _cpu() - c), done


def _symrel(paths, env):
    seconds, done = _timed(["-m", "symrel", "prove", paths[0], paths[1], "--domain", paths[2]], env)
    return seconds, EXIT_RESULTS.get(done.returncode, f"exit {done.returncode}: {done.stderr.strip()[-200:]}")


def _z3(paths, env):
    seconds, done = _timed([str(ROOT / "benchmarks" / "z3_decide.py"), *paths], env)
    out = done.stdout.strip() if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
    return seconds, out


def run(count: int = 65, repeat: int = 1, progress: bool = False) -> list[dict]:
    """One row per claim: both answers, each tool's least time over ``repeat`` runs, the loads."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        env = _environment(Path(tmp) / "pycache")
        cs = claims(count)
        warm = Path(tmp) / "warm"
        warm.mkdir()
        for tool in (_symrel, _z3):     # untimed: fills the bytecode cache, as installing a package does
            tool(_write(cs[0], warm), env)
        for i, claim in enumerate(cs):
            folder = Path(tmp) / f"claim{i}"
            folder.mkdir()
            paths = _write(claim, folder)
            row = {"name": claim["name"], "symrel_s": [], "z3_s": [], "symrel_cpu": [], "z3_cpu": [], "load": []}
            for r in range(repeat):
                row["load"].append(os.getloadavg()[0])
                order = (_symrel, _z3) if (i + r) % 2 == 0 else (_z3, _symrel)
                for tool in order:
                    (seconds, cpu), result = tool(paths, env)
                    key = "symrel" if tool is _symrel else "z3"
                    row[key + "_s"].append(seconds)
                    row[key + "_cpu"].append(cpu)
                    row[key] = result
            for key in ("symrel_s", "z3_s", "symrel_cpu", "z3_cpu"):
                row[key] = min(row[key])
            rows.append(row)
            if progress:
                print(f"[{i + 1}/{count}] symrel {row['symrel']:8s} {row['symrel_s']:6.2f} s   z3 {row['z3']:8s} "
                      f"{row['z3_s']:6.2f} s   load {row['load'][0]:.1f}   {row['name']}", file=sys.stderr, flush=True)
    return rows


def section(rows: list[dict], command: str, seconds: float) -> str:
    """The Markdown section: medians and maxima of both tools, the loads, the slowest claims."""
    sym = [r["symrel_s"] for r in rows]
    z3 = [r["z3_s"] for r in rows]
    loads = [v for r in rows for v in r["load"]]
    agree = [r for r in rows if r["symrel"] in ("proved", "refuted") and r["symrel"] == r["z3"]]
    disagree = [r for r in rows if r["symrel"] in ("proved", "refuted") and r["z3"] in ("proved", "refuted")
                and r["symrel"] != r["z3"]]
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    lines = [BEGIN, "", "## The small claims as whole processes", "",
             f"Generated by `python -m benchmarks.decision_processes {command}` (benchmarks/decision_processes.py) "
             f"on {stamp}, {platform.python_implementation()} {platform.python_version()}, "
             f"{os.cpu_count()} cores. The first {len(rows)} claims of the seeded campaign on small nets (a net "
             "against its compiled Transformer and five `+1/10^6` mutants of it, seeds 1000 on), each decided by "
             "`python -m symrel prove A.json B.json --domain D.json` and by `python benchmarks/z3_decide.py A.json "
             "B.json D.json` (z3 on the QF_LRA encoding of symrel.crossval.z3_claims), both as whole processes: "
             "each time includes the interpreter's start-up, the imports, reading the files and the decision (modules "
             "from compiled bytecode, as installed; one untimed run of each fills the cache). The two "
             "processes of a claim run one after the other, in alternating order; the load is the 1-minute load "
             "average read before each claim (the machine is shared: the ratio of the two tools in one session is "
             "the figure to compare, not the seconds of another run). CPU is the process's user plus system time. "
             f"Run time {seconds:.0f} s.", "",
             f"**{len(rows)} claims: symrel proved {sum(r['symrel'] == 'proved' for r in rows)}, refuted "
             f"{sum(r['symrel'] == 'refuted' for r in rows)}, left open {sum(r['symrel'] == 'open' for r in rows)}; "
             f"z3 agrees on {len(agree)}, disagrees on {len(disagree)}.**", "",
             "| tool | median s | max s | mean s | CPU median s | CPU max s | load (min to max, median) |",
             "|---|---:|---:|---:|---:|---:|---|"]
    load_text = f"{min(loads):.1f} to {max(loads):.1f}, {statistics.median(loads):.1f}" if loads else "-"
    for name, key in (("symrel prove", "symrel"), ("z3 (z3_decide.py)", "z3")):
        xs, cs = [r[key + "_s"] for r in rows], [r[key + "_cpu"] for r in rows]
        lines.append(f"| {name} | {statistics.median(xs):.3f} | {max(xs):.3f} | {statistics.fmean(xs):.3f} | "
                     f"{statistics.median(cs):.3f} | {max(cs):.3f} | {load_text} |")
    lines += ["", f"Ratio symrel / z3 in this session: median {statistics.median(sym) / statistics.median(z3):.2f}, "
              f"max {max(sym) / max(z3):.2f}.", "", "Slowest claims for either tool:", "",
              "| claim | symrel | s | z3 | s | load |", "|---|---|---:|---|---:|---:|"]
    for r in sorted(rows, key=lambda r: -max(r["symrel_s"], r["z3_s"]))[:8]:
        lines.append(f"| {r['name']} | {r['symrel']} | {r['symrel_s']:.2f} | {r['z3']} | {r['z3_s']:.2f} | "
                     f"{r['load'][0]:.1f} |")
    if disagree:
        lines += ["", "Disagreements:", ""] + [f"- {r['name']}: symrel {r['symrel']}, z3 {r['z3']}" for r in disagree]
    odd = [r for r in rows if r["symrel"] not in ("proved", "refuted") or r["z3"] not in ("proved", "refuted")]
    if odd:
        lines += ["", "Undecided by one of them:", ""] + [f"- {r['name']}: symrel {r['symrel']}, z3 {r['z3']}"
                                                          for r in odd]
    return "\n".join(lines + ["", END]) + "\n"


def replace_section(page: str, text: str) -> str:
    """``page`` with its whole-processes section replaced by ``text`` (appended when absent).

    >>> replace_section("# A\\n" + BEGIN + "\\nold\\n" + END + "\\ntail\\n", BEGIN + "\\nnew\\n" + END + "\\n")
    '# A\\n<!-- whole-processes -->\\nnew\\n<!-- /whole-processes -->\\ntail\\n'
    """
    if BEGIN in page and END in page:
        head, rest = page.split(BEGIN, 1)
        return head + text.rstrip("\n") + rest.split(END, 1)[1]
    return page.rstrip("\n") + "\n\n" + text


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.decision_processes", description=__doc__.split("\n")[0])
    p.add_argument("--claims", type=int, default=65)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--out", help="replace the whole-processes section of this page (e.g. docs/decision.md)")
    p.add_argument("--save", help="also write the rows here (JSON)")
    p.add_argument("--progress", action="store_true")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    rows = run(args.claims, args.repeat, args.progress)
    command = " ".join(sys.argv[1:] if argv is None else argv)
    text = section(rows, command, time.perf_counter() - t0)
    if args.save:
        Path(args.save).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    if args.out:
        page = Path(args.out).read_text(encoding="utf-8") if Path(args.out).exists() else ""
        Path(args.out).write_text(replace_section(page, text), encoding="utf-8")
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
