from concurrent.futures import ProcessPoolExecutor

import pytest

from symrel.errors import InputError
from symrel.statements import parse_formats, run_all, summary_table

from .toy_scripts import script_dir  # noqa: F401  (fixtures)


def test_failures_are_reported_not_raised(script_dir, tmp_path):
    out = tmp_path / "out"
    summaries, _ = run_all(script_dir, out, ["md"], progress=False)
    assert [(s.statement.key, s.result, s.passed) for s in summaries] == [
        ("toy-good", "proved", True), ("toy-refuted", "failed", False), ("toy-crash", "error", False)]
    assert {p.name for p in out.iterdir()} == {"index.md", "toy-good.md", "toy-refuted.md", "toy-crash.md"}
    index = (out / "index.md").read_text()
    assert "1 of 3 statements proved" in index and "## Not proved" in index
    assert "x = (-1/2)" in (out / "toy-refuted.md").read_text()
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
