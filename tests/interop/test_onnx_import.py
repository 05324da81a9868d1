"""Exact ONNX import: ACAS Xu (MATLAB export), round trips, hand-built maxout graphs, errors."""

import pytest

from symrel.errors import InputError
from symrel.exact import Q, rows
from symrel.interop.floats import FORMATS, round_to_format
from symrel.models import AffineMap, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet

onnx = pytest.importorskip("onnx")
np = pytest.importorskip("numpy")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from symrel.interop.onnx_export import to_onnx  # noqa: E402
from symrel.interop.onnx_import import read_onnx  # noqa: E402


@pytest.fixture
def acas(shared_dir):
    base = shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1"
    return base.with_suffix(".nnet"), base.with_suffix(".onnx")


def _entries(net):
    for L in net.layers:
        for M in (L.affine.exact_W, L.affine.exact_b):
            for r in rows(M):
                yield from r


def test_acas_onnx_is_the_float32_rounding_of_the_nnet(acas):
    from symrel.interop.nnet import read_nnet

    nnet, onnx_path = acas
    imported = read_onnx(onnx_path)
    a, b = read_nnet(nnet), imported.model
    assert imported.provenance()["from_floats"] and imported.number_types == ["float32"]
    assert b.widths == a.widths and [L.activation for L in b.layers] == [L.activation for L in a.layers]
    pairs = list(zip(_entries(a), _entries(b)))
    assert len(pairs) == 13305
    # every float32 weight is exactly the nearest float32 to the decimal weight
    assert all(round_to_format(x, FORMATS["float32"]) == y for x, y in pairs)
    # the exact largest difference between the two weight sets
    assert max(abs(x - y) for x, y in pairs) == Q(1507, 3276800000)


def _save(tmp_path, proto, name="m.onnx"):
    p = tmp_path / name
    p.write_bytes(proto.SerializeToString())
    return p


def test_relu_and_maxout_round_trip(tmp_path):
    relu = ReLUNet(2, [DenseLayer([["1/4", 2], [-1, "3/8"]], [0, "1/2"]), DenseLayer([[1, -1]], ["-1/16"], "none")])
    maxout = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [-1, 0], [0, 1]], [0, 0, "1/4"]),
                                        MaxoutUnit([[1, 1], [0, -1]], [0, "1/2"])])], AffineMap([[1, -2]], [1]))
    for model in (relu, maxout):
        proto, rounding = to_onnx(model, "float32")
        assert rounding.max_error == 0  # dyadic weights are float32 values
        assert read_onnx(_save(tmp_path, proto)).model == model


def test_max_and_gemm_graph_imports_as_maxout(tmp_path):
    W1 = np.array([[1.0, 0.5], [-1.0, 0.25]], dtype=np.float32)
    W2 = np.array([[0.0, 1.0], [2.0, -0.5]], dtype=np.float32)
    nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["p1"], transB=1),
             helper.make_node("Gemm", ["x", "W2", "b2"], ["p2"], transB=1, alpha=0.5),
             helper.make_node("Max", ["p1", "p2", "zero"], ["h"]),
             helper.make_node("MatMul", ["h", "R"], ["y"])]
    inits = [numpy_helper.from_array(a, n) for n, a in [
        ("W1", W1), ("b1", np.array([0.1, 0], np.float32)), ("W2", W2), ("b2", np.array([0, -1], np.float32)),
        ("zero", np.array(0.0, np.float32)), ("R", np.array([[1.0], [-3.0]], np.float32))]]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 1])], inits)
    m = read_onnx(_save(tmp_path, helper.make_model(g))).model
    assert isinstance(m, MaxoutNet) and m.layers[0].ranks == [3, 3]
    tenth = Q(*float(np.float32(0.1)).as_integer_ratio())
    x = [Q(1, 2), Q(-1)]
    p1 = [Q(1, 2) - Q(1, 2) + tenth, Q(-1, 2) - Q(1, 4)]
    p2 = [Q(1, 2) * -1, Q(1, 2) * (1 + Q(1, 2)) - 1]
    h = [max(a, b, 0) for a, b in zip(p1, p2)]
    assert m(x) == [h[0] - 3 * h[1]]


def test_reduce_max_graph(tmp_path):
    W = np.arange(12, dtype=np.float64).reshape(6, 2) / 8 - 0.5
    nodes = [helper.make_node("MatMul", ["x", "Wt"], ["p"]),
             helper.make_node("Reshape", ["p", "shape"], ["g"]),
             helper.make_node("ReduceMax", ["g"], ["y"], axes=[2], keepdims=0)]
    inits = [numpy_helper.from_array(W.T.copy(), "Wt"), numpy_helper.from_array(np.array([0, 2, 3], np.int64), "shape")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, ["N", 2])],
                          [helper.make_tensor_value_info("y", TensorProto.DOUBLE, ["N", 2])], inits)
    m = read_onnx(_save(tmp_path, helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))).model
    x = [Q(1, 3), Q(-2)]
    Wq = [[Q(*float(v).as_integer_ratio()) for v in r] for r in W]
    want = [max(r[0] * x[0] + r[1] * x[1] for r in Wq[3 * u:3 * u + 3]) for u in range(2)]
    assert m(x) == want


def test_unsupported_node_is_named(tmp_path):
    nodes = [helper.make_node("Sigmoid", ["x"], ["y"], name="squash")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])])
    with pytest.raises(InputError, match=r"node squash \(Sigmoid\).*not supported"):
        read_onnx(_save(tmp_path, helper.make_model(g)))


def test_not_an_onnx_file(tmp_path):
    p = tmp_path / "bad.onnx"
    p.write_text("hello")
    with pytest.raises(InputError, match="bad.onnx"):
        read_onnx(p)


def test_vnncomp_test_nets_without_a_batch_axis(shared_dir):
    """VNN-COMP's test networks take a vector without a batch axis (shape [1]), and two of
    them multiply weights on the left (W @ x): read as the nets onnxruntime runs."""
    from symrel.exact import rational as q
    from symrel.interop.onnx_import import read_onnx

    base = shared_dir / "data" / "vnncomp2021" / "test"
    expected = {"test_nano": [0, 0, q("1/2")], "test_tiny": [0, 0, 1],      # relu(x/2); relu(x)
                "test_small": [q("61/2"), q("109/2"), q("157/2")]}
    for name, values in expected.items():
        net = read_onnx(base / f"{name}.onnx").model
        assert [net.evaluate_exact([q(x)])[0] for x in (-1, 0, 1)] == [q(v) for v in values], name


# -- the full-shape reading (issue 39): axes, broadcasting, refusals, the onnxruntime guard -----------
def _graph(tmp_path, nodes, inits, in_dims, out_dims=None, opset=17, name="g.onnx"):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, in_dims)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_dims)],
                          [numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return _save(tmp_path, m, name)


def _q(v):
    return Q(*float(v).as_integer_ratio())


def test_a_fixed_first_axis_of_2_is_part_of_the_input(tmp_path):
    """Input (2, 3): both rows are inputs (X_0..X_5 row-major) and both outputs are read,
    where the old importer took the 2 for a batch axis and read one row."""
    W = np.array([[1.0], [-2.0], [0.5]], np.float32)
    p = _graph(tmp_path, [helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
               {"W": W}, [2, 3], [2, 1])
    net = read_onnx(p).model
    assert isinstance(net, ReLUNet) and (net.input_dim, net.widths) == (6, [2])
    x = [Q(1), Q(0), Q(0), Q(0), Q(-1), Q(0)]
    assert net.evaluate_exact(x) == [Q(1), Q(2)]   # the second row: relu(-(-1) * 2)


def test_reshape_then_reduce_max_over_axis_1_gives_two_outputs(tmp_path):
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("ReduceMax", ["r"], ["y"], axes=[1], keepdims=0)]
    p = _graph(tmp_path, nodes, {"shape": np.array([2, -1], np.int64)}, ["N", 4], [2], opset=13)
    imported = read_onnx(p)
    net = imported.model
    assert (net.input_dim, net.output_dim) == (4, 2)
    assert net.evaluate_exact([Q(1), Q(3), Q(-2), Q(-5)]) == [Q(3), Q(-2)]
    assert any("batch axis" in n for n in imported.notes)


def test_broadcasting_mul_after_reshape(tmp_path):
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"]), helper.make_node("Mul", ["r", "s"], ["m"]),
             helper.make_node("Relu", ["m"], ["y"])]
    s = np.array([[0.5], [-3.0]], np.float32)
    p = _graph(tmp_path, nodes, {"shape": np.array([0, 2, 3], np.int64), "s": s}, ["N", 6], ["N", 2, 3])
    net = read_onnx(p).model
    x = [Q(v) for v in (1, -1, 2, 1, -1, 2)]
    assert net.evaluate_exact(x) == [Q(1, 2), 0, Q(1), 0, Q(3), 0]


def test_division_by_a_constant_is_its_exact_reciprocal(tmp_path):
    d = np.array([0.3081], np.float32)
    p = _graph(tmp_path, [helper.make_node("Div", ["x", "d"], ["y"])], {"d": d}, [1, 2], [1, 2])
    net = read_onnx(p).model
    assert net.evaluate_exact([Q(1), Q(-2)]) == [1 / _q(d[0]), -2 / _q(d[0])]


@pytest.mark.parametrize("case, match", [
    ("symbolic", r"input x: axis 1 is symbolic \(H\)"),
    ("div0", r"node d \(Div\).*division by zero"),
    ("div_by_input", r"node d \(Div\).*division by a tensor that depends on the input"),
    ("square", r"node m \(Mul\).*product of two tensors that depend on the input"),
    ("skip", r"node a \(Add\).*skip connection"),
    ("reflect", r"node p \(Pad\).*pad mode 'reflect'"),
    ("dynamic_conv", r"node c \(Conv\).*input 1 \(the weights\) to be a constant"),
    ("unsupported", r"node s \(Sin\).*not supported"),
])
def test_refusals_name_the_node(tmp_path, case, match):
    one = {"one": np.array([1.0], np.float32)}
    if case == "symbolic":
        p = _graph(tmp_path, [helper.make_node("Relu", ["x"], ["y"])], {}, ["N", "H"], ["N", "H"])
    elif case == "div0":
        p = _graph(tmp_path, [helper.make_node("Div", ["x", "z"], ["y"], name="d")],
                   {"z": np.array([1.0, 0.0], np.float32)}, [1, 2], [1, 2])
    elif case == "div_by_input":
        p = _graph(tmp_path, [helper.make_node("Div", ["one", "x"], ["y"], name="d")], one, [1, 2], [1, 2])
    elif case == "square":
        p = _graph(tmp_path, [helper.make_node("Mul", ["x", "x"], ["y"], name="m")], {}, [1, 2], [1, 2])
    elif case == "skip":
        p = _graph(tmp_path, [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Add", ["r", "x"], ["y"],
                                                                                       name="a")], {}, [1, 2], [1, 2])
    elif case == "reflect":
        p = _graph(tmp_path, [helper.make_node("Pad", ["x", "pads"], ["y"], name="p", mode="reflect")],
                   {"pads": np.array([0, 1, 0, 1], np.int64)}, [1, 3], [1, 5])
    elif case == "dynamic_conv":
        nodes = [helper.make_node("Reshape", ["x", "s"], ["w"]), helper.make_node("Conv", ["x", "w"], ["y"], name="c")]
        p = _graph(tmp_path, nodes, {"s": np.array([1, 1, 2, 2], np.int64)}, [1, 1, 2, 2], [1, 1, 1, 1])
    else:
        p = _graph(tmp_path, [helper.make_node("Sin", ["x"], ["y"], name="s")], {}, [1, 2], [1, 2])
    with pytest.raises(InputError, match=match) as info:
        read_onnx(p)
    assert "\n" not in str(info.value) and str(info.value).startswith(str(p))


def test_batch_norm_folds_exactly_when_the_factor_is_rational(tmp_path):
    # var + eps = 2.25 = 1.5^2: factor scale / 1.5; var + eps = 1.25: irrational, refused
    params = {"s": np.array([3.0], np.float32), "b": np.array([0.5], np.float32), "m": np.array([1.0], np.float32)}
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn", epsilon=0.25)
    p = _graph(tmp_path, [node], {**params, "v": np.array([2.0], np.float32)}, [1, 1, 2], [1, 1, 2])
    net = read_onnx(p).model
    assert net.evaluate_exact([Q(1), Q(4)]) == [Q(1, 2), Q(13, 2)]   # 2 (x - 1) + 1/2
    p = _graph(tmp_path, [node], {**params, "v": np.array([1.0], np.float32)}, [1, 1, 2], [1, 1, 2], name="i.onnx")
    with pytest.raises(InputError, match=r"node bn \(BatchNormalization\).*channel 0 is not rational"):
        read_onnx(p)


def test_the_guard_names_a_misread_node(tmp_path, monkeypatch):
    """Read Sub as Add (a planted misreading): onnxruntime disagrees, and the refusal names the
    Sub node, not the ReLU after it."""
    pytest.importorskip("onnxruntime")
    from symrel.interop.onnx_import import ExactTracer

    nodes = [helper.make_node("Sub", ["x", "c"], ["d"], name="minus"), helper.make_node("Relu", ["d"], ["y"])]
    p = _graph(tmp_path, nodes, {"c": np.array([0.25, -1.5], np.float32)}, ["N", 2], ["N", 2])
    assert read_onnx(p).notes[-1].startswith("agrees with onnxruntime at 3 points")
    monkeypatch.setattr(ExactTracer, "op_Sub", ExactTracer.op_Add)
    with pytest.raises(InputError, match=r"node minus \(Sub\): symrel's reading of node minus \(Sub\) differs from "
                                         r"onnxruntime"):
        read_onnx(p)
    assert read_onnx(p, check_runtime=False).model.input_dim == 2  # without the guard the misreading goes through


def test_the_guard_bound_is_rigorous_on_ill_conditioned_sums(tmp_path):
    """Huge cancelling weights: onnxruntime's float32 result is far from the exact one, within
    the bound; the guard accepts the (correct) import."""
    pytest.importorskip("onnxruntime")
    W = np.array([[1e8, 1.0], [-1e8, 1.0], [3.0, 1e-7]], np.float32)
    nodes = [helper.make_node("MatMul", ["x", "W"], ["y"])]
    p = _graph(tmp_path, nodes, {"W": W}, ["N", 3], ["N", 2])
    assert read_onnx(p).notes[-1].startswith("agrees with onnxruntime")


@pytest.mark.parametrize("net, digest", [
    ("1_1", "40a7f1546f0378f95c42a725fad88c900760f785ac3700dfd859616f8da29957"),
    ("3_3", "5853a0b6885a1adf872c5ab2a06b0426f5b4b21b2cad87bf45cd20251369ddc3"),
    ("5_9", "435b38590842a87b26f3d7e9a7e8f14df3341306f252e54938fe913d6dc8c16c"),
])
def test_acas_xu_imports_to_the_same_relu_net_as_before(shared_dir, net, digest):
    """The canonical JSON of three ACAS Xu imports, as the importer before the full-shape
    reading wrote it (the same for all 45 nets when the two were compared)."""
    import hashlib

    from symrel.fileformat import to_json
    from symrel.fileformat.canonical import canonical_dumps

    path = shared_dir / "data" / "vnncomp2021" / "acasxu" / f"ACASXU_run2a_{net}_batch_2000.onnx"
    model = read_onnx(path).model
    assert hashlib.sha256(canonical_dumps(to_json(model)).encode()).hexdigest() == digest
