"""Mutation campaign: single-parameter mutants of correct instances against every prover.

:func:`run_campaign` returns one :class:`Tally` per prover; :func:`report_markdown` renders
them (``python -m symrel.mutation --out docs/mutation.md``).
"""

from .campaign import CAMPAIGNS, Tally, run_campaign
from .mutants import mutant, parameters
from .report import report_markdown

__all__ = ["CAMPAIGNS", "Tally", "run_campaign", "mutant", "parameters", "report_markdown"]
