"""The ONNX differential campaign: random graphs read by symrel, against an independent exact
evaluator and against onnxruntime.

Each of :data:`GRAPHS` seeded random graphs (``onnx_random.random_graph``: every operation and
attribute the importer reads, input ranks 1 to 4 with and without a batch axis) is either
refused with one line for a reason the importer documents (never a crash, never a
disagreement with onnxruntime), or imported; an imported model then equals the reference
evaluator (``onnx_reference``: Fractions, each operation by its specification) *exactly* at two
float32 points, and onnxruntime's output is within float error of it (a loose check here:
the guard inside the import is the rigorous one).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from symrel.errors import InputError  # noqa: E402
from symrel.interop.onnx_import import read_onnx  # noqa: E402
from symrel.models import LayeredNet  # noqa: E402

from .onnx_random import random_graph  # noqa: E402
from .onnx_reference import evaluate, exact  # noqa: E402

GRAPHS = 1100

#: the refusals the importer documents (each graph built to be refused hits one of these)
REASONS = {
    "product of two input-dependent tensors": r"a product of two tensors that depend on the input",
    "division by an input-dependent tensor": r"a division by a tensor that depends on the input",
    "division by zero": r"division by zero",
    "irrational batch-norm factor": r"scale / sqrt\(var \+ epsilon\) of channel \d+ is not rational",
    "skip connection": r"before the last nonlinearity",
    "dilations with auto_pad SAME": r"dilations with auto_pad SAME_(UPPER|LOWER) are not read",
    "negative auto_pad padding": r"asks for negative padding",
    "ambiguous ceil_mode window": r"ONNX before opset 22 keeps it, onnxruntime drops it",
}

SUPPORTED = {"Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Reshape", "Flatten", "Transpose", "Squeeze", "Unsqueeze",
             "Constant", "Max", "ReduceMax", "Relu", "Identity", "Dropout", "Conv", "AveragePool", "MaxPool", "Pad",
             "BatchNormalization"}


@dataclass
class Counts:
    graphs: int = 0
    agreed: int = 0
    refused: Counter = field(default_factory=Counter)
    ops: Counter = field(default_factory=Counter)  # operations in agreed graphs
    features: Counter = field(default_factory=Counter)  # attribute variants in agreed graphs
    inputs: Counter = field(default_factory=Counter)  # (rank, batch kind) of agreed graphs
    kinds: Counter = field(default_factory=Counter)


def _features(model):
    """The attribute variants a graph exercises (for the coverage report)."""
    from onnx import helper

    inits = {t.name for t in model.graph.initializer} | {n.output[0] for n in model.graph.node
                                                         if n.op_type == "Constant"}
    listed = {i.name for i in model.graph.input} & inits
    out = set()
    if listed:
        out.add("initializer listed as input")
    opset = model.opset_import[0].version
    for n in model.graph.node:
        at = {a.name: helper.get_attribute_value(a) for a in n.attribute}
        if n.op_type == "Gemm":
            out.add(f"Gemm transA={at.get('transA', 0)} transB={at.get('transB', 0)}")
            out.add("Gemm alpha=1" if at.get("alpha", 1.0) == 1.0 else "Gemm alpha!=1")
            out.add("Gemm beta=1" if at.get("beta", 1.0) == 1.0 else "Gemm beta!=1")
            out.add("Gemm with C" if len(n.input) > 2 else "Gemm without C")
            out.add("Gemm input as A" if n.input[0] not in inits else "Gemm input as B")
        elif n.op_type == "MatMul":
            out.add("MatMul input on the left" if n.input[0] not in inits else "MatMul input on the right")
        elif n.op_type in ("Add", "Sub", "Mul", "Div"):
            out.add(f"{n.op_type} constant on the {'left' if n.input[0] in inits else 'right'}")
        elif n.op_type == "Flatten":
            out.add(f"Flatten axis={at.get('axis', 1)}")
        elif n.op_type in ("Conv", "AveragePool", "MaxPool"):
            for key in ("auto_pad", "ceil_mode", "count_include_pad"):
                if key in at:
                    out.add(f"{n.op_type} {key}={at[key].decode() if isinstance(at[key], bytes) else at[key]}")
            for key in ("pads", "strides", "dilations"):
                if key in at and any(v != (0 if key == "pads" else 1) for v in at[key]):
                    out.add(f"{n.op_type} {key}")
            if at.get("group", 1) > 1:
                out.add("Conv group>1")
            if n.op_type == "Conv" and len(n.input) > 2:
                out.add("Conv bias")
        elif n.op_type in ("Squeeze", "Unsqueeze", "ReduceMax", "Pad"):
            out.add(f"{n.op_type} opset {opset}")
    return out


def _same(net, model, x):
    env = evaluate(model, exact(x))
    want = list(env[model.graph.output[0].name].reshape(-1))
    got = [Fraction(int(v.numerator), int(v.denominator))
           for v in net.evaluate_exact([Fraction(float(v)) for v in x.reshape(-1)])]
    scale = 1 + max(abs(float(v)) for a in env.values() for v in np.asarray(a).reshape(-1))
    return got == want, want, scale


def run_campaign(seeds, tmp_path) -> Counts:
    ort.set_default_logger_severity(3)
    c = Counts()
    for seed in seeds:
        model, ops, batch, shape = random_graph(seed)
        c.graphs += 1
        path = tmp_path / f"g{seed}.onnx"
        path.write_bytes(model.SerializeToString())
        try:
            net = read_onnx(path).model
        except InputError as err:
            text = str(err)
            assert "\n" not in text and text.startswith(str(path)), (seed, text)
            reason = next((r for r, pattern in REASONS.items() if re.search(pattern, text)), None)
            assert reason is not None, f"seed {seed}: an undocumented refusal: {text}"
            c.refused[reason] += 1
            continue
        if {"Conv", "AveragePool", "MaxPool"} & set(ops) and isinstance(net, LayeredNet):
            c.kinds["layered (convolutional)"] += 1
        c.kinds[type(net).__name__] += 1
        rng = np.random.default_rng(seed + 10**6)
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        for _ in range(2):
            x = rng.uniform(-2, 2, shape).astype(np.float32)
            same, want, scale = _same(net, model, x)
            assert same, f"seed {seed}: symrel's model differs from the reference evaluator ({ops})"
            y = session.run(None, {"x": x})[0].reshape(-1).astype(np.float64)
            far = np.max(np.abs(y - np.array([float(v) for v in want])), initial=0.0)
            assert far <= 1e-3 * scale, f"seed {seed}: onnxruntime differs from the reference by {far} ({ops})"
        c.agreed += 1
        c.ops.update(set(ops))
        c.features.update(_features(model))
        c.inputs[(len(shape), batch)] += 1
    return c


def test_campaign(tmp_path, capsys):
    c = run_campaign(range(GRAPHS), tmp_path)
    assert c.graphs == GRAPHS and c.agreed + sum(c.refused.values()) == GRAPHS
    assert c.agreed >= 0.85 * GRAPHS
    assert SUPPORTED <= set(c.ops), f"operations never imported: {SUPPORTED - set(c.ops)}"
    assert {(r, b) for r in range(1, 5) for b in ("symbolic", "one", "fixed")} <= set(c.inputs)
    for feature in ("Gemm transA=1 transB=0", "Gemm transA=0 transB=1", "Gemm transA=1 transB=1", "Gemm alpha!=1",
                    "Gemm beta!=1", "Gemm input as B", "MatMul input on the right", "Div constant on the right",
                    "Sub constant on the left", "Conv group>1", "Conv auto_pad=SAME_LOWER", "Conv dilations",
                    "AveragePool ceil_mode=1", "AveragePool count_include_pad=1", "MaxPool dilations",
                    "MaxPool ceil_mode=1", "initializer listed as input", "Flatten axis=0", "Flatten axis=-1"):
        assert c.features[feature], f"never imported: {feature}"
    assert set(REASONS) - {"ambiguous ceil_mode window", "negative auto_pad padding"} <= set(c.refused)
    with capsys.disabled():
        print(f"\nONNX differential campaign: {c.graphs} graphs, {c.agreed} agreed, {sum(c.refused.values())} "
              f"refused {dict(c.refused)}; operations {dict(sorted(c.ops.items()))}; {len(c.features)} attribute "
              f"variants; kinds {dict(c.kinds)}; inputs {dict(sorted(c.inputs.items()))}")
