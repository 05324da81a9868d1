def test_demo_prints_exact_values(run_cli):
    code, out, err = run_cli("demo")
    assert code == 0
    assert "f(1/2, -1/4) = 13/12" in out


def test_eval_one_point(run_cli, tmp_path):
    m = tmp_path / "m.json"
    m.write_text('{"symrel": 1, "kind": "cpwl1d", "x": [0, "1/2", 1], "y": [0, 1, 0]}')
    code, out, err = run_cli("eval", m, "--input", "-1/4")
    assert (code, out) == (0, "-1/2\n")


def test_eval_relation_features_by_part(run_cli, tmp_path):
    import json

    relu = {"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [{"W": [[2]], "b": [1], "activation": "none"}]}
    feats = tmp_path / "f.json"
    feats.write_text(json.dumps({"symrel": 1, "kind": "relation-features", "phi": relu, "psi": {**relu, "layers": [{"W": [[3]], "b": [0], "activation": "none"}]}}))
    assert run_cli("eval", feats, "--input", "1/2", "--part", "phi")[1] == "2\n"
    assert run_cli("eval", feats, "--input", "1/2", "--part", "psi")[1] == "3/2\n"
    code, _, err = run_cli("eval", feats, "--input", "1/2")
    assert code == 2 and "--part" in err
