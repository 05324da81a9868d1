"""``python -m benchmarks --compare-commit C --only eval,prove,regions``: the same benchmarks
on an earlier commit and on this tree, in one session, side by side.

Commit C is checked out in a temporary git worktree (removed afterwards), with a link to
this tree's ``../shared`` beside it so that both find the same data files. For each chosen
section, C's ``benchmarks/bench_NAME.py`` runs against C's symrel, then this tree's
against this tree's, each in a fresh Python process (``PYTHONPATH`` set to its tree, so
an installed symrel does not interfere), alternating so both see the same machine load.
Every time column of every row (names ending in ``_s`` or ``_ms``, and ``seconds``) is
written as before, after and after / before (below 1: faster now), with the load average
around each run, into the "Before and after" part of the page.

A single run of a section under 0.1 s swings by 10 % or more between fresh processes. With
``--repeat N`` both trees run N times, alternating, and each time column keeps its best run
(the minimum of a time, the maximum of a rate ``..._per_s``), as ``timeit`` does: the
minimum is the run least disturbed by the rest of the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

# Runs one section of a tree; only the standard library and that tree are imported.
_RUNNER = """
import importlib, json, os, sys, time
side, name, out = sys.argv[1:4]
sys.path.insert(0, side)
load = lambda: round(os.getloadavg()[0], 2)
before, t = load(), time.perf_counter()
try:
    rows = importlib.import_module("benchmarks." + name).run()
    error = None
except Exception as err:
    rows, error = [], f"{type(err).__name__}: {err}"
rows = [rows] if isinstance(rows, dict) else rows
took = time.perf_counter() - t
json.dump({"rows": rows, "seconds": took, "error": error, "load_before": before, "load_after": load()},
          open(out, "w"), default=str)
"""


def _git(*args) -> str:
    return subprocess.run(["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True).stdout.strip()


def run_side(tree: Path, name: str, timeout: float = 1800) -> dict:
    """One section on one tree, in a fresh process: rows, seconds, error, load before/after."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = Path(f.name)
    env = dict(os.environ, PYTHONPATH=str(tree))
    try:
        if not (tree / "benchmarks" / f"{name}.py").exists():
            return {"rows": [], "seconds": 0, "error": "not in this tree", "load_before": 0, "load_after": 0}
        proc = subprocess.run([sys.executable, "-c", _RUNNER, str(tree), name, str(out)], cwd=tree, env=env,
                              capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            return {"rows": [], "seconds": 0, "error": proc.stderr.strip().splitlines()[-1:] or ["failed"],
                    "load_before": 0, "load_after": 0}
        return json.loads(out.read_text())
    finally:
        out.unlink(missing_ok=True)


def _is_time(key: str) -> bool:
    return key.endswith("_s") or key.endswith("_ms") or key == "seconds"


def _label(row: dict) -> str:
    """What a row measures: its text columns (else its integer ones), which both trees share."""
    text = [v for k, v in row.items() if isinstance(v, str) and not _is_time(k)]
    if text:
        return ", ".join(text)
    return ", ".join(f"{k}={v}" for k, v in row.items() if isinstance(v, int) and not isinstance(v, bool))


def _is_rate(key: str) -> bool:
    return key.endswith("_per_s")


def best_of(runs: list[dict]) -> dict:
    """One run made of several runs of the same section: rows matched by :func:`_label`
    (in order), each time column at its minimum over the runs and each rate at its maximum;
    seconds and load are the sums and the extremes of the runs. A run that failed counts
    for nothing (all failed: the first one's error).

    >>> r1 = {"rows": [{"benchmark": "x", "t_s": 2.0, "cells_per_s": 5.0}], "seconds": 3, "error": None,
    ...       "load_before": 1.0, "load_after": 1.5}
    >>> r2 = {"rows": [{"benchmark": "x", "t_s": 1.5, "cells_per_s": 6.0}], "seconds": 2, "error": None,
    ...       "load_before": 0.5, "load_after": 2.0}
    >>> best = best_of([r1, r2])
    >>> best["rows"], best["seconds"], best["load_before"], best["load_after"]
    ([{'benchmark': 'x', 't_s': 1.5, 'cells_per_s': 6.0}], 5, 0.5, 2.0)
    """
    ok = [r for r in runs if not r.get("error")]
    if not ok:
        return runs[0]
    rows = [dict(r) for r in ok[0]["rows"]]
    for other in ok[1:]:
        pending = {}
        for r in other["rows"]:
            pending.setdefault(_label(r), []).append(r)
        for row in rows:
            same = pending.get(_label(row))
            if not same:
                continue
            r = same.pop(0)
            for key, v in row.items():
                w = r.get(key)
                if _is_time(key) and isinstance(v, (int, float)) and isinstance(w, (int, float)):
                    row[key] = max(v, w) if _is_rate(key) else min(v, w)
    return {"rows": rows, "seconds": sum(r["seconds"] for r in ok), "error": None,
            "load_before": min(r.get("load_before", 0) for r in ok),
            "load_after": max(r.get("load_after", 0) for r in ok)}


def comparison_rows(name: str, before: dict, after: dict) -> list[dict]:
    """One row per (benchmark row, time column): before, after and their ratio.

    Rows are matched by their text columns (:func:`_label`).

    >>> b = {"rows": [{"benchmark": "x", "exact_s": 2.0, "n": 3}, {"benchmark": "only before", "exact_s": 1}]}
    >>> a = {"rows": [{"benchmark": "x", "exact_s": 1.0, "n": 3}]}
    >>> comparison_rows("bench_x", b, a)
    [{'section': 'bench_x', 'row': 'x', 'measure': 'exact_s', 'before': 2.0, 'after': 1.0, 'after_over_before': 0.5}]
    """
    out, after_rows = [], {}
    for r in after.get("rows", []):
        after_rows.setdefault(_label(r), []).append(r)
    for rb in before.get("rows", []):
        same = after_rows.get(_label(rb))
        if not same:  # a row only one tree has (a data file present for one of them) is left out
            continue
        ra = same.pop(0)
        for key, vb in rb.items():
            va = ra.get(key)
            if _is_time(key) and isinstance(vb, (int, float)) and isinstance(va, (int, float)):
                out.append({"section": name, "row": _label(rb), "measure": key, "before": vb, "after": va,
                            "after_over_before": va / vb if vb else None})
    return out


def compare_commit(commit: str, names: list[str], out_path, repeat: int = 1) -> int:
    from benchmarks.__main__ import COMPARE_END, COMPARE_START, _table, cores, load_note

    try:
        sha = _git("rev-parse", "--verify", f"{commit}^{{commit}}")
    except subprocess.CalledProcessError:
        print(f"python -m benchmarks: error: --compare-commit: {commit!r} is not a commit of {ROOT}", file=sys.stderr)
        return 2
    head = _git("rev-parse", "--short", "HEAD")
    dirty = " + uncommitted changes" if _git("status", "--porcelain", "--untracked-files=no") else ""
    tmp = Path(tempfile.mkdtemp(prefix="symrel-bench-"))
    tree = tmp / sha[:10]
    _git("worktree", "add", "--detach", str(tree), sha)
    shared = ROOT.parent / "shared"   # the data files (ACAS Xu, ...) a benchmark finds beside its tree
    if shared.is_dir():
        (tmp / "shared").symlink_to(shared)
    rows, notes = [], []
    try:
        for name in names:
            befores, afters = [], []
            for k in range(repeat):
                run = f" (run {k + 1} of {repeat})" if repeat > 1 else ""
                print(f"[benchmarks] {name}: {sha[:10]}{run} ...", file=sys.stderr, flush=True)
                befores.append(run_side(tree, name))
                print(f"[benchmarks] {name}: this tree{run} ...", file=sys.stderr, flush=True)
                afters.append(run_side(ROOT, name))
            before, after = best_of(befores), best_of(afters)
            rows += comparison_rows(name, before, after)
            for side, res in ((sha[:10], before), ("this tree", after)):
                state = f"error {res['error']}" if res.get("error") else f"{res['seconds']:.1f} s"
                notes.append(f"- {name} on {side}: {state}; "
                             f"{load_note(res.get('load_before', 0), res.get('load_after', 0), cores())}")
    finally:
        _git("worktree", "remove", "--force", str(tree))
        (tmp / "shared").unlink(missing_ok=True)
        tmp.rmdir()
    part = [
        COMPARE_START,
        f"## Before and after: {sha[:10]} -> {head}{dirty}",
        "",
        f"`python -m benchmarks --compare-commit {commit} --only {','.join(n.removeprefix('bench_') for n in names)}"
        f"{f' --repeat {repeat}' if repeat > 1 else ''}`, "
        f"{datetime.now(timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}: each section ran on commit {sha[:10]} and on",
        "this tree alternately, in fresh processes, in one session"
        + (f", {repeat} times each, every time column at its best run (rates at their best too)" if repeat > 1 else "")
        + ". after / before below 1 means faster now.",
        "",
        *(_table(rows) if rows else ["(no time columns in common)"]),
        "",
        *notes,
        COMPARE_END,
    ]
    from symrel.fileformat import write_text_atomic

    out_path = Path(out_path)
    old = out_path.read_text() if out_path.exists() else "# Benchmarks\n"
    if COMPARE_START in old:
        old = old[:old.index(COMPARE_START)] + old[old.index(COMPARE_END) + len(COMPARE_END):].lstrip("\n")
    write_text_atomic(out_path, old.rstrip("\n") + "\n\n" + "\n".join(part) + "\n")
    print(f"wrote {out_path}")
    return 0
