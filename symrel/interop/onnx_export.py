"""symrel models as ONNX graphs, and running them in onnxruntime.

The model is lowered (:mod:`symrel.lowering`), its weights rounded to the
dtype exactly (:func:`symrel.interop.numpy_export.rounded_stages`), and every
operation written with standard ONNX operators (opset 17):

* affine: ``MatMul`` by ``W^T`` then ``Add`` b; ReLU: ``Relu``;
* maxout: ``Reshape`` to ``(N, q, k)`` then ``ReduceMax`` over the pieces;
* embedding: ``MatMul`` by ``E^T``, ``Reshape`` to ``(N, 1, m)``, ``Add`` the ``(T, m)`` offsets;
* attention head: ``Q = Z WQ^T``, ``K = Z WK^T``, ``S = Q Transpose(K)``,
  ``Hardmax`` (or ``Mul`` by lambda then ``Softmax``) over the keys, ``(A (Z WV^T)) WO^T``,
  summed over heads and added to Z;
* read-out: ``Transpose`` to ``(N, m, T)``, ``MatMul`` by the unit vector of the
  token, ``Reshape`` to ``(N, m)``, then affine.

ONNX's ``Hardmax`` puts weight 1 on the *first* maximiser, where symrel averages
over ties; :mod:`symrel.crossval.ties` finds the inputs where that matters.
With ``trace=True`` the state after every stage is a graph output too
(flattened to ``(N, features)``), for layer-by-layer cross-validation.
"""

from __future__ import annotations

import json

from ..errors import InputError
from .extras import require
from .floats import float_format, numpy_dtype
from .numpy_export import rounded_stages
from ..lowering import Affine, AttentionOp, Embed, FeedForwardOp, Program, ReadoutOp, Relu
from .float_program import GroupMax, float_program

OPSET = 17
OUTPUT = "y"
INPUT = "x"


class _Builder:
    def __init__(self, fmt):
        self.onnx = require("onnx", "onnx")
        self.np = require("numpy", "onnx")
        self.fmt = fmt
        self.nodes, self.inits = [], []
        self.count = 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def const(self, array, hint, dtype=None):
        from onnx import numpy_helper

        name = self.name(hint)
        a = self.np.asarray(array)
        if dtype is None:  # a weight: in the model's float type
            a = a.astype(numpy_dtype(self.fmt))
        if self.fmt.name == "bfloat16" and a.dtype.name == "bfloat16":
            t = self.onnx.helper.make_tensor(name, self.onnx.TensorProto.BFLOAT16, a.shape,
                                             a.astype(self.np.float32).ravel().tolist())
        else:
            t = numpy_helper.from_array(a, name)
        self.inits.append(t)
        return name

    def node(self, op, inputs, hint=None, **attrs):
        out = self.name(hint or op.lower())
        self.nodes.append(self.onnx.helper.make_node(op, list(inputs), [out], **attrs))
        return out

    def matmul_t(self, x, W, hint):
        """``x W^T`` (W is the ``out x in`` weight array)."""
        return self.node("MatMul", [x, self.const(W.T.copy(), hint + "_Wt")], hint)

    def add(self, x, b, hint):
        return self.node("Add", [x, self.const(b, hint + "_b")], hint)

    def shape(self, dims, hint):
        return self.const(self.np.array(dims, dtype=self.np.int64), hint, dtype="int64")


def _elem_type(onnx, fmt):
    return {"float64": onnx.TensorProto.DOUBLE, "float32": onnx.TensorProto.FLOAT,
            "float16": onnx.TensorProto.FLOAT16, "bfloat16": onnx.TensorProto.BFLOAT16}[fmt.name]


def to_onnx(model, dtype: str = "float32", *, trace: bool = False):
    """The ONNX ``ModelProto`` of a symrel model (or program) in ``dtype``, and
    the exact weight rounding report: ``(proto, rounding)``."""
    require("onnx", "onnx")
    fmt = float_format(dtype)
    program = float_program(model)
    stages, rounding = rounded_stages(program, fmt)
    b = _Builder(fmt)
    onnx = b.onnx
    z = INPUT
    traced = []
    for st in stages:
        for op in st.ops:
            z = _emit(b, op, z, program)
        traced.append((st.name, z))
    elem = _elem_type(onnx, fmt)
    outputs = []
    b.nodes.append(onnx.helper.make_node("Identity", [z], [OUTPUT]))
    outputs.append(onnx.helper.make_tensor_value_info(OUTPUT, elem, ["N", program.output_dim]))
    names = []
    if trace:
        for k, (name, t) in enumerate(traced[:-1]):
            flat = b.node("Reshape", [t, b.shape([0, -1], "flat")], f"trace{k}")
            outputs.append(onnx.helper.make_tensor_value_info(flat, elem, ["N", None]))
            names.append((name, flat))
    graph = onnx.helper.make_graph(
        b.nodes, "symrel_" + program.kind,
        [onnx.helper.make_tensor_value_info(INPUT, elem, ["N", program.input_dim])], outputs, b.inits)
    proto = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", OPSET)],
                                   producer_name="symrel")
    proto.ir_version = min(proto.ir_version, 9)
    meta = {"symrel_kind": program.kind, "symrel_dtype": fmt.name,
            "symrel_stages": json.dumps([s.name for s in program.stages]),
            "symrel_blocks": json.dumps(_block_layout(program)),
            "symrel_trace_outputs": json.dumps(names),
            "symrel_hardmax": "ONNX Hardmax: weight 1 on the first maximiser (symrel averages over ties)",
            "symrel_weight_rounding": str(rounding.max_error)}
    for k, v in meta.items():
        onnx.helper.set_model_props(proto, {**{p.key: p.value for p in proto.metadata_props}, k: v})
    onnx.checker.check_model(proto)
    return proto, rounding


def _block_layout(program):
    """Which sublayers each Transformer block has (``[[attention?, feedforward?], ...]``):
    an attention sublayer followed by a feed-forward one computes the same whether
    they share a block or not, so the importer needs this hint to give back the
    same blocks."""
    if program.blocks is None:
        return []
    layout = []
    for b in range(program.blocks):
        kinds = {type(op) for st in program.block_stages(b) for op in st.ops}
        layout.append([AttentionOp in kinds, FeedForwardOp in kinds])
    return layout


def _emit(b: _Builder, op, z, program):
    np = b.np
    if isinstance(op, Affine):
        return b.add(b.matmul_t(z, op.W, "affine"), op.b, "affine")
    if isinstance(op, Relu):
        return b.node("Relu", [z])
    if isinstance(op, GroupMax):
        r = b.node("Reshape", [z, b.shape([0, -1, op.rank], "groups")])
        return b.node("ReduceMax", [r], "maxout", axes=[2], keepdims=0)
    if isinstance(op, Embed):
        m = op.E.shape[0]
        e = b.node("Reshape", [b.matmul_t(z, op.E, "embed"), b.shape([0, 1, m], "tok")])
        return b.node("Add", [e, b.const(op.offsets, "offsets")], "embedding")
    if isinstance(op, FeedForwardOp):
        h = b.node("Relu", [b.add(b.matmul_t(z, op.W1, "ff1"), op.b1, "ff1")])
        return b.node("Add", [z, b.add(b.matmul_t(h, op.W2, "ff2"), op.b2, "ff2")], "ff_residual")
    if isinstance(op, ReadoutOp):
        T = program.tokens
        e = np.zeros((T, 1))
        e[op.token, 0] = 1
        zt = b.node("Transpose", [z], "tokens_last", perm=[0, 2, 1])
        col = b.node("MatMul", [zt, b.const(e, "select_token")], "token")
        flat = b.node("Reshape", [col, b.shape([0, -1], "flat")])
        return b.add(b.matmul_t(flat, op.W, "readout"), op.b, "readout")
    if isinstance(op, AttentionOp):
        total = None
        for h, (WQ, WK, WV, WO) in enumerate(op.heads):
            q = b.matmul_t(z, WQ, f"q{h}")
            k = b.matmul_t(z, WK, f"k{h}")
            s = b.node("MatMul", [q, b.node("Transpose", [k], f"kT{h}", perm=[0, 2, 1])], f"scores{h}")
            if op.rule == "softmax":
                s = b.node("Mul", [s, b.const(np.asarray(op.scale), "scale")], f"scaled{h}")
                a = b.node("Softmax", [s], f"softmax{h}", axis=-1)
            else:
                a = b.node("Hardmax", [s], f"hardmax{h}", axis=-1)
            out = b.matmul_t(b.node("MatMul", [a, b.matmul_t(z, WV, f"v{h}")], f"mix{h}"), WO, f"o{h}")
            total = out if total is None else b.node("Add", [total, out], "heads")
        return b.node("Add", [z, total], "attn_residual")
    raise InputError(f"cannot export the operation {type(op).__name__} to ONNX")  # pragma: no cover


def save_onnx(model, path, dtype: str = "float32"):
    """Write the ONNX file of a model atomically; returns the weight rounding report."""
    from ..fileformat import write_bytes_atomic

    proto, rounding = to_onnx(model, dtype)
    write_bytes_atomic(path, proto.SerializeToString())
    return rounding


class OnnxRuntimeRunner:
    """A symrel model exported to ONNX and run by onnxruntime (CPU), with every
    stage as an extra output (a cross-validation runner)."""

    hardmax_rule = "first"

    def __init__(self, model, dtype: str = "float32"):
        ort = require("onnxruntime", "onnx")
        self.format = float_format(dtype)
        self.program = float_program(model)
        proto, self.rounding = to_onnx(self.program, dtype, trace=True)
        self.stages, _ = rounded_stages(self.program, self.format)
        self.trace_names = json.loads({p.key: p.value for p in proto.metadata_props}["symrel_trace_outputs"])
        try:
            self.session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception as err:  # e.g. no CPU kernel for the dtype
            raise InputError(f"onnxruntime cannot run this model in {dtype}: {str(err).splitlines()[0]}",
                             path="--dtype") from None
        self.name = f"onnxruntime {ort.__version__}"

    def trace(self, X):
        np = require("numpy", "onnx")
        feed = {INPUT: np.asarray(X).astype(numpy_dtype(self.format))}
        outs = [n for _, n in self.trace_names] + [OUTPUT]
        try:
            vals = self.session.run(outs, feed)
        except Exception as err:
            raise InputError(f"onnxruntime failed: {str(err).splitlines()[0]}", path="--backend") from None
        names = [s for s, _ in self.trace_names] + [self.program.stages[-1].name]
        return list(zip(names, vals))


class OnnxFileRunner:
    """An ONNX file run by onnxruntime as it is (e.g. a network symrel did not
    write); only its output is traced. Each point is one sample: the whole input
    tensor, read as the importer reads it (:meth:`~symrel.interop.onnx_graph.OnnxGraph.input_shape`:
    a symbolic first axis of size 1, every fixed axis part of the input), so the points are
    run one at a time."""

    hardmax_rule = "first"

    def __init__(self, path, dtype: str = "float32"):
        from .onnx_graph import OnnxGraph, load_onnx_proto

        ort = require("onnxruntime", "onnx")
        self.format = float_format(dtype)
        graph = OnnxGraph(load_onnx_proto(path), str(path))
        self.shape = graph.input_shape()
        try:   # the bytes symrel read (not the path again: the file may have changed since)
            self.session = ort.InferenceSession(graph.proto.SerializeToString(), providers=["CPUExecutionProvider"])
        except Exception as err:
            raise InputError(f"onnxruntime cannot load the file: {str(err).splitlines()[0]}", file=str(path)) from None
        self.input_name = graph.input.name
        self.name = f"onnxruntime {ort.__version__} ({path})"
        self.rounding = None

    def trace(self, X):
        np = require("numpy", "onnx")
        with np.errstate(over="ignore"):   # beyond the format's range: infinity, as the runtime reads it
            X = np.asarray(X).astype(numpy_dtype(self.format))
        outs = [self.session.run(None, {self.input_name: x.reshape(self.shape)})[0].reshape(-1) for x in X]
        return [("output", np.stack(outs) if outs else np.zeros((0, 0)))]