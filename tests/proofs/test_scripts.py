"""The shipped proof scripts: each states its claim, and proofs/ holds a copy of each (fast checks)."""

from pathlib import Path

import pytest

from symrel.statements import default_dir, discover, load
from symrel.report import Statement

TOP = Path(__file__).resolve().parents[2] / "proofs"
SCRIPTS = discover(default_dir())


def test_one_script_per_statement_of_both_papers():
    keys = [load(p).STATEMENT.reference for p in SCRIPTS]
    for ref in ("Theorem 3.1", "Theorem 3.2", "Corollary 3.3", "Theorem 4.2", "Theorem 4.4"):
        assert ref in keys
    papers = [load(p).STATEMENT.paper for p in SCRIPTS]
    assert papers.count("A") == 6 and papers.count("B") == 4


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_script_states_its_claim_and_narrowing(path):
    module = load(path)
    st = module.STATEMENT
    assert isinstance(st, Statement) and callable(module.run)
    assert st.key == path.stem.replace("_", "-")
    for text in (st.title, st.paper_claim, st.symrel_claim, st.narrowing):
        assert len(text) > 20
    assert "paper's matrices" not in st.symrel_claim  # name the construction, never "the paper's matrices"


@pytest.mark.skipif(not TOP.is_dir(), reason="not run from a checkout")
def test_top_level_proofs_are_thin_copies():
    assert sorted(p.name for p in TOP.glob("*.py")) == sorted(p.name for p in SCRIPTS)
    for path in SCRIPTS:
        copy = load(TOP / path.name)
        assert copy.STATEMENT == load(path).STATEMENT
        assert len((TOP / path.name).read_text().splitlines()) < 30


@pytest.mark.skipif(not TOP.is_dir(), reason="not run from a checkout")
def test_a_copy_runs_on_its_own(tmp_path):
    """``python proofs/<script>.py``: the Markdown report on stdout, exit 0 when proved."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(TOP / "a3_relu_nets.py")], capture_output=True, text=True,
                          cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("# Corollary 3.3 (Paper A)") and "**Result: proved.**" in done.stdout
    assert "a3-relu-nets: the hat function" in done.stderr  # progress
