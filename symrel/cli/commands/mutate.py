"""``symrel mutate [--out REPORT.md] [--prover NAME ...] [--per-instance N] [--executor SPEC] [--json]``: run the
mutation campaign (:mod:`symrel.mutation`) and write its Markdown report. Exit 0 when no
prover proved a function-changing mutant, 1 otherwise (the defects are listed)."""

from __future__ import annotations

import time

from ...errors import InputError
from ...fileformat import write_text_atomic
from ..common import add_json_flag, add_progress_option, integer_option, print_json
from ..executors import add_executor_option, open_executor
from . import SUMMARIES


def register(sub):
    from ...mutation import CAMPAIGNS

    p = sub.add_parser("mutate", help=SUMMARIES["mutate"])
    p.add_argument("--out", help="write the Markdown report here (atomically)")
    p.add_argument("--prover", action="append", choices=sorted(CAMPAIGNS),
                   help="run only this prover's campaign (repeatable; default: all)")
    p.add_argument("--per-instance", type=integer_option, default=None, metavar="N",
                   help="mutants per correct instance (default: each campaign's own)")
    add_progress_option(p, "a line per prover on standard error")
    add_executor_option(p, "the instances' mutants")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ...mutation import CAMPAIGNS, report_markdown, run_campaign

    if args.per_instance is not None and args.per_instance < 1:
        raise InputError(f"expected at least 1 mutant per instance, got {args.per_instance}", path="--per-instance")
    start = time.perf_counter()
    with open_executor(args.executor) as executor:
        tallies = run_campaign(tuple(args.prover or CAMPAIGNS), per_instance=args.per_instance, progress=args.progress,
                               executor=executor)
    text = report_markdown(tallies, seconds=time.perf_counter() - start)
    if args.out:
        write_text_atomic(args.out, text)
    defects = sum(t.defects for t in tallies)
    if args.json:
        print_json({"mutants": sum(t.mutants for t in tallies), "defects": defects,
                    "provers": {t.prover: {"mutants": t.mutants, "refuted": t.refuted, "open": t.open,
                                           "equivalent_proved": t.equivalent_proved, "defects": t.defects,
                                           "defect_paths": t.defect_paths} for t in tallies}})
    else:
        if not args.out:
            print(text, end="")
        print(defects)
    return 1 if defects else 0
