"""Re-check the statements of Papers A and B and write their reports.

``symrel proofs [DIR] --out OUT [--format md,tex,html,json] [--executor SPEC]`` runs every
proof script of DIR (default: the scripts shipped with symrel, which re-check the
statements of Papers A and B), shows progress on standard error,
writes one report per statement and an index into OUT, and prints a summary
table. Exit 0 only when every statement is proved on all its instances (and,
with json, every certificate passes check-certificate), 1 otherwise.
"""

from __future__ import annotations

from ..common import integer_option
from ..executors import add_executor_option, open_executor
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("proofs", help=SUMMARIES["proofs"],
                       description=__doc__.split("\n\n")[1].replace("``", ""))
    p.add_argument("dir", nargs="?", default=None, help="folder of proof scripts (default: the shipped ones)")
    p.add_argument("--out", default="symrel-proofs", help="output folder (default: ./symrel-proofs)")
    p.add_argument("--format", default="md", help="comma-separated formats: md (default), tex, html, json")
    p.add_argument("--jobs", type=integer_option, default=None, help="run statements in N worker processes (--executor processes:N)")
    add_executor_option(p, "the statements")
    p.add_argument("--quiet", action="store_true", help="no progress on standard error")
    p.set_defaults(func=run)


def run(args) -> int:
    from ...statements import default_dir, parse_formats, run_all, summary_table

    formats = parse_formats(args.format)
    folder = args.dir if args.dir is not None else default_dir()
    with open_executor(args.executor, args.jobs) as executor:
        summaries, seconds = run_all(folder, args.out, formats, executor=executor, progress=not args.quiet)
    print(summary_table(summaries))
    proved = sum(1 for s in summaries if s.passed)
    print(f"{proved} of {len(summaries)} statements proved in {seconds:.1f} s; reports in {args.out}")
    return 0 if proved == len(summaries) else 1
