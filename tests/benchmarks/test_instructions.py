"""benchmarks.instructions: the parts that need no valgrind run (a run takes minutes)."""

import shutil

from benchmarks import instructions
from benchmarks.instructions import WORKLOADS, main, parse_refs, program, table


def test_every_workload_is_a_valid_program():
    for w in WORKLOADS:
        for calls in (0, 1):
            compile(program(instructions.ROOT, w, calls), w.name, "exec")


def test_the_summary_line_is_read_and_a_missing_one_is_an_error():
    assert parse_refs("==1== I   refs:      1,234\n==1== \n") == 1234
    try:
        parse_refs("valgrind: command not found")
    except RuntimeError as err:
        assert "no instruction count" in str(err)
    else:
        raise AssertionError("a missing count was not refused")


def test_the_table_gives_the_ratio():
    lines = table(["a", "b"], [1_000_000, 4_000_000], [1_000_000, 3_000_000])
    assert lines[2].endswith("| 1.000 |") and lines[3].endswith("| 0.750 |")


def test_without_valgrind_the_command_says_so(monkeypatch, capsys):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["--compare-commit", "HEAD"]) == 2
    assert "needs valgrind" in capsys.readouterr().err


def test_a_failed_run_is_one_line_and_writes_nothing(monkeypatch, capsys, tmp_path):
    if shutil.which("valgrind") is None:
        monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/valgrind")

    def fails(tree, w, pool=None):
        raise RuntimeError(f"{w.name} on {tree}: valgrind: failed")

    monkeypatch.setattr(instructions, "warm_call", fails)
    out = tmp_path / "instructions.md"
    assert main(["--compare-commit", "HEAD", "--out", str(out)]) == 2
    assert "valgrind: failed" in capsys.readouterr().err and not out.exists()
