def test_demo_prints_exact_values(run_cli):
    code, out, err = run_cli("demo")
    assert code == 0
    assert "f(1/2, -1/4) = 13/12" in out


def test_eval_one_point(run_cli, tmp_path):
    m = tmp_path / "m.json"
    m.write_text('{"symrel": 1, "kind": "cpwl1d", "x": [0, "1/2", 1], "y": [0, 1, 0]}')
    code, out, err = run_cli("eval", m, "--input", "-1/4")
    assert (code, out) == (0, "-1/2\n")
