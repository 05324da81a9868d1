"""CLI conveniences: global options after the subcommand, export's format from -o,
crossval --fail-on-flip, ULPs over nonzero exact values."""

import json

import pytest

NET = {"symrel": 1, "kind": "relu", "input_dim": 1,
       "layers": [{"W": [[1]], "b": [0], "activation": "none"}]}


@pytest.fixture
def net(tmp_path):
    p = tmp_path / "n.json"
    p.write_text(json.dumps(NET))
    return p


def test_global_options_after_the_subcommand(run_cli, net):
    assert run_cli("eval", net, "--input", "1/2", "--max-digits", "3")[0] == 0
    code, _, err = run_cli("eval", net, "--input", "12345/2", "--max-digits", "3")
    assert code == 2 and "at most 3 digits" in err
    code, _, err = run_cli("--max-digits", "3", "eval", net, "--input", "12345/2")  # before it, as before
    assert code == 2 and "at most 3 digits" in err


def test_export_infers_the_format(run_cli, net, tmp_path):
    pytest.importorskip("onnx")
    code, out, err = run_cli("export", net, "-o", tmp_path / "m.onnx")
    assert code == 0 and "onnx" in out and (tmp_path / "m.onnx").is_file()
    code, _, err = run_cli("export", net, "-o", tmp_path / "m.bin")
    assert code == 2 and "-o" in err


def test_crossval_fail_on_flip(run_cli, tmp_path):
    pytest.importorskip("numpy")
    # two outputs x and x + 1e-9: a float32 evaluation ties them near every point, the exact argmax is output 2
    two = {"symrel": 1, "kind": "relu", "input_dim": 1,
           "layers": [{"W": [[1], [1]], "b": [0, "1/1000000000"], "activation": "none"}]}
    p = tmp_path / "two.json"
    p.write_text(json.dumps(two))
    code, out, _ = run_cli("crossval", p, "--points", "20", "--json")
    flips = len(json.loads(out)["flips"]) if "flips" in json.loads(out) else None
    code2, _, err = run_cli("crossval", p, "--points", "20", "--fail-on-flip")
    if flips:
        assert code2 == 1 and "--fail-on-flip" in err
    else:  # pragma: no cover - depends on numpy's rounding
        assert code2 == code


def test_ulps_skip_exact_zeros():
    pytest.importorskip("numpy")
    from symrel.crossval.compare import crossvalidate
    from symrel.models import DenseLayer, ReLUNet

    # 3 ReLU(x/3) - ReLU(x) is exactly 0 everywhere, but not in float32 (1/3 is rounded): the
    # absolute error shows it, and no ULP of an exact 0 (units of 2^-149) is counted
    net = ReLUNet(1, [DenseLayer([["1/3"], [1]], [0, 0]), DenseLayer([[3, -1]], [0], "none")])
    rep = crossvalidate(net, "numpy", "float32", 50, seed=1)
    assert rep.max_abs_error > 0 and rep.max_ulp_error == 0


def test_eval_digits(run_cli, net):
    code, out, _ = run_cli("eval", net, "--input", "1/3", "--digits", "4")
    assert code == 0 and out.strip() == "1/3 (~0.3333)"
    assert run_cli("eval", net, "--input", "1/3", "--digits", "0")[0] == 2
