from pathlib import Path

from benchmarks.bench_checker import ROOT, _best, check_times, write_certificates


def test_best_round_is_the_least_cpu_and_a_refusal_is_kept():
    rounds = [[{"cpu_s": 3, "load_before": 1}, {"refused": "E: a"}], [{"cpu_s": 2, "load_before": 9}, {"cpu_s": 5}]]
    assert _best(rounds) == [{"cpu_s": 2, "load_before": 9}, {"cpu_s": 5}]


def test_this_tree_writes_and_checks_a_depth_one_certificate(tmp_path: Path):
    index = write_certificates(ROOT, tmp_path, depths=[1], acas=False)
    assert [e["name"] for e in index] == ["bench_prove depth 1"] and Path(index[0]["path"]).exists()
    rows = check_times(ROOT, index, repeat=1)
    assert len(rows) == 1 and "refused" not in rows[0] and rows[0]["cpu_s"] > 0


def test_a_refused_certificate_is_reported_not_raised(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"symrel": true}')
    rows = check_times(ROOT, [{"name": "bad", "path": str(bad), "kB": 0}], repeat=1)
    assert rows[0]["name"] == "bad" and "refused" in rows[0] and "cpu_s" not in rows[0]


def test_the_checker_part_is_written_once_and_kept_by_the_page_command(tmp_path: Path):
    from benchmarks.__main__ import CHECKER_END, CHECKER_START, main
    from benchmarks.bench_checker import page_part, write_page

    out = tmp_path / "benchmarks.md"
    out.write_text("# Benchmarks\n\n## bench_a\n\nrows\n")
    rows = [{"certificate": "c", "before cpu_s": 1.0, "after cpu_s": 1.2, "after/before": 1.2, "cross refusal": "E: x"}]
    for _ in range(2):   # a second run replaces the first part
        write_page(out, page_part(rows, "abc1234", 1, 1))
    text = out.read_text()
    assert text.count(CHECKER_START) == 1 and "Slower by more than 5 %: c." in text and "`E: x`" in text
    assert main(["--only", "none-such", "--out", str(out)]) == 0
    kept = out.read_text()
    assert kept.count(CHECKER_START) == 1 and kept.count(CHECKER_END) == 1 and "## bench_a" in kept
