"""How the hostile ONNX files of ``files/`` were written (``python -m tests.adversarial.onnx_files``
rewrites them). Each is a small valid ONNX model that tries one way of being misread; the
table in README.md says what each tries and what symrel does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

FILES = Path(__file__).parent / "files"


def _model(nodes, inits, in_dims, out_dims, *, opset=17, inputs=None, elem=TensorProto.FLOAT):
    ins = inputs or [helper.make_tensor_value_info("x", elem, in_dims)]
    g = helper.make_graph(nodes, "hostile", ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_dims)],
                          [numpy_helper.from_array(a, n) for n, a in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], producer_name="symrel-adversarial")
    m.ir_version = 8
    return m


def models() -> dict:
    f32 = np.float32
    eye = {"W": np.eye(2, dtype=f32)}
    relu_net = [helper.make_node("MatMul", ["x", "W"], ["h"], name="mm"), helper.make_node("Relu", ["h"], ["y"])]
    return {
        # a first axis of 2 that is not a batch axis: both rows are inputs
        "onnx-first-axis-2": _model(relu_net, eye, [2, 2], [2, 2]),
        "onnx-symbolic-inner-axis": _model([helper.make_node("Relu", ["x"], ["y"], name="r")], {}, ["N", "H"],
                                           ["N", "H"]),
        "onnx-conv-dynamic-weight": _model(
            [helper.make_node("Reshape", ["x", "s"], ["w"], name="as_weight"),
             helper.make_node("Conv", ["x", "w"], ["y"], name="conv")],
            {"s": np.array([1, 1, 2, 2], np.int64)}, [1, 1, 2, 2], [1, 1, 1, 1]),
        "onnx-div-by-zero": _model([helper.make_node("Div", ["x", "d"], ["y"], name="normalise")],
                                   {"d": np.array([0.5, 0.0], f32)}, [1, 2], [1, 2]),
        "onnx-div-by-input": _model([helper.make_node("Div", ["one", "x"], ["y"], name="reciprocal")],
                                    {"one": np.array([1.0], f32)}, [1, 2], [1, 2]),
        "onnx-batchnorm-irrational": _model(
            [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn")],
            {"s": np.ones(2, f32), "b": np.zeros(2, f32), "m": np.zeros(2, f32), "v": np.ones(2, f32)},
            [1, 2, 3], [1, 2, 3]),
        "onnx-pad-reflect": _model([helper.make_node("Pad", ["x", "p"], ["y"], name="pad", mode="reflect")],
                                   {"p": np.array([0, 0, 1, 0, 0, 1], np.int64)}, [1, 1, 3], [1, 1, 5]),
        "onnx-unsupported-op": _model([helper.make_node("Sigmoid", ["x"], ["y"], name="squash")], {}, [1, 2], [1, 2]),
        "onnx-square-of-input": _model([helper.make_node("Mul", ["x", "x"], ["y"], name="square")], {}, [1, 2],
                                       [1, 2]),
        "onnx-skip-connection": _model([helper.make_node("Relu", ["x"], ["r"], name="r"),
                                        helper.make_node("Add", ["r", "x"], ["y"], name="residual")], {}, [1, 2],
                                       [1, 2]),
        "onnx-ceil-mode-ambiguous": _model(
            [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[1], strides=[2], ceil_mode=1)], {},
            [1, 1, 4], [1, 1, "W"], opset=13),
        "onnx-declared-shape-lie": _model(relu_net, eye, ["N", 2], ["N", 3]),
        "onnx-two-inputs": _model([helper.make_node("Add", ["x", "z"], ["y"], name="add")], {}, None, [1, 2],
                                  inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2]),
                                          helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 2])]),
        "onnx-integer-input": _model([helper.make_node("Identity", ["x"], ["y"], name="id")], {}, [1, 2], [1, 2],
                                     elem=TensorProto.INT64),
        "onnx-dropout-training": _model(
            [helper.make_node("Dropout", ["x", "ratio", "train"], ["y"], name="drop")],
            {"ratio": np.array(0.5, f32), "train": np.array(True)}, [1, 2], [1, 2]),
        "onnx-reshape-reducemax": _model(
            [helper.make_node("Reshape", ["x", "s"], ["g"], name="groups"),
             helper.make_node("ReduceMax", ["g"], ["y"], name="max", axes=[1], keepdims=0)],
            {"s": np.array([2, -1], np.int64)}, ["N", 4], [2], opset=13),
    }


def write_all():
    FILES.mkdir(exist_ok=True)
    for name, m in models().items():
        (FILES / f"{name}.onnx").write_bytes(m.SerializeToString())
    (FILES / "onnx-not-onnx.onnx").write_bytes(b"\x08\x07hello, this is not a protobuf model\xff\xff")
    (FILES / "onnx-first-axis-2.vnnlib").write_text(
        "; the counterexample is in the second row: X_2, X_3 -> Y_2, Y_3\n"
        + "".join(f"(declare-const X_{i} Real)\n" for i in range(4))
        + "".join(f"(declare-const Y_{i} Real)\n" for i in range(4))
        + "".join(f"(assert (>= X_{i} 0))\n(assert (<= X_{i} 1))\n" for i in range(4))
        + "(assert (>= Y_2 0.5))\n")


if __name__ == "__main__":
    write_all()
