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


def _conv_gemm(tmp_path, relu):
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(5)
    w = (rng.integers(-4, 5, (3, 1, 2, 2)) / 4).astype(np.float32)
    g = (rng.integers(-4, 5, (2, 27)) / 8).astype(np.float32)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("Flatten", ["c"], ["f"])]
    if relu:
        nodes = [nodes[0], helper.make_node("Relu", ["c"], ["r"]), helper.make_node("Flatten", ["r"], ["f"])]
    nodes.append(helper.make_node("Gemm", ["f", "g"], ["y"], transB=1))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 1, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(g, "g")])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    p = tmp_path / f"cg{int(relu)}.onnx"
    p.write_bytes(m.SerializeToString())
    return p, m


def test_a_composition_beyond_the_limit_becomes_an_operator_of_its_own(tmp_path, monkeypatch):
    """Conv then Gemm with nothing between compose into one map; past COMPOSE_LIMIT the conv is
    kept as an operator of its own (two affine operators in a row), with the same values."""
    import symrel.interop.onnx_layers as layers

    p, m = _conv_gemm(tmp_path, relu=False)
    x = np.random.default_rng(2).uniform(-1, 1, (1, 1, 4, 4)).astype(np.float32)
    point = [Fraction(float(v)) for v in x.reshape(-1)]
    want = list(evaluate(m, exact(x))["y"].reshape(-1))
    composed = read_onnx(p).model
    assert [op.op for op in composed.ops] == ["affine"] and _fractions(composed.evaluate_exact(point)) == want
    monkeypatch.setattr(layers, "COMPOSE_LIMIT", 10)
    split = read_onnx(p).model
    assert [op.op for op in split.ops] == ["affine", "affine"] and _fractions(split.evaluate_exact(point)) == want


def test_a_dense_net_beyond_the_dense_limit_is_layered(tmp_path, monkeypatch):
    import symrel.interop.onnx_layers as layers
    from symrel.models import ReLUNet
    from symrel.models.layered import from_relu_net

    p, m = _conv_gemm(tmp_path, relu=True)
    relu_net = read_onnx(p).model
    assert isinstance(relu_net, LayeredNet)  # a convolution: layered whatever its size
    from onnx import TensorProto, helper, numpy_helper

    W = np.arange(12, dtype=np.float32).reshape(3, 4) / 8 - 0.5
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
                              "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
                              [numpy_helper.from_array(W, "W")])
    q = tmp_path / "mlp.onnx"
    q.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
    dense = read_onnx(q).model
    monkeypatch.setattr(layers, "DENSE_LIMIT", 5)
    sparse = read_onnx(q).model
    assert isinstance(dense, ReLUNet) and isinstance(sparse, LayeredNet) and sparse == from_relu_net(dense)
