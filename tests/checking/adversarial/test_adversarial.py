"""Every hand-written adversarial certificate is refused (README.md beside this file)."""

import pytest

import os

from .harness import HARD_TIMEOUT, cases, run_all
from .listing import PAGE, section

# seconds of CPU for the check itself (the "within a second"); sympy's pure-Python
# ground types (the core-only CI run, no flint or gmpy2) do the same arithmetic about 3x slower
CPU_LIMIT = 3.0 if os.environ.get("SYMPY_GROUND_TYPES") == "python" else 1.0


CASES = cases()


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Every case's outcome, from one interpreter (harness.run_all)."""
    return run_all(CASES, tmp_path_factory.mktemp("adversarial"), timeout=HARD_TIMEOUT * 5)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_an_adversarial_certificate_is_refused(case, outcomes):
    outcome = outcomes[case.name]
    assert "Traceback" not in outcome.stderr, outcome.stderr[-3000:]
    assert "MemoryError" not in outcome.stderr, outcome.stderr[-3000:]
    assert outcome.exit == case.exit, (outcome.exit, outcome.stdout[-2000:], outcome.stderr[-2000:])
    assert "checked" not in outcome.stdout.split(), outcome.stdout[-2000:]
    assert case.says in outcome.stderr, outcome.stderr[-2000:]
    assert outcome.cpu < CPU_LIMIT, f"{outcome.cpu:.2f} s of CPU"


def test_the_cases_are_listed_in_docs_checker_md():
    assert section() in PAGE.read_text(encoding="utf-8")
