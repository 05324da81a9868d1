"""Hostile ONNX files (hostile.py, README.md "A fresh round"): each with its command, exit code and
line; the ones symrel reads are read as onnxruntime runs them."""

import pytest

pytest.importorskip("onnx")

from .hostile import O, rows, run_row, working_folder  # noqa: E402


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return working_folder(tmp_path_factory.mktemp("hostile-onnx"))


@pytest.mark.parametrize("row", rows(O), ids=lambda row: row.file)
def test_each_file(row, folder, run_cli, monkeypatch):
    run_row(run_cli, row, folder, monkeypatch)


@pytest.mark.parametrize("name, x", [("onnx-initializer-listed-as-input.onnx", [1, -2]),
                                     ("onnx-output-is-input.onnx", [0.25, -2]), ("onnx-float16.onnx", [1, 1]),
                                     ("onnx-float64.onnx", [1, 1]), ("onnx-scalar-input.onnx", [-3]),
                                     ("onnx-reserialized.onnx", [1, 0.5])])
def test_what_symrel_reads_onnxruntime_runs(folder, name, x):
    """The exact model at a point of floats equals onnxruntime's output on the file (these nets are
    exact in floats at these points)."""
    ort = pytest.importorskip("onnxruntime")
    import numpy as np

    from symrel.exact import Q, to_float
    from symrel.interop.onnx_import import read_onnx

    model = read_onnx(folder / name).model
    session = ort.InferenceSession(str(folder / name), providers=["CPUExecutionProvider"])
    feed = session.get_inputs()[0]
    dtype = {"tensor(float16)": np.float16, "tensor(double)": np.float64}.get(feed.type, np.float32)
    shape = [d if isinstance(d, int) else 1 for d in feed.shape]
    got = session.run(None, {feed.name: np.array(x, dtype=dtype).reshape(shape)})[0].reshape(-1)
    exact = model.evaluate_exact([Q(v) if isinstance(v, int) else Q(*float(v).as_integer_ratio()) for v in x])
    assert [float(v) for v in got] == [to_float(v) for v in exact]


def test_the_external_weights_are_never_opened(folder, monkeypatch):
    """The refusal comes before the weights' file is read: removing it changes nothing."""
    from symrel.errors import InputError
    from symrel.interop.onnx_import import read_onnx

    (folder / "onnx-external-data.bin").rename(folder / "moved.bin")
    try:
        with pytest.raises(InputError, match="ONNX external data"):
            read_onnx(folder / "onnx-external-data.onnx")
    finally:
        (folder / "moved.bin").rename(folder / "onnx-external-data.bin")
