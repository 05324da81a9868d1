"""The runner behind ``symrel proofs``: proof scripts, their reports, the index.

A proof script (see :mod:`symrel.statements.scripts`) defines ``STATEMENT`` and
``run()``; :func:`run_all` runs every script of a folder (by default the shipped
ones, :func:`default_dir`), writes one report per statement in each format asked
for, certificates re-checked by :func:`symrel.checking.check_certificate`, and an
index. A script also runs on its own (:func:`standalone`).

>>> parse_formats("md,json")
['md', 'json']
"""

from ..report.statement import Instance, Outcome, Statement, Summary
from .runner import parse_formats, run_all, run_and_write, summary_table
from .scripts import default_dir, discover, load, run_module, run_script
from .standalone import standalone

__all__ = ["Instance", "Outcome", "Statement", "Summary", "default_dir", "discover", "load", "parse_formats",
           "run_all", "run_and_write", "run_module", "run_script", "standalone", "summary_table"]
