"""Shared fixtures. Tests mirror the package layout (tests/exact, tests/models, ...)."""

import os
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """../shared beside the repository (THEORY.md, FORMAT.md, data/)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture
def run_cli(capsys):
    """Run the command line in process: returns (exit code, stdout, stderr)."""
    from symrel.cli import main

    def run(*argv):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse usage errors
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err

    return run


os.environ.setdefault("PYTHONHASHSEED", "0")
