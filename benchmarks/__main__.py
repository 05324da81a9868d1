"""Run every benchmark and write ``docs/benchmarks.md``.

``python -m benchmarks [--only eval,lp,scale-out] [--out docs/benchmarks.md]``
``python -m benchmarks --compare-commit 23e6b14 --only eval,prove,regions``

Each ``benchmarks/bench_*.py`` module has ``run()`` returning rows (dicts) measured side
by side in one process: symrel's exact path and its baseline (plain Fractions, numpy
float64, float HiGHS, sympy, cdd.gmp, ...), with their ratio. This command runs them
all, one section per module, and records the machine and library versions, so the page
is produced by the command and never written by hand.

A figure means little without the load it was measured under: every section records
the load average (1 minute) before and after it and the cores the process may use, and a
section run under a load above the number of cores is marked **loaded** on the page.
With ``--only``, the sections run replace theirs on the page and the others are kept,
each with the date and load it was measured under.

The whole page takes about 5 to 6 minutes on an idle 2-core machine. The CPU seconds of
its sections in one run (2026-12-01, under a load of about 8, where the run took 18
minutes of wall time): cpwl 82, scale-out 67, tracr 64, prove 21, softmax 21, eval 19,
regions 18, preorders 16, crossval 6, relations 4, lp 2; start-up about 10. Each section
ends with its wall and CPU time, so a slower section shows on the page.

``--compare-commit C`` checks out commit C in a temporary git worktree and runs the
chosen benchmarks there and on the current tree, alternately, section by section, each
in a fresh process, in the same session (same machine, same load); it writes their times
side by side, with the ratio after / before, into the page's "Before and after" part
(the rest of the page is kept). ``--repeat N`` runs both trees N times, alternating, and
keeps each time column's best run (see :mod:`benchmarks.compare`).
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import pkgutil
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _versions() -> dict:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for name in ("sympy", "mpmath", "networkx", "python-flint", "gmpy2", "numpy", "scipy", "onnxruntime", "torch"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    from symrel.exact import ground_types

    out["sympy ground types"] = ground_types()
    return out


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {cpu}"


def _cell(v) -> str:
    """A table cell: floats to 4 significant digits, nothing (not ``None``) for a missing value.

    >>> [_cell(v) for v in (None, 0.0, 1234.5, 0.1234567, [1, 2.5], "a|b")]
    ['', '0', '1.23e+03', '0.1235', '1, 2.5', 'a\\|b']
    """
    if v is None:
        return ""
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 1000 or abs(v) < 0.001:
            return f"{v:.3g}"
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return ", ".join(_cell(x) for x in v)
    if isinstance(v, dict):
        return "; ".join(f"{k}={_cell(x)}" for k, x in v.items())
    return str(v).replace("|", "\\|").replace("\n", " ")


def _table(rows: list[dict]) -> list[str]:
    keys: list[str] = []
    for r in rows:
        for k in r:
            if k not in keys:
                keys.append(k)
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    for r in rows:
        lines.append("| " + " | ".join(_cell(r.get(k, "")) for k in keys) + " |")
    return lines


def modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if m.name.startswith("bench_"))


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def load() -> float:
    """The 1-minute load average (0 where the system has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):  # pragma: no cover
        return 0.0


def load_note(before: float, after: float, n: int) -> str:
    """``load 0.4 -> 0.9 on 2 cores``, marked **loaded** when either is above the core count.

    >>> load_note(0.4, 0.9, 2), load_note(1.5, 8.1, 2)
    ('load 0.4 -> 0.9 on 2 cores', '**loaded**: load 1.5 -> 8.1 on 2 cores (figures inflated)')
    """
    text = f"load {before:g} -> {after:g} on {n} cores"
    return f"**loaded**: {text} (figures inflated)" if max(before, after) > n else text


def selected(only: str | None) -> list[str]:
    """Module names for ``--only`` (``scale-out`` is ``bench_scale_out``); unknown names are skipped."""
    names = modules()
    if only:
        wanted = {"bench_" + n.strip().replace("-", "_") for n in only.split(",")}
        names = [n for n in names if n in wanted]
    return names


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (worker processes,
    Dask's nannies and workers): on a loaded machine the wall time of a serial section
    grows with the load, its CPU time much less, so the two side by side say how much
    of a time is waiting for a core."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def run_section(name: str):
    """Run one benchmark module: ``(title, rows, seconds, error, load before, load after)``
    (its CPU seconds are in :data:`SECTION_CPU`)."""
    mod = importlib.import_module(f"benchmarks.{name}")
    before = load()
    t, cpu = time.perf_counter(), cpu_seconds()
    try:
        rows = mod.run()
        error = None
    except Exception as err:  # a benchmark that cannot run here is reported, not hidden
        rows, error = [], f"{type(err).__name__}: {err}"
    took = time.perf_counter() - t
    SECTION_CPU[name] = cpu_seconds() - cpu
    if isinstance(rows, dict):
        rows = [rows]
    title = " ".join((mod.__doc__ or name).strip().split("\n\n")[0].split())
    return title, rows, took, error, before, load()


SECTION_CPU: dict = {}


def _header(extra=()) -> list[str]:
    return [
        "# Benchmarks",
        "",
        "Produced by `python -m benchmarks` and by the commands the sections name (do not edit by",
        "hand). The figures are the current ones; earlier runs are in git's history of this page.",
        "Every row is measured side by side in one process: symrel's exact path against its",
        "baseline, with the ratio. Times in",
        "seconds unless a column says otherwise. Each section gives the load average (1 minute)",
        "before and after it; a section run under a load above the core count is marked **loaded**:",
        "its times are inflated and its ratios are not to be trusted. Wall times on these shared",
        "machines can also swing by 10 to 30 % between runs a minute apart, unseen by the load",
        "average: [instruction counts](instructions.md) of the same workloads",
        "(`python -m benchmarks.instructions`) do not depend on the load.",
        "",
        f"- generated: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {_machine()}; cores used: {cores()}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in _versions().items()),
        *extra,
        "",
    ]


COMPARE_START = "<!-- before-and-after: written by python -m benchmarks --compare-commit -->"
COMPARE_END = "<!-- end of before-and-after -->"
CHECKER_START = "<!-- checker time: written by python -m benchmarks.bench_checker --compare-commit --out -->"
CHECKER_END = "<!-- end of checker time -->"
# the decision campaign's small claims against z3 as whole processes (benchmarks.decision_processes)
DECISION_START, DECISION_END = "<!-- whole-processes -->", "<!-- /whole-processes -->"
COQ_START, COQ_END = "<!-- coq replay: written by python -m benchmarks.coq_replay --out -->", "<!-- /coq replay -->"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated module names without the bench_ prefix (default: all)")
    ap.add_argument("--out", default=str(HERE.parent / "docs" / "benchmarks.md"), help="where to write the page")
    ap.add_argument("--compare-commit", metavar="COMMIT",
                    help="run the chosen benchmarks on COMMIT (a temporary git worktree) and on this tree")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="with --compare-commit: run both trees N times, alternating, and keep each time's best run")
    ap.add_argument("--json", metavar="FILE", help=argparse.SUPPRESS)  # one section's rows, for --compare-commit
    args = ap.parse_args(argv)
    names = selected(args.only)
    if args.compare_commit:
        from .compare import compare_commit

        if args.repeat < 1:
            print(f"python -m benchmarks: error: --repeat: expected a whole number >= 1, got {args.repeat}", file=sys.stderr)
            return 2
        return compare_commit(args.compare_commit, names, args.out, repeat=args.repeat)
    if args.json:
        import json

        out = {name: run_section(name) for name in names}
        Path(args.json).write_text(json.dumps(out, default=str))
        return 0
    sections = []
    start = time.perf_counter()
    for name in names:
        print(f"[benchmarks] {name} ...", file=sys.stderr, flush=True)
        title, rows, took, error, before, after = run_section(name)
        sections.append((name, title, rows, took, error, before, after))
        print(f"[benchmarks] {name} done in {took:.1f} s, CPU {SECTION_CPU[name]:.1f} s ({load_note(before, after, cores())})",
              file=sys.stderr, flush=True)

    from symrel.fileformat import write_text_atomic

    old = Path(args.out).read_text() if Path(args.out).exists() else ""
    kept = old_sections(old) if args.only else {}
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    for name, title, rows, took, error, before, after in sections:
        text = [f"## {name}", "", title, ""]
        if error:
            text += [f"Could not run here: `{error}`", ""]
        elif rows:
            text += _table(rows) + [""]
        text += [f"(section took {took:.1f} s, CPU {SECTION_CPU.get(name, 0):.1f} s, measured {stamp}; "
                 f"{load_note(before, after, cores())})", ""]
        kept[name] = "\n".join(text)
    total = time.perf_counter() - start
    print(f"[benchmarks] {len(sections)} sections in {total:.0f} s", file=sys.stderr, flush=True)
    lines = _header([f"- last run: {', '.join(n for n, *_ in sections) if args.only else 'every section'} "
                     f"in {total:.0f} s ({load_note(sections[0][5], sections[-1][6], cores())})"] if sections else ())
    lines += [kept[name] for name in sorted(kept)]
    if COMPARE_START in old:  # keep the before-and-after part of an earlier --compare-commit run
        lines += [old[old.index(COMPARE_START):old.index(COMPARE_END) + len(COMPARE_END)], ""]
    if CHECKER_START in old:  # and the checker's before-and-after (benchmarks.bench_checker)
        lines += [old[old.index(CHECKER_START):old.index(CHECKER_END) + len(CHECKER_END)], ""]
    if DECISION_START in old:  # and the decision campaign against z3 (benchmarks.decision_processes)
        lines += [old[old.index(DECISION_START):old.index(DECISION_END) + len(DECISION_END)], ""]
    if COQ_START in old:  # and the Coq replay's timing (benchmarks.coq_replay)
        lines += [old[old.index(COQ_START):old.index(COQ_END) + len(COQ_END)], ""]
    write_text_atomic(args.out, "\n".join(lines))
    print(f"wrote {args.out}")
    return 0


def old_sections(page: str) -> dict:
    r"""The ``## bench_*`` sections of an earlier page, by name (``--only`` replaces the ones it
    runs and keeps the others, each with its own date and load).

    >>> old_sections("# B\n\n## bench_a\n\nrows\n\n## bench_b\n\nmore\n")
    {'bench_a': '## bench_a\n\nrows\n', 'bench_b': '## bench_b\n\nmore\n'}
    """
    for marker in (COMPARE_START, CHECKER_START, DECISION_START, COQ_START):
        if marker in page:
            page = page[:page.index(marker)]
    out, name = {}, None
    for line in page.splitlines(keepends=True):
        if line.startswith("## bench_"):
            name = line[3:].strip()
            out[name] = ""
        if name is not None:
            out[name] += line
    return {k: v.rstrip("\n") + "\n" for k, v in out.items()}


if __name__ == "__main__":
    sys.exit(main())
