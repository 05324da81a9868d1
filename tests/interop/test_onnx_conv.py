"""Convolutional nets read exactly: the VNN-COMP 2021 verivital nets (Conv 2x2 with 32
channels, ReLU, average or max pooling 4x4 stride 4, Flatten, Gemm) as layered nets, equal to
the reference evaluator and within float error of onnxruntime."""

from fractions import Fraction

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx")

from symrel.interop.onnx_import import read_onnx  # noqa: E402
from symrel.models.layered import LayeredNet, MaxGroups, Relu, SparseAffine  # noqa: E402

from .onnx_reference import evaluate, exact  # noqa: E402


@pytest.fixture
def verivital(shared_dir):
    return shared_dir / "data" / "vnncomp2021" / "verivital"


def _fractions(values):
    return [Fraction(int(v.numerator), int(v.denominator)) for v in values]


@pytest.mark.parametrize("name", ["Convnet_avgpool", "Convnet_maxpool"])
def test_verivital_nets_are_sparse_layered_nets_equal_to_the_reference(verivital, name):
    path = verivital / f"{name}.onnx"
    net = read_onnx(path).model
    assert isinstance(net, LayeredNet) and (net.input_dim, net.output_dim, net.num_relus) == (784, 10, 23328)
    conv, relu = net.ops[0], net.ops[1]
    # the convolution: one row of four entries per output (2x2 kernel, one input channel)
    assert isinstance(conv, SparseAffine) and isinstance(relu, Relu) and conv.entries == 23328 * 4
    if name == "Convnet_avgpool":
        # AveragePool o Flatten o Gemm composed: 10 rows over the 18,432 pooled ReLUs (the last
        # row and column of each 27 x 27 channel fall outside the 4x4 windows)
        (readout,) = net.ops[2:]
        assert readout.entries == 10 * 18432
    else:
        pool, readout = net.ops[2:]
        assert isinstance(pool, MaxGroups) and len(pool.groups) == 1152 and {len(g) for g in pool.groups} == {16}
        assert readout.entries == 10 * 1152
    model = onnx.load(str(path))
    x = np.random.default_rng(7).uniform(0, 1, (1, 1, 28, 28)).astype(np.float32)
    want = list(evaluate(model, exact(x))["output"].reshape(-1))
    assert _fractions(net.evaluate_exact([Fraction(float(v)) for v in x.reshape(-1)])) == want


@pytest.mark.parametrize("name", ["Convnet_avgpool", "Convnet_maxpool"])
def test_verivital_nets_agree_with_onnxruntime(verivital, name):
    ort = pytest.importorskip("onnxruntime")
    path = verivital / f"{name}.onnx"
    net = read_onnx(path).model
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(11)
    for _ in range(3):
        x = rng.uniform(0, 1, (1, 1, 28, 28)).astype(np.float32)
        y = session.run(None, {"input": x})[0].reshape(-1)
        exact_y = [float(v) for v in net.evaluate_exact([Fraction(float(v)) for v in x.reshape(-1)])]
        assert np.max(np.abs(y - np.array(exact_y))) < 1e-4 * (1 + np.max(np.abs(exact_y)))
