"""Running one proof script on its own: ``python proofs/<script>.py [--out DIR] [--format ...]``.

Without ``--out`` the statement's Markdown report goes to standard output;
the exit code is 0 when every instance came out as expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys


def standalone(path, argv=None) -> int:
    """The ``__main__`` of a proof script at ``path``; returns the exit code."""
    from ..report import render_outcome
    from .runner import parse_formats, run_and_write
    from .scripts import run_script

    parser = argparse.ArgumentParser(description=f"re-check the statement of {path}")
    parser.add_argument("--out", help="write the reports into this folder instead of printing Markdown")
    parser.add_argument("--format", default="md", help="with --out: comma-separated md,tex,html,json")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.out:
        from pathlib import Path

        Path(args.out).mkdir(parents=True, exist_ok=True)
        summary = run_and_write(path, args.out, parse_formats(args.format))
        print(f"{summary.statement.heading}: {summary.result} ({summary.instances} instances, {summary.seconds:.1f} s)")
        return 0 if summary.passed else 1
    outcome = run_script(path, progress=lambda line: print(line, file=sys.stderr, flush=True))
    print(render_outcome(outcome, "md"), end="")
    return 0 if outcome.passed else 1
