import os
from concurrent.futures import ProcessPoolExecutor

import pytest

from symrel.errors import InputError
from symrel.statements import parse_formats, run_all, summary_table

from .toy_scripts import good_dir, script_dir  # noqa: F401  (fixtures)


def test_failures_are_reported_not_raised(script_dir, tmp_path):
    out = tmp_path / "out"
    summaries, _ = run_all(script_dir, out, ["md"], progress=False)
    assert [(s.statement.key, s.result, s.passed) for s in summaries] == [
        ("toy-good", "proved", True), ("toy-refuted", "failed", False), ("toy-crash", "error", False)]
    assert {p.name for p in out.iterdir()} == {"index.md", "toy-good.md", "toy-refuted.md", "toy-crash.md"}
    index = (out / "index.md").read_text()
    assert "1 of 3 statements proved" in index and "## Not proved" in index
    assert "**Refuted. Counterexample:** $x = (-\\frac{1}{2})$" in (out / "toy-refuted.md").read_text()
    table = summary_table(summaries)
    assert "Toy 1 (Paper A): max(x, 0) = x on [0, k]" in table and "failed" in table


def test_crashing_script_keeps_its_statement(script_dir, tmp_path):
    summaries, _ = run_all(script_dir, tmp_path / "o", ["md"], progress=False)
    crash = summaries[2]
    assert crash.statement.key == "toy-crash" and crash.result == "error"
    assert crash.error == "ValueError: a prover is missing"
    assert "ValueError: a prover is missing" in (tmp_path / "o" / "toy-crash.md").read_text()


def test_process_pool_gives_the_same_results(script_dir, tmp_path):
    with ProcessPoolExecutor(max_workers=2) as pool:
        summaries, _ = run_all(script_dir, tmp_path / "p", ["md", "html"], executor=pool, progress=False)
    assert [s.result for s in summaries] == ["proved", "failed", "error"]
    assert (tmp_path / "p" / "index.html").is_file() and (tmp_path / "p" / "toy-good.html").is_file()


def test_formats_are_validated():
    assert parse_formats("md,tex,html,json") == ["md", "tex", "html", "json"]
    with pytest.raises(InputError, match="--format"):
        parse_formats("md,pdf")


def test_empty_or_missing_folder(tmp_path):
    with pytest.raises(InputError):
        run_all(tmp_path / "nope", tmp_path / "o", ["md"], progress=False)
    with pytest.raises(InputError, match="at least one proof script"):
        run_all(tmp_path, tmp_path / "o", ["md"], progress=False)


DIES = '''
import os
from symrel.report import Statement
STATEMENT = Statement("toy-dies", "A", "Toy 4", "its worker dies", "paper", "symrel", "narrowing")

def run():
    os._exit(1)
'''


def test_a_run_that_loses_its_worker_writes_nothing(script_dir, tmp_path):
    """All or nothing: the other statements' reports are not left without an index."""
    from symrel.parallel import WorkerLostError

    (script_dir / "d_dies.py").write_text(DIES)
    out = tmp_path / "deep" / "out"
    with ProcessPoolExecutor(max_workers=1) as pool, pytest.raises(WorkerLostError, match="nothing was reported"):
        run_all(script_dir, out, ["md", "json"], executor=pool, progress=False)
    assert list(tmp_path.iterdir()) == [script_dir]  # no out, no parent made for it, no staging folder left


def test_a_rerun_replaces_the_reports_and_keeps_other_files(good_dir, tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "toy-good").mkdir()
    (out / "toy-good" / "old.json").write_text("{}")  # a certificate of an earlier run
    summaries, _ = run_all(good_dir, out, ["md", "json"], progress=False)
    assert (out / "notes.txt").read_text() == "mine" and not (out / "toy-good" / "old.json").exists()
    assert all(f.startswith(str(out)) and os.path.exists(f) for f in summaries[0].files)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o", good_dir.name]
