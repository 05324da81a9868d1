"""The hostile ONNX files of files/ (README.md): each refused with one line naming the file
and the node or axis, exit 2, nothing written; or read whole where a misreading was the risk."""

import pytest

pytest.importorskip("onnx")

from pathlib import Path  # noqa: E402

FILES = Path(__file__).parent / "files"

REFUSED = {
    "onnx-symbolic-inner-axis": r"input x: axis 1 is symbolic \(H\)",
    "onnx-conv-dynamic-weight": r"node conv \(Conv\): expected input 1 \(the weights\) to be a constant",
    "onnx-div-by-zero": r"node normalise \(Div\): division by zero \(entry \[0, 1\] of the divisor\)",
    "onnx-div-by-input": r"node reciprocal \(Div\): a division by a tensor that depends on the input",
    "onnx-batchnorm-irrational": r"node bn \(BatchNormalization\): scale / sqrt\(var \+ epsilon\) of channel 0 is not "
                                 r"rational",
    "onnx-pad-reflect": r"node pad \(Pad\): pad mode 'reflect' is not read",
    "onnx-unsupported-op": r"node squash \(Sigmoid\): operation not supported",
    "onnx-square-of-input": r"node square \(Mul\): a product of two tensors that depend on the input",
    "onnx-skip-connection": r"node residual \(Add\): .*skip connection",
    "onnx-ceil-mode-ambiguous": r"node pool \(MaxPool\): with ceil_mode the last window .*ambiguous",
    "onnx-declared-shape-lie": r"ONNX shape inference fails",
    "onnx-two-inputs": r"expected one graph input",
    "onnx-integer-input": r"input x: expected a float input tensor",
    "onnx-dropout-training": r"node drop \(Dropout\): Dropout in training mode",
    "onnx-not-onnx": r"cannot read the ONNX file",
}


def test_every_file_has_a_readme_row():
    rows = (Path(__file__).parent / "README.md").read_text()
    for f in FILES.glob("onnx-*.onnx"):
        assert f"`files/{f.name}`" in rows, f.name
    assert set(REFUSED) <= {f.stem for f in FILES.glob("onnx-*.onnx")}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_import_refuses_with_one_line(run_cli, tmp_path, name):
    import re

    out = tmp_path / "m.json"
    code, so, err = run_cli("import", FILES / f"{name}.onnx", "-o", out)
    assert code == 2 and not out.exists()
    line = err.strip()
    assert "\n" not in line and "Traceback" not in line and f"{name}.onnx" in line
    assert re.search(REFUSED[name], line), line


@pytest.mark.parametrize("name", ["onnx-symbolic-inner-axis", "onnx-div-by-zero", "onnx-pad-reflect",
                                  "onnx-not-onnx"])
def test_verify_refuses_with_one_line(run_cli, name):
    code, so, err = run_cli("verify", FILES / f"{name}.onnx", FILES / "onnx-first-axis-2.vnnlib")
    assert code == 2 and "\n" not in err.strip() and f"{name}.onnx" in err


def test_crossval_refuses_with_one_line(run_cli, tmp_path):
    from symrel.fileformat import save
    from symrel.models import DenseLayer, ReLUNet

    pytest.importorskip("onnxruntime")
    model = tmp_path / "m.json"
    save(ReLUNet(2, [DenseLayer([[1, 0], [0, 1]], [0, 0], "none")]), model)
    code, so, err = run_cli("crossval", model, "--backend", "onnxruntime", "--onnx-file",
                            FILES / "onnx-symbolic-inner-axis.onnx")
    assert code == 2 and "axis 1 is symbolic" in err and "\n" not in err.strip()


def test_a_first_axis_of_2_is_read_whole_and_its_counterexample_found(run_cli):
    """Where reading one row would prove unsat, the second row's counterexample is found,
    exact, and confirmed by onnxruntime on the file itself."""
    code, so, err = run_cli("verify", FILES / "onnx-first-axis-2.onnx", FILES / "onnx-first-axis-2.vnnlib")
    assert code == 1 and so.startswith("sat")
    values = dict(line.split(" = ") for line in so.splitlines()[1:] if " = " in line)
    assert values["Y_2"].split(" ")[0] == values["X_2"].split(" ")[0]
    assert "Y_3" in values and "X_3" in values


def test_reshape_then_reducemax_has_two_outputs():
    from symrel.exact import Q
    from symrel.interop.onnx_import import read_onnx

    net = read_onnx(FILES / "onnx-reshape-reducemax.onnx").model
    assert net.output_dim == 2 and net.evaluate_exact([Q(1), Q(-3), Q(2), Q(5)]) == [Q(1), Q(5)]
