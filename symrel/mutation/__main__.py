"""``python -m symrel.mutation [--out docs/mutation.md] [--per-instance N]``: run the
campaign and write its report; exit 1 when there is any defect (a function-changing mutant
proved, or a refutation the independent check contradicts)."""

import argparse
import os
import sys
import time

from ..fileformat import write_text_atomic
from . import report_markdown, run_campaign

parser = argparse.ArgumentParser(prog="python -m symrel.mutation")
parser.add_argument("--out", default=None, help="write the Markdown report here (default: print it)")
parser.add_argument("--per-instance", type=int, default=None, help="mutants per instance (default: each campaign's own)")
args = parser.parse_args()
start = time.perf_counter()
tallies = run_campaign(per_instance=args.per_instance, progress=True)
load = " ".join(f"{v:.2f}" for v in os.getloadavg()) if hasattr(os, "getloadavg") else ""
text = report_markdown(tallies, seconds=time.perf_counter() - start, load=load)
if args.out:
    write_text_atomic(args.out, text)
else:
    print(text, end="")
sys.exit(1 if any(t.defects for t in tallies) else 0)
