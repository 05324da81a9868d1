"""The decision campaign's small claims timed as whole processes: ``symrel prove`` against z3.

``python -m benchmarks.decision_processes [--claims 65] [--repeat 1] [--out docs/benchmarks.md]``

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


def _environment(tree: Path, pycache: Path) -> dict:
    """The processes' environment: ``tree`` first on the path, and bytecode cached under
    ``pycache`` (an installed package has its ``.pyc`` files; without a cache, and with
    ``PYTHONDONTWRITEBYTECODE`` set, every symrel module would be compiled anew in every
    process, while z3's, from site-packages, are not)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(tree), os.environ.get("PYTHONPATH")]))
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(args, env, cwd=ROOT) -> tuple[tuple[float, float], subprocess.CompletedProcess]:
    """``((wall s, CPU s), the finished process)``, run in ``cwd`` (``python -m`` puts it first
    on the path)."""
    t, c = time.perf_counter(), _cpu()
    done = subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=900)
    return (time.perf_counter() - t, _cpu() - c), done


def _symrel(env, tree=ROOT):
    def decide(paths):
        seconds, done = _timed(["-m", "symrel", "prove", paths[0], paths[1], "--domain", paths[2]], env, tree)
        return seconds, EXIT_RESULTS.get(done.returncode, f"exit {done.returncode}: {done.stderr.strip()[-200:]}")
    return decide


def _z3(env):
    def decide(paths):
        seconds, done = _timed([str(ROOT / "benchmarks" / "z3_decide.py"), *paths], env)
        out = done.stdout.strip() if done.returncode == 0 else f"exit {done.returncode}: {done.stderr.strip()[-200:]}"
        return seconds, out
    return decide


def _tree_at(commit: str, folder: Path) -> Path:
    """The ``symrel`` package of ``commit`` unpacked into ``folder`` (``git archive``; the
    repository is not touched)."""
    folder.mkdir()
    archive = subprocess.run(["git", "archive", commit, "symrel"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def run(count: int = 65, repeat: int = 1, progress: bool = False, before: str | None = None) -> list[dict]:
    """One row per claim: the answers, each tool's least time over ``repeat`` runs, the loads.
    Tools: ``symrel`` (this tree), ``z3``, and with ``before`` (a commit) ``before``, the
    symrel of that commit."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        pycache = Path(tmp) / "pycache"
        trees = {"symrel": ROOT}
        if before:
            trees["before"] = _tree_at(before, Path(tmp) / "before")
        tools = {name: _symrel(_environment(tree, pycache), tree) for name, tree in trees.items()}
        tools["z3"] = _z3(_environment(ROOT, pycache))
        cs = claims(count)
        for name, tree in trees.items():    # untimed: every module's bytecode, as installing a package makes it
            subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree / "symrel")],
                           env=_environment(tree, pycache), check=True, stdout=subprocess.DEVNULL, timeout=900)
        warm = Path(tmp) / "warm"
        warm.mkdir()
        for tool in tools.values():     # untimed: the first run of each reads its files into the page cache
            tool(_write(cs[0], warm))
        names = list(tools)
        for i, claim in enumerate(cs):
            folder = Path(tmp) / f"claim{i}"
            folder.mkdir()
            paths = _write(claim, folder)
            row = {"name": claim["name"], "load": []}
            for r in range(repeat):
                row["load"].append(os.getloadavg()[0])
                k = (i + r) % len(names)
                for name in names[k:] + names[:k]:       # the order rotates from claim to claim
                    (seconds, cpu), result = tools[name](paths)
                    row.setdefault(name + "_s", []).append(seconds)
                    row.setdefault(name + "_cpu", []).append(cpu)
                    row[name] = result
            for name in names:
                row[name + "_s"], row[name + "_cpu"] = min(row[name + "_s"]), min(row[name + "_cpu"])
            rows.append(row)
            if progress:
                print(f"[{i + 1}/{count}] " + "   ".join(f"{n} {row[n]:8s} {row[n + '_s']:6.2f} s" for n in names)
                      + f"   load {row['load'][0]:.1f}   {row['name']}", file=sys.stderr, flush=True)
    return rows


LABELS = {"symrel": "symrel prove", "before": "symrel prove, before (commit {before})", "z3": "z3 (z3_decide.py)"}


def section(rows: list[dict], command: str, seconds: float, before: str | None = None) -> str:
    """The Markdown section: medians and maxima of every tool, the loads, the slowest claims."""
    names = [n for n in ("symrel", "before", "z3") if rows and n in rows[0]]
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
             "each time includes the interpreter's start-up, the imports, reading the files and the decision (symrel's "
             "modules compiled to bytecode first, as installing it does; one untimed run of each tool first). The "
             "processes of a claim run one after the other, in an order that rotates from claim to claim; the load is "
             "the 1-minute load average read before each claim (the machine is shared: the ratios of the tools in one "
             "session are the figures to compare, not the seconds of another run). CPU is the process's user plus "
             f"system time. Run time {seconds:.0f} s.", "",
             f"**{len(rows)} claims: symrel proved {sum(r['symrel'] == 'proved' for r in rows)}, refuted "
             f"{sum(r['symrel'] == 'refuted' for r in rows)}, left open {sum(r['symrel'] == 'open' for r in rows)}; "
             f"z3 agrees on {len(agree)}, disagrees on {len(disagree)}.**", "",
             "| tool | median s | max s | mean s | CPU median s | CPU max s | load (min to max, median) |",
             "|---|---:|---:|---:|---:|---:|---|"]
    load_text = f"{min(loads):.1f} to {max(loads):.1f}, {statistics.median(loads):.1f}" if loads else "-"
    stats = {}
    for name in names:
        xs, cs = [r[name + "_s"] for r in rows], [r[name + "_cpu"] for r in rows]
        stats[name] = (statistics.median(xs), max(xs))
        lines.append(f"| {LABELS[name].format(before=before)} | {statistics.median(xs):.3f} | {max(xs):.3f} | "
                     f"{statistics.fmean(xs):.3f} | {statistics.median(cs):.3f} | {max(cs):.3f} | {load_text} |")
    lines += [""] + [f"Ratio {LABELS[n].format(before=before)} / z3 in this session: median "
                     f"{stats[n][0] / stats['z3'][0]:.2f}, max {stats[n][1] / stats['z3'][1]:.2f}." for n in names
                     if n != "z3"]
    lines += ["", "Slowest claims for either tool:", "",
              "| claim | " + " | ".join(f"{n} | s" for n in names) + " | load |",
              "|---|" + "---|---:|" * len(names) + "---:|"]
    for r in sorted(rows, key=lambda r: -max(r[n + "_s"] for n in names))[:8]:
        lines.append(f"| {r['name']} | " + " | ".join(f"{r[n]} | {r[n + '_s']:.2f}" for n in names)
                     + f" | {r['load'][0]:.1f} |")
    if disagree:
        lines += ["", "Disagreements:", ""] + [f"- {r['name']}: symrel {r['symrel']}, z3 {r['z3']}" for r in disagree]
    odd = [r for r in rows if any(r[n] not in ("proved", "refuted") for n in names)]
    if odd:
        lines += ["", "Undecided by one of them:", ""] + ["- " + r["name"] + ": " + ", ".join(f"{n} {r[n]}" for n in names)
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
    p.add_argument("--out", help="replace the whole-processes section of this page (e.g. docs/benchmarks.md)")
    p.add_argument("--save", help="also write the rows here (JSON)")
    p.add_argument("--before", metavar="COMMIT", help="also time the symrel of this commit (git archive)")
    p.add_argument("--progress", action="store_true")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    rows = run(args.claims, args.repeat, args.progress, args.before)
    command = " ".join(sys.argv[1:] if argv is None else argv)
    text = section(rows, command, time.perf_counter() - t0, args.before)
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
