"""Running every proof script of a folder: the engine of ``symrel proofs``.

Each script runs in a worker (any :class:`concurrent.futures.Executor`; in
process by default), which writes that statement's reports and certificates
and hands back a small :class:`~symrel.report.statement.Summary`. The index
(``index.md``, and ``index.html`` with html) and the summary table come last.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import Executor
from pathlib import Path

from ..errors import InputError
from ..fileformat import write_text_atomic
from ..parallel import map_ordered
from ..report import FORMATS, render_index
from ..report.statement import Summary
from .outputs import write_outcome
from .scripts import discover, run_script


def parse_formats(text: str) -> list[str]:
    """``"md,tex"`` -> ``["md", "tex"]``; errors name the option.

    >>> parse_formats("md, html")
    ['md', 'html']
    """
    formats = [f.strip().lower() for f in text.split(",") if f.strip()]
    bad = [f for f in formats if f not in FORMATS]
    if not formats or bad:
        raise InputError(f"expected a comma-separated list of {', '.join(FORMATS)}, got {text!r}", path="--format")
    return list(dict.fromkeys(formats))


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run_and_write(script, out, formats, verbose: bool = True) -> Summary:
    """Run one script and write its outputs (the unit of work of a worker)."""
    outcome = run_script(script, progress=_stderr if verbose else None)
    try:
        write_outcome(outcome, out, formats)
    except Exception as err:  # a report that cannot be written fails the statement, visibly
        outcome.error = (outcome.error + "\n" if outcome.error else "") + f"writing the reports failed: {err!r}"
    return outcome.summary()


def _run_one(out, formats, verbose, script) -> Summary:
    return run_and_write(script, out, formats, verbose)


def run_all(folder, out, formats=("md",), executor: Executor | None = None, progress: bool = True) -> tuple[list[Summary], float]:
    """Run every script of ``folder``, write every report and the index into ``out``.

    Returns the summaries in script order and the wall time. The scripts run on
    ``executor`` (:func:`symrel.parallel.map_ordered`; the workers write the reports,
    so remote workers need ``folder`` and ``out`` at the same paths: a shared file system).
    """
    scripts = discover(folder)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()

    def show(done, total, s):
        _stderr(f"[{done}/{total}] {s.statement.key}: {s.result} ({s.instances} instances, {s.seconds:.1f} s)")

    summaries = map_ordered(_run_one, [str(s) for s in scripts], executor, shared=(str(out), list(formats), progress),
                            progress=show if progress else None)
    seconds = time.perf_counter() - start
    write_text_atomic(out / "index.md", render_index(summaries, list(formats), seconds, "md"))
    if "html" in formats:
        write_text_atomic(out / "index.html", render_index(summaries, list(formats), seconds, "html"))
    return summaries, seconds


def summary_table(summaries: list[Summary]) -> str:
    """The plain-text table printed at the end: statement, instances, result, time."""
    rows = [("statement", "instances", "result", "time")]
    rows += [(s.statement.heading, str(s.instances), s.result, f"{s.seconds:.1f} s") for s in summaries]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = ["  ".join(c.ljust(w) if i in (0, 2) else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
             for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
