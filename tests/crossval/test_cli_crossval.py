"""``symrel crossval``: output contract, report file, exit codes, missing extras."""

import json
import sys

import pytest

from symrel.exact import rational
from symrel.fileformat import save
from symrel.models import Box, DenseLayer, ReLUNet
from symrel.crossval.examples import tied_values_hardmax

pytest.importorskip("numpy")


@pytest.fixture
def model_file(tmp_path):
    p = tmp_path / "net.json"
    save(ReLUNet(2, [DenseLayer([[1, "1/3"], [2, -1]], [0, "1/7"]), DenseLayer([[1, 1], [1, -1]], [0, 0], "none")]), p)
    return p


def test_json_output(run_cli, model_file):
    code, out, err = run_cli("crossval", model_file, "--points", "50", "--dtype", "float16", "--json", "--seed", "3")
    assert code == 0, err
    js = json.loads(out)
    assert {"max_abs_error", "max_ulp_error", "worst_input", "flips"} <= set(js)
    assert rational(js["max_abs_error"]) > 0 and len(js["worst_input"]) == 2
    assert js["dtype"] == "float16" and js["weight_rounding"]["dtype"] == "float16"


def test_plain_output_report_and_domain(run_cli, model_file, tmp_path):
    dom = tmp_path / "d.json"
    save(Box([[0, 1], ["-1/2", "1/2"]]), dom)
    rep = tmp_path / "r.md"
    code, out, err = run_cli("crossval", model_file, "--points", "30", "--domain", dom, "--report", rep)
    assert code == 0, err
    rational(out.strip().splitlines()[-1])  # the figure alone on the last line
    assert "# Cross-validation" in rep.read_text()


def test_hardmax_disagreement_in_onnxruntime_exits_1(run_cli, tmp_path):
    pytest.importorskip("onnxruntime")
    p = tmp_path / "t.json"
    save(tied_values_hardmax(), p)
    code, out, err = run_cli("crossval", p, "--backend", "onnxruntime", "--points", "10")
    assert code == 1
    assert "first-maximiser Hardmax changes the answer: 1" in out


def test_missing_extra_is_one_line_exit_2(run_cli, model_file, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    code, out, err = run_cli("crossval", model_file, "--backend", "onnxruntime", "--points", "5")
    assert code == 2
    lines = [ln for ln in err.splitlines() if "error" in ln]
    assert len(lines) == 1 and "pip install 'symrel[onnx]'" in lines[0]


def test_bad_domain_dimension(run_cli, model_file, tmp_path):
    dom = tmp_path / "d.json"
    save(Box([[0, 1]]), dom)
    code, out, err = run_cli("crossval", model_file, "--domain", dom, "--points", "5")
    assert code == 2 and "d.json" in err and "dimension 2" in err


@pytest.mark.parametrize("dtype, bound", [("float32", 10**39), ("float64", 10**309), ("float16", -70000)])
def test_a_domain_beyond_the_float_range_is_refused(run_cli, model_file, tmp_path, dtype, bound):
    """The points are floats of the dtype inside the domain: a bound beyond its finite range is
    refused naming it (it was an OverflowError traceback, found by tests/hardening)."""
    dom = tmp_path / "d.json"
    dom.write_text(json.dumps({"symrel": 1, "kind": "box", "bounds": [[0, 1], sorted([0, bound])]}))
    code, out, err = run_cli("crossval", model_file, "--domain", dom, "--points", "5", "--dtype", dtype)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"d.json: domain.bounds[1][{0 if bound < 0 else 1}]: expected a domain within the finite range of {dtype}" \
        in err, err


def test_onnx_file_as_it_is(run_cli, shared_dir, tmp_path):
    pytest.importorskip("onnxruntime")
    base = shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1"
    m, box = tmp_path / "a.json", tmp_path / "box.json"
    assert run_cli("import", base.with_suffix(".onnx"), "-o", m)[0] == 0
    assert run_cli("import", base.with_suffix(".nnet"), "-o", tmp_path / "n.json", "--box", box)[0] == 0
    code, out, err = run_cli("crossval", m, "--backend", "onnxruntime", "--onnx-file", base.with_suffix(".onnx"),
                             "--domain", box, "--points", "100", "--no-special", "--json")
    assert code == 0, err
    js = json.loads(out)
    assert js["points"] == 100 and "ACASXU" in js["backend"] and rational(js["max_abs_error"]) > 0
    code, out, err = run_cli("crossval", m, "--onnx-file", base.with_suffix(".onnx"))
    assert code == 2 and "--backend onnxruntime" in err
