"""Small valid files of every format the command line reads besides symrel JSON: an ONNX
network (dense ReLU, and an attention graph), a ``.nnet`` network, a VNN-LIB property, a
VNN-COMP counterexample, a competition instance list, and the certificates ``symrel verify``
and ``symrel prove`` write. The fuzz tests (test_cli_fuzz_formats.py) start from these and
break them.

Every seed is made here, from nothing but this module: :func:`write_seeds` writes them all
into a folder (the certificates by running the command line on the other seeds).
"""

from __future__ import annotations

import json
from pathlib import Path

from .kinds import BOX, BOX1, HARDMAX_TRANSFORMER, POINTS, RELU, SAMPLES

#: a ReLU net of two inputs and two outputs, as symrel JSON; net.onnx and net.nnet hold the same
NET = {"symrel": 1, "kind": "relu", "input_dim": 2,
       "layers": [{"W": [[1, -1], ["1/2", 1]], "b": [0, "-1/4"], "activation": "relu"},
                  {"W": [[1, 0], [-1, 2]], "b": ["1/8", 0], "activation": "none"}]}

#: x in [0, 1]^2, unsafe when Y_0 >= Y_1 + 3 (never: unsat)
PROPERTY = """; a small property: unsat on net.*
(declare-const X_0 Real)
(declare-const X_1 Real)
(declare-const Y_0 Real)
(declare-const Y_1 Real)
(assert (>= X_0 0))
(assert (<= X_0 1))
(assert (>= X_1 0.0))
(assert (<= X_1 1e0))
(assert (or (and (>= Y_0 (+ Y_1 3))) (and (<= Y_0 -5) (>= X_0 0.5))))
"""

#: the same box, unsafe when Y_1 >= 1/2 (met at x = (1, 1): sat)
SAT_PROPERTY = PROPERTY.replace("(assert (or (and (>= Y_0 (+ Y_1 3))) (and (<= Y_0 -5) (>= X_0 0.5))))",
                                "(assert (>= Y_1 0.5))")

#: the net at x = (1, 1): h = (0, 5/4), y = (1/8, 5/2)
WITNESS = """sat
((X_0 1.0)
 (X_1 1)
 (Y_0 0.125)
 (Y_1 2.5))
"""

NNET = """// the net of NET, in .nnet
2,2,2,2,
2,2,2,
0,
0,0,
1,1,
0,0,0,
1,1,1,
1,-1,
0.5,1,
0,
-0.25,
1,0,
-1,2,
0.125,
0,
"""


def onnx_net():
    """NET as an ONNX model: input (N, 2), Gemm, Relu, MatMul, Add."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    f32 = np.float32
    inits = {"W1": np.array([[1, -1], [0.5, 1]], f32), "b1": np.array([0, -0.25], f32),
             "W2T": np.array([[1, -1], [0, 2]], f32), "b2": np.array([0.125, 0], f32)}
    nodes = [helper.make_node("Gemm", ["x", "W1", "b1"], ["h"], name="gemm", transB=1),
             helper.make_node("Relu", ["h"], ["r"], name="relu"),
             helper.make_node("MatMul", ["r", "W2T"], ["m"], name="matmul"),
             helper.make_node("Add", ["m", "b2"], ["y"], name="add")]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 2])],
                              [numpy_helper.from_array(a, n) for n, a in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="symrel-fuzz")
    model.ir_version = 8
    return model


def instances(net: str = "net.onnx", prop: str = "prop.vnnlib") -> str:
    return f"{net},{prop},10\n{net},sat.vnnlib,10\n"


def write_seeds(folder) -> dict:
    """Write every seed into ``folder``; returns ``{kind: file name}``."""
    from symrel.cli import main

    folder = Path(folder)
    names = {}

    def put(name, data):
        (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
        return name

    names["net"] = put("net.json", json.dumps(NET))
    names["box"] = put("box.json", json.dumps({"symrel": 1, "kind": "box", "bounds": [[0, 1], [0, 1]]}))
    names["box1"] = put("box1.json", json.dumps(BOX1))
    names["box2"] = put("box2.json", json.dumps(BOX))
    names["points"] = put("points.json", json.dumps(POINTS))
    names["relu"] = put("relu.json", json.dumps(RELU))
    names["hardmax"] = put("hardmax.json", json.dumps(HARDMAX_TRANSFORMER))
    names["vnnlib"] = put("prop.vnnlib", PROPERTY)
    names["sat-vnnlib"] = put("sat.vnnlib", SAT_PROPERTY)
    names["witness"] = put("witness.txt", WITNESS)
    names["nnet"] = put("net.nnet", NNET)
    names["onnx"] = put("net.onnx", onnx_net().SerializeToString())
    names["csv"] = put("instances.csv", instances())
    for kind, obj in SAMPLES.items():   # one file of every other kind of FORMAT.md
        if kind not in names:
            names[kind] = put(f"{kind}.json", json.dumps(obj))
    quiet = ["--executor", "serial"]
    for argv in (["export", str(folder / "hardmax.json"), "-o", str(folder / "attention.onnx")],
                 ["verify", str(folder / "net.onnx"), str(folder / "prop.vnnlib"), "--certificate",
                  str(folder / "vnnlib-certificate.json"), *quiet],
                 ["prove", str(folder / "net.json"), str(folder / "net.json"), "--domain", str(folder / "box.json"),
                  "--certificate", str(folder / "certificate.json")],
                 ["compile", str(folder / "relu.json"), "--domain", str(folder / "box1.json"), "-o",
                  str(folder / "compiled.json")],
                 ["prove", str(folder / "relu.json"), str(folder / "compiled.json"), "--domain",
                  str(folder / "box1.json"), "--certificate", str(folder / "compiled-certificate.json")]):
        code = main(argv)
        assert code == 0, (argv, code)
    names["attention-onnx"] = "attention.onnx"
    names["vnnlib-certificate"] = "vnnlib-certificate.json"
    names["certificate"] = "certificate.json"
    names["compiled"] = "compiled.json"
    names["compiled-certificate"] = "compiled-certificate.json"
    return names
