from benchmarks.__main__ import _table, main, modules


def test_every_benchmark_module_has_run():
    import importlib

    names = modules()
    assert "bench_eval" in names and len(names) >= 6
    for name in names:
        assert callable(importlib.import_module(f"benchmarks.{name}").run)


def test_page_is_written_by_the_command(tmp_path):
    out = tmp_path / "benchmarks.md"
    assert main(["--only", "none-such", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("# Benchmarks") and "python -m benchmarks" in text and "sympy ground types" in text


def test_table_has_every_key():
    lines = _table([{"a": 1.5, "b": "x"}, {"a": 2, "c": [1, 2]}])
    assert lines[0] == "| a | b | c |" and lines[3] == "| 2 |  | 1, 2 |"


def test_a_rerun_keeps_the_hand_run_sections(tmp_path):
    """The checker's before-and-after and the whole-process decision timings are written by their
    own commands; ``python -m benchmarks`` keeps them when it rewrites the page."""
    out = tmp_path / "benchmarks.md"
    kept = ["<!-- checker time: written by python -m benchmarks.bench_checker --compare-commit --out -->\nC\n"
            "<!-- end of checker time -->", "<!-- whole-processes -->\nW\n<!-- /whole-processes -->",
            "<!-- coq replay: written by python -m benchmarks.coq_replay --out -->\nQ\n<!-- /coq replay -->"]
    out.write_text("# Benchmarks\n\n" + "\n\n".join(kept) + "\n")
    assert main(["--only", "none-such", "--out", str(out)]) == 0
    text = out.read_text()
    assert all(part in text for part in kept)


def test_the_coq_replay_part_is_replaced_not_repeated(tmp_path):
    from benchmarks.coq_replay import write_part

    out = tmp_path / "benchmarks.md"
    out.write_text("# Benchmarks\n\ntext\n")
    write_part(out, ["| depth |", "|---|", "| 1 |"], acas=False)
    write_part(out, ["| depth |", "|---|", "| 2 |"], acas=True)
    text = out.read_text()
    assert text.count("## The Coq replay") == 1 and "| 2 |" in text and "| 1 |" not in text
    assert text.startswith("# Benchmarks\n\ntext\n") and "--acas --out" in text
