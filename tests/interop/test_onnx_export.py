"""ONNX export run through onnxruntime, including the compiled hardmax Transformer."""

import pytest

from symrel.exact import Q
from symrel.models import Box, MaxoutLayer, MaxoutNet, MaxoutUnit, AffineMap
from symrel.crossval.examples import tied_values_hardmax

pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
np = pytest.importorskip("numpy")
from symrel.interop.onnx_export import OnnxRuntimeRunner, save_onnx, to_onnx  # noqa: E402
from symrel.interop.onnx_import import read_onnx  # noqa: E402
from symrel.interop.numpy_export import NumpyModel  # noqa: E402


def _maxout():
    return MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [-1, 0], [0, 1]], [0, 0, "1/4"]),
                                      MaxoutUnit([[1, 1], [0, -1]], [0, "1/2"])])], AffineMap([[1, -2]], [1]))


def test_onnxruntime_matches_numpy_in_float64():
    m = _maxout()
    X = np.random.default_rng(0).uniform(-1, 1, (50, 2))
    a = OnnxRuntimeRunner(m, "float64").trace(X)
    b = NumpyModel(m, "float64").trace(X)
    assert [n for n, _ in a] == [n for n, _ in b]
    for (_, u), (_, v) in zip(a, b):
        assert np.allclose(u, v, rtol=0, atol=1e-14)


def test_hardmax_tie_follows_the_first_maximiser():
    t = tied_values_hardmax()
    out = OnnxRuntimeRunner(t, "float32").trace(np.array([[0.0], [0.5], [-0.5]]))[-1][1][:, 0]
    assert out.tolist() == [1.0, 1.5, -0.5]  # symrel's hardmax gives 1/2 at the tie x = 0


def test_compiled_transformer_round_trips_and_runs(tmp_path):
    compiler = pytest.importorskip("symrel.compiler")
    D = Box([[-1, 1], [-1, 1]])
    T = compiler.compile_model(_maxout(), D).transformer
    path = tmp_path / "t.onnx"
    rounding = save_onnx(T, path, "float32")  # onnxruntime has no float64 Hardmax kernel
    assert rounding.max_error == 0
    imported = read_onnx(path)
    assert imported.model == T and "first maximiser" in imported.notes[0]
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    pts = [[Q(1, 2), Q(-3, 4)], [Q(-1, 8), Q(1, 4)]]
    y = sess.run(None, {"x": np.array([[float(v) for v in p] for p in pts], dtype=np.float32)})[0]
    assert np.allclose(y, [[float(v) for v in T(p)] for p in pts], rtol=0, atol=1e-5)


def test_metadata_and_float16_export():
    proto, rounding = to_onnx(_maxout(), "float16", trace=True)
    meta = {p.key: p.value for p in proto.metadata_props}
    assert meta["symrel_kind"] == "maxout" and "first maximiser" in meta["symrel_hardmax"]
    assert rounding.format == "float16" and rounding.max_error == 0
