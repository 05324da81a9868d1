"""Run every benchmark and write ``docs/benchmarks.md``.

``python -m benchmarks [--only eval,lp] [--out docs/benchmarks.md]``

Each ``benchmarks/bench_*.py`` module has ``run()`` returning rows (dicts) measured side
by side in one process: symrel's exact path and its baseline (plain Fractions, numpy
float64, float HiGHS, sympy, cdd.gmp, ...), with their ratio. This command runs them
all, one section per module, and records the machine and library versions, so the page
is produced by the command and never written by hand.
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="comma-separated module names without the bench_ prefix (default: all)")
    ap.add_argument("--out", default=str(HERE.parent / "docs" / "benchmarks.md"), help="where to write the page")
    args = ap.parse_args(argv)
    names = modules()
    if args.only:
        wanted = {f"bench_{n.strip()}" for n in args.only.split(",")}
        names = [n for n in names if n in wanted]
    sections = []
    for name in names:
        mod = importlib.import_module(f"benchmarks.{name}")
        print(f"[benchmarks] {name} ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        try:
            rows = mod.run()
            error = None
        except Exception as err:  # a benchmark that cannot run here is reported, not hidden
            rows, error = [], f"{type(err).__name__}: {err}"
        took = time.perf_counter() - t
        if isinstance(rows, dict):
            rows = [rows]
        title = " ".join((mod.__doc__ or name).strip().split("\n\n")[0].split())
        sections.append((name, title, rows, took, error))
        print(f"[benchmarks] {name} done in {took:.1f} s", file=sys.stderr, flush=True)

    lines = [
        "# Benchmarks",
        "",
        "Produced by `python -m benchmarks` (do not edit by hand). Every row is measured side by",
        "side in one process: symrel's exact path against its baseline, with the ratio. Times in",
        "seconds unless a column says otherwise.",
        "",
        f"- generated: {datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}",
        f"- machine: {_machine()}",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in _versions().items()),
        "",
    ]
    for name, title, rows, took, error in sections:
        lines += [f"## {name}", "", title, ""]
        if error:
            lines += [f"Could not run here: `{error}`", ""]
        elif rows:
            lines += _table(rows) + [""]
        lines += [f"(section took {took:.1f} s)", ""]
    from symrel.fileformat import write_text_atomic

    write_text_atomic(args.out, "\n".join(lines))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
