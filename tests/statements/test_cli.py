"""``symrel proofs`` on a tiny folder of scripts (the shipped ones are run in tests/proofs)."""

from .toy_scripts import good_dir, script_dir  # noqa: F401  (fixtures)


def test_exit_code_and_summary_table(run_cli, script_dir, tmp_path):
    code, out, err = run_cli("proofs", script_dir, "--out", tmp_path / "o", "--format", "md,html")
    assert code == 1
    assert "1 of 3 statements proved" in out
    lines = out.splitlines()
    assert lines[0].split() == ["statement", "instances", "result", "time"]
    assert any("toy-crash: error" in line for line in err.splitlines())  # progress on stderr
    assert (tmp_path / "o" / "index.html").is_file()


def test_all_proved_exits_zero(run_cli, good_dir, tmp_path):
    code, out, err = run_cli("proofs", good_dir, "--out", tmp_path / "o", "--quiet")
    assert code == 0 and err == ""
    assert "1 of 1 statements proved" in out


def test_bad_usage_exits_two(run_cli, good_dir, tmp_path):
    assert run_cli("proofs", good_dir, "--out", tmp_path / "o", "--format", "pdf")[0] == 2
    assert run_cli("proofs", good_dir, "--out", tmp_path / "o", "--jobs", "0")[0] == 2
    assert run_cli("proofs", tmp_path / "missing", "--out", tmp_path / "o")[0] == 2
