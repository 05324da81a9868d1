"""Bad input: exit code 2 and one line naming the file and the path; no traceback,
no partial output file."""

import json

import pytest

GOOD_MAXOUT = {
    "symrel": 1, "kind": "maxout", "input_dim": 2,
    "layers": [{"units": [{"pieces": [{"w": [1, "-2/3"], "b": "1/2"}, {"w": [0, 1], "b": 0}]}]}],
    "readout": {"W": [[2]], "b": [0]},
}

BAD = {
    "json float": ('{"symrel": 1, "kind": "maxout", "input_dim": 1, "layers": [{"units": [{"pieces": [{"w": [1], "b": 0.5}]}]}]}',
                   "layers[0].units[0].pieces[0].b"),
    "wrong dimension": (json.dumps({**GOOD_MAXOUT, "input_dim": 3}), "layers[0].units[0].pieces[0].w"),
    "missing key": ('{"symrel": 1, "kind": "maxout", "input_dim": 1, "layers": [{"units": [{"pieces": [{"w": [1]}]}]}]}',
                    "layers[0].units[0].pieces[0].b"),
    "empty layer": ('{"symrel": 1, "kind": "maxout", "input_dim": 1, "layers": [{"units": []}]}', "layers[0].units"),
    "non-rational string": ('{"symrel": 1, "kind": "cpwl1d", "x": [0, "one"], "y": [0, 1]}', "x[1]"),
    "truncated file": (json.dumps(GOOD_MAXOUT)[:-7], "line 1"),
    "duplicate key": ('{"symrel": 1, "kind": "cpwl1d", "x": [0, 1], "x": [0, 2], "y": [0, 1]}', "duplicate key"),
    "nan token": ('{"symrel": 1, "kind": "cpwl1d", "x": [0, NaN], "y": [0, 1]}', "NaN"),
    "unknown kind": ('{"symrel": 1, "kind": "perceptron"}', "kind"),
    "wrong version": ('{"symrel": 2, "kind": "cpwl1d"}', "symrel"),
    "not an object": ("[1, 2]", "symrel object"),
    "bad utf-8": (b'{"symrel": 1, "kind": "\xff"}', "UTF-8"),
    "readout width": (json.dumps({**GOOD_MAXOUT, "readout": {"W": [[1, 2]], "b": [0]}}), "readout.W[0]"),
}


@pytest.mark.parametrize("name", sorted(BAD))
@pytest.mark.parametrize("command", ["eval", "convert", "info"])
def test_bad_model_files(name, command, run_cli, tmp_path):
    text, where = BAD[name]
    model = tmp_path / "model.json"
    model.write_bytes(text if isinstance(text, bytes) else text.encode())
    out = tmp_path / "out.json"
    args = {"eval": ["eval", model, "--input", "1/2,1"], "convert": ["convert", model, "--to", "maxout", "-o", out], "info": ["info", model]}[command]
    code, stdout, stderr = run_cli(*args)
    assert code == 2
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert str(model) in lines[0] and where in lines[0]
    assert "Traceback" not in stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [model]


def test_bad_point_and_negative_values(run_cli, tmp_path):
    model = tmp_path / "m.json"
    model.write_text(json.dumps(GOOD_MAXOUT))
    assert run_cli("eval", model, "--input", "1/2")[0] == 2
    assert run_cli("eval", model, "--input", "a,b")[0] == 2
    code, out, _ = run_cli("eval", model, "--input", "-1/2,3")
    assert code == 0 and out == "6\n"  # 2 * max(-1/2 - 2 + 1/2, 3)
    assert run_cli("eval", model, "--input=-1/2,3")[1] == "6\n"


def test_batch_eval_json(run_cli, tmp_path):
    model = tmp_path / "m.json"
    model.write_text(json.dumps(GOOD_MAXOUT))
    pts = tmp_path / "p.json"
    pts.write_text('{"symrel": 1, "kind": "points", "x": [[0, 0], ["1/3", "-1"]]}')
    code, out, _ = run_cli("eval", model, "--inputs", pts, "--json")
    assert code == 0
    assert json.loads(out) == {"symrel": 1, "kind": "values", "y": [[1], [3]]}
    bad = tmp_path / "q.json"
    bad.write_text('{"symrel": 1, "kind": "points", "x": [[0]]}')
    code, out, err = run_cli("eval", model, "--inputs", bad)
    assert code == 2 and "x[0]" in err and str(bad) in err


def test_convert_writes_atomically(run_cli, tmp_path):
    model = tmp_path / "r.json"
    model.write_text('{"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [{"W": [[2], [2]], "b": [0, -1], "activation": "relu"}, {"W": [[1, -2]], "b": [0], "activation": "none"}]}')
    out = tmp_path / "m.json"
    code, _, _ = run_cli("convert", model, "--to", "maxout", "-o", out)
    assert code == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json", "r.json"]
    code, stdout, _ = run_cli("eval", out, "--input", "1/4")
    assert stdout == "1/2\n"


def test_number_size_limit_is_configurable(run_cli, tmp_path):
    model = tmp_path / "m.json"
    model.write_text('{"symrel": 1, "kind": "cpwl1d", "x": [0, "123456789"], "y": [0, 1]}')
    assert run_cli("eval", model, "--input", "1")[0] == 0
    code, _, err = run_cli("--max-digits", "5", "eval", model, "--input", "1")
    assert code == 2 and "x[1]" in err and "digits" in err
    big = tmp_path / "big.json"
    big.write_text('{"symrel": 1, "kind": "cpwl1d", "x": [0, "1e99999999999"], "y": [0, 1]}')
    code, _, err = run_cli("eval", big, "--input", "1")
    assert code == 2 and "exponent" in err
