"""Shared fixtures. Tests mirror the package layout (tests/exact, tests/models, ...)."""

import multiprocessing
import os
import sys
from pathlib import Path

import pytest

# The tracr tests import jax, which starts threads; a process pool that forks after that
# can deadlock (Python warns "os.fork() ... JAX is multithreaded"). Tests that make their own
# ProcessPoolExecutor therefore get forkserver children, which start from a clean process.
if sys.platform.startswith("linux"):
    multiprocessing.set_start_method("forkserver", force=True)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """../shared beside the repository (THEORY.md, FORMAT.md, data/)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    return SHARED


@pytest.fixture(scope="session")
def coq_library(tmp_path_factory) -> Path:
    """symrel/coq compiled once per session (symrel.interop.coq.build_library), for the
    replays to reuse; skips without coqc."""
    import shutil

    if shutil.which("coqc") is None:
        pytest.skip("coqc is not installed")
    from symrel.interop.coq import build_library

    return build_library(tmp_path_factory.mktemp("coqlib"), timeout=1200)


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
# progress shows at once in tests (a command line shows it after 2 s of work: symrel.progress)
os.environ.setdefault("SYMREL_PROGRESS_DELAY", "0")


# -- tracr programs, compiled once per session (jax compilation dominates their tests) ------
TRACR_PROGRAMS = {
    # name: (program factory, vocab, max_seq_len, causal)
    "length": (lambda lib, rasp: lib.make_length(), (1, 2, 3), 4, False),
    "hist": (lambda lib, rasp: lib.make_hist(), (1, 2, 3), 4, False),
    "reverse": (lambda lib, rasp: lib.make_reverse(rasp.tokens), (1, 2, 3), 4, False),
    "frac_prevs": (lambda lib, rasp: lib.make_frac_prevs(rasp.tokens == 1), (1, 2, 3), 4, True),
    "sort": (lambda lib, rasp: lib.make_sort(rasp.tokens, rasp.tokens, max_seq_len=4, min_key=1), (1, 2, 3), 4, False),
    "dyck": (lambda lib, rasp: lib.make_shuffle_dyck(["()"]), ("(", ")", "x"), 4, False),
    "hist_small": (lambda lib, rasp: lib.make_hist(), (1, 2), 3, False),
    "frac_small": (lambda lib, rasp: lib.make_frac_prevs(rasp.tokens == 1), (1, 2), 2, False),
    "length10": (lambda lib, rasp: lib.make_length(), (1,), 10, False),
}


@pytest.fixture(scope="session")
def tracr_program():
    """``tracr_program(name) -> (program, vocab, max_seq_len, causal, assembled model)``,
    compiled once per session; skips without the tracr extra."""
    pytest.importorskip("tracr")
    from tracr.compiler import compiling, lib
    from tracr.rasp import rasp

    cache = {}

    def get(name):
        if name not in cache:
            make, vocab, n, causal = TRACR_PROGRAMS[name]
            program = make(lib, rasp)
            model = compiling.compile_rasp_to_model(program, vocab=set(vocab), max_seq_len=n, causal=causal,
                                                    compiler_bos="BOS")
            cache[name] = (program, vocab, n, causal, model)
        return cache[name]

    return get
