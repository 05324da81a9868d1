"""Running every proof script of a folder: the engine of ``symrel proofs``.

Each script runs in a worker (any :class:`concurrent.futures.Executor`; in
process by default), which writes that statement's reports and certificates
and hands back a small :class:`~symrel.report.statement.Summary`. The index
(``index.md``, and ``index.html`` with html) and the summary table come last; the
files appear in the output folder only when every statement has run (:func:`run_all`).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
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

    All or nothing: the workers write into a fresh folder beside ``out``, whose files are
    moved into ``out`` only once every statement has run and the index is written. When
    the run stops before (a worker lost for good, an interrupt), that folder is removed
    and ``out`` is as it was: no report set without its index, no index of part of it.
    """
    scripts = discover(folder)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"expected a folder for the reports, got the file {str(out)!r}", path="--out")
    start = time.perf_counter()

    def show(done, total, s):
        _stderr(f"[{done}/{total}] {s.statement.key}: {s.result} ({s.instances} instances, {s.seconds:.1f} s)")

    staging = _staging_folder(out)
    try:
        summaries = map_ordered(_run_one, [str(s) for s in scripts], executor,
                                shared=(str(staging), list(formats), progress), progress=show if progress else None)
        summaries = [_moved(s, staging, out) for s in summaries]
        seconds = time.perf_counter() - start
        write_text_atomic(staging / "index.md", render_index(summaries, list(formats), seconds, "md"))
        if "html" in formats:
            write_text_atomic(staging / "index.html", render_index(summaries, list(formats), seconds, "html"))
        _publish(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return summaries, seconds


def _staging_folder(out: Path) -> Path:
    """A new empty folder for the run's files, in the nearest existing folder above
    ``out`` (so that moving the files into ``out`` is a rename on one file system)."""
    base = out.absolute().parent
    while not base.is_dir():
        base = base.parent
    return Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=base))


def _moved(summary: Summary, staging: Path, out: Path) -> Summary:
    """``summary`` with the paths of its files (and of its error) where they will be in ``out``."""
    summary.files = [str(out / Path(f).relative_to(staging)) for f in summary.files]
    summary.error = summary.error.replace(str(staging), str(out))
    return summary


def _publish(staging: Path, out: Path) -> None:
    """Move the run's files from ``staging`` into ``out``, the index last. A statement's
    certificate folder replaces the certificates an earlier run left there (they must
    not pass for this run's); other files in ``out`` stay."""
    out.mkdir(parents=True, exist_ok=True)
    entries = sorted(staging.iterdir(), key=lambda p: (p.name.startswith("index."), p.name))
    for entry in entries:
        if entry.is_dir():
            target = out / entry.name
            target.mkdir(exist_ok=True)
            for stale in target.glob("*.json"):
                stale.unlink()
            for f in sorted(entry.iterdir()):
                if _finished(f):
                    os.replace(f, target / f.name)
        elif _finished(entry):
            os.replace(entry, out / entry.name)


def _finished(path: Path) -> bool:
    """Not the temporary file of an atomic write that a killed worker left behind."""
    return path.is_file() and not (path.name.startswith(".") and path.name.endswith(".tmp"))


def summary_table(summaries: list[Summary], columns: int = 80) -> str:
    """The plain-text table printed at the end: statement, instances, result, time. It fits
    in ``columns`` characters: a long statement wraps inside its column.

    >>> from types import SimpleNamespace as NS
    >>> row = NS(statement=NS(heading="A very long statement heading " * 3), instances=2, result="proved",
    ...          seconds=1.25)
    >>> print(summary_table([row], columns=50))
    statement                 instances  result   time
    ------------------------  ---------  ------  -----
    A very long statement             2  proved  1.2 s
    heading A very long
    statement heading A very
    long statement heading
    """
    import textwrap

    rows = [("statement", "instances", "result", "time")]
    rows += [(s.statement.heading, str(s.instances), s.result, f"{s.seconds:.1f} s") for s in summaries]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    widths[0] = max(len(rows[0][0]), min(widths[0], columns - sum(widths[1:]) - 6))
    lines = []
    for r in rows:
        wrapped = textwrap.wrap(r[0], widths[0]) or [""]
        first = (wrapped[0],) + r[1:]
        lines.append("  ".join(c.ljust(w) if i in (0, 2) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(first, widths))).rstrip())
        lines += wrapped[1:]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
