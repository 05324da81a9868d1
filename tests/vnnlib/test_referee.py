"""Referee mode: ``symrel verify NET PROP --check-witness W.txt`` checks another tool's
counterexample exactly, and says when only the competition's float check accepts it (exit 4)."""

import json

import pytest

from symrel.exact import format_rational, rational as q
from symrel.vnnlib.witness import exact_decimal

from .test_cli import files  # noqa: F401  (the small net and property)

ACAS = "ACASXU_run2a_1_1_batch_2000.onnx"


def witness_text(x, y=None):
    pairs = [f"(X_{i} {v})" for i, v in enumerate(x)] + [f"(Y_{j} {v})" for j, v in enumerate(y or [])]
    return "sat\n(" + "\n ".join(pairs) + ")\n"


def test_confirmed_witness_exits_0(files, tmp_path, run_cli):  # noqa: F811
    w = tmp_path / "w.txt"
    w.write_text(witness_text(["0.75", "0.125"], ["0.625", "0.125"]))
    code, out, err = run_cli("verify", *files, "--check-witness", w)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "confirmed" and "input in the region: yes" in lines
    assert "Y_0 = 5/8 (~0.625)  claimed 5/8 (~0.625)" in lines and "unsafe condition at the exact outputs: holds" in lines
    assert "competition float check: not run (needs an .onnx network and onnxruntime)" in lines


def test_wrong_claimed_outputs_are_reported_but_x_decides(files, tmp_path, run_cli):  # noqa: F811
    w = tmp_path / "w.txt"
    w.write_text("((X_0 0.75) (X_1 0.125) (Y_0 0.6) (Y_1 0))")    # no verdict word, claimed outputs off
    code, out, _ = run_cli("verify", *files, "--check-witness", w, "--json")
    obj = json.loads(out)
    assert code == 0 and obj["verdict"] == "confirmed" and obj["claimed_difference"] == "1/8"


def test_refuted_witness_exits_1_saying_why(files, tmp_path, run_cli):  # noqa: F811
    w = tmp_path / "w.txt"
    w.write_text(witness_text(["1.0000001", "0.6"]))           # outside the box, and f(x)_0 < 1/2
    report = tmp_path / "r.md"
    code, out, _ = run_cli("verify", *files, "--check-witness", w, "--report", report)
    lines = out.splitlines()
    assert code == 1 and lines[0] == "refuted" and "**Result: witness refuted.**" in report.read_text()
    assert "input in the region: no (the nearest disjunct misses by 1/10000000 (~1e-7))" in lines
    assert any(line.startswith("unsafe condition at the exact outputs: fails") for line in lines)


@pytest.mark.parametrize("text, expected", [
    ("unsat\n", "expected a counterexample (sat), got the verdict 'unsat'"),
    ("sat\n((X_0 0.5)\n (X_1 1/2))", "line 3: expected a decimal value, got '1/2'"),
    ("sat\n((X_0 0.5))", "expected a value for every input, missing X_1"),
    ("sat\n((X_0 0.5) (X_1 0) (X_7 1))", "line 2: expected a variable of the network (2 inputs), got X_7"),
    ("sat\n((X_0 0.5) (X_1 0) (Y_0 1))", "expected all outputs or none, missing Y_1"),
    ("sat\n((X_0 0.5) (X_1 0)", "closed by ')'"),
])
def test_malformed_witness_exits_2(files, tmp_path, run_cli, text, expected):  # noqa: F811
    w = tmp_path / "w.txt"
    w.write_text(text)
    code, out, err = run_cli("verify", *files, "--check-witness", w)
    assert code == 2 and expected in err and str(w) in err and err.count("\n") == 1


@pytest.fixture
def acas_float_only(shared_dir, tmp_path):
    """ACAS Xu 1_1 at the centre of property 1's box, a property whose threshold lies 1e-6
    above the exact output Y_0 there, and a witness claiming onnxruntime's outputs: the
    competition's check (tolerance 1e-4) accepts it; exactly, Y_0 misses the threshold."""
    pytest.importorskip("onnxruntime")
    from symrel.interop.onnx_import import read_onnx

    from symrel.cli.vnn import float_outputs

    net_path = shared_dir / "data" / "vnncomp2021" / "acasxu" / ACAS
    net = read_onnx(net_path).model
    lo = [q("0.6"), q("-0.5"), q("-0.5"), q("0.45"), q("-0.5")]
    hi = [q("0.679857769"), q("0.5"), q("0.5"), q("0.5"), q("-0.45")]
    x = [(a + b) / 2 for a, b in zip(lo, hi)]
    y = net.evaluate_exact(x)
    threshold = q(int(y[0] * 10**6) + 1) / 10**6 if y[0] > 0 else -q(int(-y[0] * 10**6)) / 10**6
    assert y[0] < threshold < y[0] + q(2) / 10**6
    box = "".join(f"(assert (>= X_{i} {exact_decimal(a)})) (assert (<= X_{i} {exact_decimal(b)}))\n"
                  for i, (a, b) in enumerate(zip(lo, hi)))
    decl = "".join(f"(declare-const {v}_{i} Real)\n" for v in "XY" for i in range(5))
    prop = tmp_path / "near.vnnlib"
    prop.write_text(decl + box + f"(assert (>= Y_0 {exact_decimal(threshold)}))\n")
    floats = float_outputs(net_path, x)
    w = tmp_path / "w.txt"
    w.write_text(witness_text([exact_decimal(v) for v in x], [repr(v) for v in floats]))
    return net_path, prop, w, y, threshold


def test_float_only_witness_exits_4(acas_float_only, run_cli):
    net_path, prop, w, y, threshold = acas_float_only
    code, out, err = run_cli("verify", net_path, prop, "--check-witness", w)
    lines = out.splitlines()
    assert code == 4 and lines[0] == "float-only"
    assert f"Y_0 = {format_rational(y[0])} (~" in out.split("claimed")[0]
    assert "competition float check (onnxruntime, atol 0.0001): passes" in out
    assert "float-only counterexample" in err
    # the exact miss is reported: threshold - Y_0 exactly
    assert f"misses by {format_rational(threshold - y[0])}" in out


def test_confirmed_acas_witness_passes_both_checks(acas_float_only, tmp_path, run_cli):
    net_path, prop, w, y, threshold = acas_float_only
    lower = tmp_path / "lower.vnnlib"   # the same witness against a threshold below Y_0
    lower.write_text(prop.read_text().replace(f"(>= Y_0 {exact_decimal(threshold)})",
                                              f"(>= Y_0 {exact_decimal(threshold - q(1) / 1000)})"))
    code, out, _ = run_cli("verify", net_path, lower, "--check-witness", w, "--json")
    obj = json.loads(out)
    assert code == 0 and obj["verdict"] == "confirmed" and obj["float_check"]["passes"]
