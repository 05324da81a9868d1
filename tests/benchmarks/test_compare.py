"""``python -m benchmarks --compare-commit``: rows matched by what they measure, a bad commit
refused, the before-and-after part kept when the page is regenerated; load notes."""

from benchmarks.__main__ import COMPARE_END, COMPARE_START, load_note, main, selected
from benchmarks.compare import comparison_rows


def test_rows_are_matched_by_their_text_columns():
    before = {"rows": [{"benchmark": "a", "ground_types": "flint", "t_s": 2.0},
                       {"benchmark": "a", "ground_types": "python", "t_s": 4.0}]}
    after = {"rows": [{"benchmark": "a", "ground_types": "python", "t_s": 1.0},
                      {"benchmark": "a", "ground_types": "flint", "t_s": 3.0}]}
    got = {r["row"]: r["after_over_before"] for r in comparison_rows("bench_a", before, after)}
    assert got == {"a, flint": 1.5, "a, python": 0.25}


def test_a_bad_commit_exits_2(tmp_path, capsys):
    assert main(["--compare-commit", "no-such-commit-xyz", "--only", "eval", "--out", str(tmp_path / "b.md")]) == 2
    assert "not a commit" in capsys.readouterr().err and not (tmp_path / "b.md").exists()


def test_the_before_and_after_part_survives_a_regeneration(tmp_path):
    out = tmp_path / "b.md"
    out.write_text(f"# Benchmarks\n\nold\n\n{COMPARE_START}\n## Before and after: x\n{COMPARE_END}\n")
    assert main(["--only", "none-such", "--out", str(out)]) == 0
    text = out.read_text()
    assert "old" not in text and "## Before and after: x" in text and "cores used" in text


def test_load_notes_and_section_names():
    assert load_note(3.0, 1.0, 2).startswith("**loaded**") and "loaded" not in load_note(1.0, 2.0, 2)
    assert selected("scale-out,eval") == ["bench_eval", "bench_scale_out"]


def test_best_of_keeps_each_time_at_its_minimum_and_each_rate_at_its_maximum():
    from benchmarks.compare import best_of

    runs = [{"rows": [{"benchmark": "a", "t_s": 2.0, "n_per_s": 5.0}, {"benchmark": "b", "t_s": 1.0}],
             "seconds": 3.0, "error": None, "load_before": 1.0, "load_after": 1.0},
            {"rows": [], "seconds": 0, "error": "boom", "load_before": 0, "load_after": 0},
            {"rows": [{"benchmark": "b", "t_s": 0.5}, {"benchmark": "a", "t_s": 3.0, "n_per_s": 4.0}],
             "seconds": 4.0, "error": None, "load_before": 2.0, "load_after": 0.5}]
    best = best_of(runs)
    assert best["rows"] == [{"benchmark": "a", "t_s": 2.0, "n_per_s": 5.0}, {"benchmark": "b", "t_s": 0.5}]
    assert (best["seconds"], best["load_before"], best["load_after"]) == (7.0, 1.0, 1.0)
    assert best_of(runs[1:2])["error"] == "boom"


def test_a_repeat_below_one_exits_2(tmp_path, capsys):
    assert main(["--compare-commit", "HEAD", "--repeat", "0", "--only", "eval", "--out", str(tmp_path / "b.md")]) == 2
    assert "--repeat" in capsys.readouterr().err and not (tmp_path / "b.md").exists()
