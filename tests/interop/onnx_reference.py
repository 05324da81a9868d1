"""An exact reference evaluator of ONNX graphs, for the importer's tests.

Each operation is executed by its specification on numpy object arrays of
:class:`fractions.Fraction`, written apart from symrel's importer (no code shared with
``symrel.interop``): float initializers become Fractions by ``Fraction(float(v))``, Conv and
pooling are loops over output positions and kernel cells, ``MatMul`` is numpy's on objects.
:func:`evaluate` returns every tensor of the graph at one input (the whole input tensor,
a symbolic batch axis taken as 1).

Pooling follows the ONNX reference implementation (``onnx.reference``) and onnxruntime:
``ceil_mode`` drops a last window that would start in the end padding, and with
``count_include_pad`` an average divides by the window's cells that lie before the end of
the padding.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from onnx import helper, numpy_helper

ZERO = Fraction(0)


class Undefined(Exception):
    """The graph's value is not a rational at this input (division by zero, irrational root)."""


def exact(array):
    a = np.asarray(array)
    out = np.empty(a.shape, dtype=object)
    flat = out.reshape(-1)
    if a.dtype.kind == "f":
        flat[:] = [Fraction(float(v)) for v in a.reshape(-1)]
    else:
        flat[:] = [Fraction(int(v)) for v in a.reshape(-1)]
    return out


def _attrs(node):
    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        out[a.name] = v.decode() if isinstance(v, bytes) else v
    return out


def _ints(a):
    return [int(v) for v in np.asarray(a).reshape(-1)]


def evaluate(model, x) -> dict:
    """Every tensor of ``model``'s graph at the input ``x`` (an object array of Fractions)."""
    g = model.graph
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    env = {t.name: exact(numpy_helper.to_array(t)) for t in g.initializer}
    real = [i.name for i in g.input if i.name not in env]
    env[real[0]] = x
    for node in g.node:
        ins = [env[n] if n else None for n in node.input]
        env[node.output[0]] = np.asarray(OPS[node.op_type](ins, _attrs(node), opset), dtype=object)
    return env


def output(model, x):
    return evaluate(model, x)[model.graph.output[0].name]


# -- operations ---------------------------------------------------------------------------------
def _constant(ins, at, opset):
    if "value" in at:
        return exact(numpy_helper.to_array(at["value"]))
    for key, dt in (("value_float", np.float32), ("value_floats", np.float32), ("value_int", np.int64),
                    ("value_ints", np.int64)):
        if key in at:
            return exact(np.array(at[key], dtype=dt))
    raise ValueError("constant")


def _div(ins, at, opset):
    a, b = np.broadcast_arrays(ins[0], ins[1])
    if any(v == 0 for v in b.reshape(-1)):
        raise Undefined("division by zero")
    return a / b


def _gemm(ins, at, opset):
    A, B = ins[0], ins[1]
    if at.get("transA", 0):
        A = A.T
    if at.get("transB", 0):
        B = B.T
    y = np.matmul(A, B) * Fraction(float(at.get("alpha", 1.0)))
    if len(ins) > 2 and ins[2] is not None:
        y = y + ins[2] * Fraction(float(at.get("beta", 1.0)))
    return y


def _reshape(ins, at, opset):
    x, spec = ins[0], _ints(ins[1])
    shape = []
    for i, s in enumerate(spec):
        if s == 0 and not at.get("allowzero", 0):
            s = x.shape[i]
        shape.append(s)
    return x.reshape(shape)


def _flatten(ins, at, opset):
    x = ins[0]
    axis = at.get("axis", 1)
    if axis < 0:
        axis += x.ndim
    return x.reshape(int(np.prod(x.shape[:axis])), int(np.prod(x.shape[axis:])))


def _transpose(ins, at, opset):
    perm = at.get("perm")
    return np.transpose(ins[0], perm if perm is not None else None)


def _axes(ins, at, opset, since):
    if opset >= since:
        return _ints(ins[1]) if len(ins) > 1 and ins[1] is not None else None
    return at.get("axes")


def _squeeze(ins, at, opset):
    axes = _axes(ins, at, opset, 13)
    x = ins[0]
    if axes is None:
        return x.reshape([s for s in x.shape if s != 1])
    return np.squeeze(x, axis=tuple(a % x.ndim for a in axes))


def _unsqueeze(ins, at, opset):
    axes = _axes(ins, at, opset, 13)
    x = ins[0]
    r = x.ndim + len(axes)
    return np.expand_dims(x, tuple(a % r for a in axes))


def _max(ins, at, opset):
    arrays = np.broadcast_arrays(*[a for a in ins if a is not None])
    out = arrays[0].copy()
    for a in arrays[1:]:
        out = np.where(a > out, a, out)
    return out


def _reduce_max(ins, at, opset):
    axes = _axes(ins, at, opset, 18)
    x = ins[0]
    if not axes:
        if at.get("noop_with_empty_axes", 0):
            return x
        axes = list(range(x.ndim))
    axes = tuple(a % x.ndim for a in axes)
    keep = bool(at.get("keepdims", 1))
    out_shape = [1 if i in axes else s for i, s in enumerate(x.shape)]
    moved = np.transpose(x, [i for i in range(x.ndim) if i not in axes] + list(axes))
    kept = [s for i, s in enumerate(x.shape) if i not in axes]
    flat = moved.reshape(int(np.prod(kept)), -1)
    res = np.empty(flat.shape[0], dtype=object)
    for i, row in enumerate(flat):
        res[i] = max(row)
    return res.reshape(out_shape if keep else kept)


def _pads(at, spatial, kernel, strides, dilations, kind):
    D = len(spatial)
    auto = at.get("auto_pad", "NOTSET") or "NOTSET"
    if auto == "NOTSET":
        p = list(at.get("pads", [0] * 2 * D))
        return p[:D], p[D:]
    begin, end = [0] * D, [0] * D
    if auto == "VALID":
        return begin, end
    for i in range(D):
        out = -(-spatial[i] // strides[i])
        total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - spatial[i])
        if auto == "SAME_UPPER":
            begin[i], end[i] = total // 2, total - total // 2
        else:
            begin[i], end[i] = total - total // 2, total // 2
    return begin, end


def _out_sizes(spatial, kernel, strides, dilations, begin, end, ceil_mode):
    out = []
    for i in range(len(spatial)):
        span = (kernel[i] - 1) * dilations[i] + 1
        v = Fraction(spatial[i] + begin[i] + end[i] - span, strides[i]) + 1
        n = math.ceil(v) if ceil_mode else math.floor(v)
        if ceil_mode and (n - 1) * strides[i] >= spatial[i] + begin[i]:
            n -= 1
        out.append(n)
    return out


def _conv(ins, at, opset):
    x, w = ins[0], ins[1]
    b = ins[2] if len(ins) > 2 else None
    N, C, spatial = x.shape[0], x.shape[1], x.shape[2:]
    M, Cg, kernel = w.shape[0], w.shape[1], w.shape[2:]
    group = at.get("group", 1)
    D = len(spatial)
    strides = at.get("strides", [1] * D)
    dilations = at.get("dilations", [1] * D)
    begin, end = _pads(at, spatial, kernel, strides, dilations, "conv")
    out = _out_sizes(spatial, kernel, strides, dilations, begin, end, 0)
    y = np.empty((N, M, *out), dtype=object)
    per_group = M // group
    for n, m in itertools.product(range(N), range(M)):
        g = m // per_group
        for o in itertools.product(*[range(s) for s in out]):
            acc = ZERO if b is None else b[m]
            for c in range(Cg):
                for k in itertools.product(*[range(s) for s in kernel]):
                    p = [o[i] * strides[i] - begin[i] + k[i] * dilations[i] for i in range(D)]
                    if all(0 <= p[i] < spatial[i] for i in range(D)):
                        acc += x[(n, g * Cg + c, *p)] * w[(m, c, *k)]
            y[(n, m, *o)] = acc
    return y


def _pool(ins, at, opset, kind):
    x = ins[0]
    N, C, spatial = x.shape[0], x.shape[1], x.shape[2:]
    kernel = at["kernel_shape"]
    D = len(spatial)
    strides = at.get("strides", [1] * D)
    dilations = at.get("dilations", [1] * D)
    begin, end = _pads(at, spatial, kernel, strides, dilations, kind)
    out = _out_sizes(spatial, kernel, strides, dilations, begin, end, at.get("ceil_mode", 0))
    y = np.empty((N, C, *out), dtype=object)
    for n, c in itertools.product(range(N), range(C)):
        for o in itertools.product(*[range(s) for s in out]):
            cells, counted = [], 0
            for k in itertools.product(*[range(s) for s in kernel]):
                p = [o[i] * strides[i] - begin[i] + k[i] * dilations[i] for i in range(D)]
                inside = all(0 <= p[i] < spatial[i] for i in range(D))
                if inside:
                    cells.append(x[(n, c, *p)])
                if all(p[i] < spatial[i] + end[i] for i in range(D)):
                    counted += 1
            if kind == "max":
                y[(n, c, *o)] = max(cells)
            else:
                divisor = counted if at.get("count_include_pad", 0) else len(cells)
                y[(n, c, *o)] = sum(cells, ZERO) / divisor
    return y


def _pad(ins, at, opset):
    x = ins[0]
    if opset < 11:
        pads, value, axes = list(at["pads"]), Fraction(float(at.get("value", 0.0))), list(range(x.ndim))
    else:
        pads = _ints(ins[1])
        value = ins[2].reshape(-1)[0] if len(ins) > 2 and ins[2] is not None else ZERO
        axes = _ints(ins[3]) if len(ins) > 3 and ins[3] is not None else list(range(x.ndim))
        axes = [a % x.ndim for a in axes]
    begin, end = [0] * x.ndim, [0] * x.ndim
    for j, a in enumerate(axes):
        begin[a], end[a] = pads[j], pads[len(axes) + j]
    shape = [s + b + e for s, b, e in zip(x.shape, begin, end)]
    y = np.full(shape, value, dtype=object)
    for idx in itertools.product(*[range(s) for s in shape]):
        src = [i - b for i, b in zip(idx, begin)]
        if all(0 <= s < n for s, n in zip(src, x.shape)):
            y[idx] = x[tuple(src)]
    return y


def _sqrt(q):
    p, d = q.numerator, q.denominator
    rp, rd = math.isqrt(p), math.isqrt(d)
    if q < 0 or rp * rp != p or rd * rd != d:
        raise Undefined("irrational square root")
    return Fraction(rp, rd)


def _batchnorm(ins, at, opset):
    x, scale, b, mean, var = ins[:5]
    eps = Fraction(float(at.get("epsilon", 1e-5)))
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    s = np.array([scale[c] / _sqrt(var[c] + eps) for c in range(x.shape[1])], dtype=object).reshape(shape)
    return (x - mean.reshape(shape)) * s + b.reshape(shape)


OPS = {
    "Identity": lambda ins, at, o: ins[0],
    "Dropout": lambda ins, at, o: ins[0],
    "Constant": _constant,
    "Add": lambda ins, at, o: ins[0] + ins[1],
    "Sub": lambda ins, at, o: ins[0] - ins[1],
    "Mul": lambda ins, at, o: ins[0] * ins[1],
    "Div": _div,
    "Relu": lambda ins, at, o: np.where(ins[0] > 0, ins[0], ZERO),
    "MatMul": lambda ins, at, o: np.matmul(ins[0], ins[1]),
    "Gemm": _gemm,
    "Reshape": _reshape,
    "Flatten": _flatten,
    "Transpose": _transpose,
    "Squeeze": _squeeze,
    "Unsqueeze": _unsqueeze,
    "Max": _max,
    "ReduceMax": _reduce_max,
    "Conv": _conv,
    "AveragePool": lambda ins, at, o: _pool(ins, at, o, "avg"),
    "MaxPool": lambda ins, at, o: _pool(ins, at, o, "max"),
    "Pad": _pad,
    "BatchNormalization": _batchnorm,
}
