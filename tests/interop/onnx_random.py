"""Random small ONNX graphs over every operation and attribute the importer reads.

:func:`random_graph` builds one seeded graph: an input of rank 1 to 4 (a symbolic batch axis,
a first axis of 1, or a fixed first axis of 2 or 3), then one to five operations chosen among
Gemm (transA, transB, alpha, beta, every shape of C; the input on either side), MatMul (the
input on either side, ranks 1 to 4, batch axes that broadcast), Add, Sub, Mul and Div with a
constant of a random broadcast shape on either side (and with a tensor of the same input),
Reshape (0, -1, allowzero), Flatten (every axis), Transpose, Squeeze, Unsqueeze, Relu, Max,
ReduceMax, Identity, Dropout, Conv (pads, auto_pad, strides, dilations, group, bias),
AveragePool (pads, strides, ceil_mode, count_include_pad, auto_pad), MaxPool (pads, strides,
dilations, ceil_mode), Pad (constant, negative pads, a fill value), BatchNormalization (a
rational factor, sometimes not); constants as initializers, Constant nodes or initializers
listed among the inputs; opsets 11, 13, 17 and 18. A few graphs are built to be refused (a
product of two input-dependent tensors, a division by zero or by the input, an irrational
batch-norm factor, a skip connection around a ReLU).

Every candidate operation is kept only when ONNX shape inference accepts it (so the graph is
valid ONNX); the shapes come from shape inference.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ALPHAS = [1.0, 0.5, -1.25, 3.0, 0.1]
OPSETS = [11, 13, 17, 18]


class Builder:
    def __init__(self, rng, opset, input_shape, batch):
        self.rng, self.opset = rng, opset
        self.nodes, self.inits, self.listed = [], [], []
        self.count = 0
        dims = list(input_shape)
        self.batch = batch
        # shapes are inferred with the concrete input (a symbolic batch axis is 1); the
        # finished graph declares the batch axis symbolic
        self.input = helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)
        self.shapes = {"x": tuple(input_shape)}
        self.dims = {"x": dims}
        self.ops: list[str] = []

    def name(self, hint):
        self.count += 1
        return f"{hint}{self.count}"

    def const(self, array, hint="c", dtype=np.float32):
        name = self.name(hint)
        a = np.asarray(array, dtype=dtype)
        r = self.rng.random()
        if r < 0.2 and dtype == np.float32:
            self.nodes.append(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(a, name)))
            self.shapes[name] = a.shape
            self.ops.append("Constant")
        else:
            self.inits.append(numpy_helper.from_array(a, name))
            if r > 0.85:
                self.listed.append(helper.make_tensor_value_info(name, TensorProto.FLOAT if dtype == np.float32
                                                                 else TensorProto.INT64, list(a.shape)))
        return name

    def weights(self, shape, scale=1.0):
        w = (self.rng.integers(-8, 9, size=shape) / 4 * scale).astype(np.float32)
        if self.rng.random() < 0.3:
            w = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        return w

    def ints(self, values):
        return self.const(np.array(values, dtype=np.int64), "s", np.int64)

    def model(self, out_name, nodes=None, listed=None, out_dims=None):
        if out_dims is None and out_name in self.dims:
            out_dims = self.dims[out_name]
        g = helper.make_graph(nodes if nodes is not None else self.nodes, "g", [self.input] + (listed or self.listed),
                              [helper.make_tensor_value_info(out_name, TensorProto.FLOAT, out_dims)], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        return m

    def try_node(self, op, inputs, attrs=None, count_as=None):
        """Append the node when shape inference accepts it: its output name, else None."""
        out = self.name(op.lower())
        node = helper.make_node(op, inputs, [out], name=out, **(attrs or {}))
        m = self.model(out, self.nodes + [node], out_dims=[])
        m.graph.output[0].type.tensor_type.ClearField("shape")
        try:
            inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
        except Exception:
            return None
        t = inferred.graph.output[0].type.tensor_type
        if not t.HasField("shape") or any(not (d.HasField("dim_value") or d.dim_param) for d in t.shape.dim):
            return None
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in t.shape.dim)
        self.dims[out] = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in t.shape.dim]
        if 0 in shape or int(np.prod(shape)) > 200:
            return None
        self.nodes.append(node)
        self.shapes[out] = shape
        self.ops.append(count_as or op)
        return out


def _broadcast_partner(rng, shape):
    """A shape that broadcasts with ``shape`` (dims kept or 1, leading dims dropped or added)."""
    dims = [s if rng.random() < 0.6 else 1 for s in shape]
    drop = rng.integers(0, len(dims) + 1) if dims and rng.random() < 0.5 else 0
    dims = dims[drop:]
    if rng.random() < 0.15 and len(shape) < 4:
        dims = [2] + dims
    return tuple(dims)


# -- the operations ----------------------------------------------------------------------------------
def op_gemm(b, x):
    rng, s = b.rng, b.shapes[x]
    if len(s) != 2:
        return None
    M, K = s
    N = int(rng.integers(1, 5))
    ta, tb = bool(rng.random() < 0.3), bool(rng.random() < 0.5)
    attrs = {"alpha": float(rng.choice(ALPHAS)), "beta": float(rng.choice(ALPHAS)), "transA": int(ta), "transB": int(tb)}
    if rng.random() < 0.75:  # the tensor is A
        a = b.try_node("Transpose", [x]) if ta else x
        if a is None:
            return None
        B = b.const(b.weights((N, K) if tb else (K, N)))
        rows = M
    else:  # the tensor is B (or B^T)
        P = int(rng.integers(1, 4))
        inner = K if tb else M
        a = b.const(b.weights((inner, P) if ta else (P, inner)))
        B = x
        rows, N = P, (M if tb else K)
    inputs = [a, B]
    if rng.random() < 0.7:
        cshape = [(N,), (1, N), (rows, 1), (rows, N), ()][int(rng.integers(0, 5))]
        inputs.append(b.const(b.weights(cshape)))
    return b.try_node("Gemm", inputs, attrs)


def op_matmul(b, x):
    if not b.shapes[x]:
        return None
    rng, s = b.rng, b.shapes[x]
    k = int(rng.integers(1, 4))
    if rng.random() < 0.6:  # x @ W
        wshape = (s[-1],) if rng.random() < 0.25 else (s[-1], k)
        if len(wshape) == 2 and len(s) >= 3 and rng.random() < 0.3:
            wshape = (s[-3] if rng.random() < 0.5 else 1,) + wshape
        return b.try_node("MatMul", [x, b.const(b.weights(wshape))])
    inner = s[-2] if len(s) >= 2 else s[-1]
    wshape = (inner,) if rng.random() < 0.25 else (k, inner)
    return b.try_node("MatMul", [b.const(b.weights(wshape)), x])


def op_binary(b, x):
    rng, s = b.rng, b.shapes[x]
    op = str(rng.choice(["Add", "Sub", "Mul", "Div"]))
    c = b.weights(_broadcast_partner(rng, s))
    if op == "Div":
        c = np.where(c == 0, np.float32(0.75), c).astype(np.float32)
        if rng.random() < 0.05 and c.size:
            c.reshape(-1)[0] = 0  # a division by zero: refused
    name = b.const(c)
    if op == "Div" and rng.random() < 0.05:
        return b.try_node(op, [name, x])  # a constant divided by the input: refused
    return b.try_node(op, [name, x] if op != "Div" and rng.random() < 0.4 else [x, name])


def op_self(b, x):
    """x combined with another tensor computed from x (a sum of two input-dependent tensors)."""
    rng = b.rng
    y = b.try_node("Mul", [x, b.const(b.weights((1,)))])
    if y is None:
        return None
    op = "Mul" if rng.random() < 0.08 else str(rng.choice(["Add", "Sub"]))  # Mul: refused
    return b.try_node(op, [y, x] if rng.random() < 0.5 else [x, y])


def op_skip(b, x):
    """relu(x) + x: a skip connection around a nonlinearity (refused)."""
    if b.rng.random() < 0.7:
        return None
    y = b.try_node("Relu", [x])
    return None if y is None else b.try_node("Add", [y, x])


def op_reshape(b, x):
    if not b.shapes[x]:
        return None
    rng, s = b.rng, b.shapes[x]
    n = int(np.prod(s))
    divisors = [d for d in range(1, n + 1) if n % d == 0]
    first = int(rng.choice(divisors))
    spec = [first, -1] if rng.random() < 0.5 else [first, n // first]
    if rng.random() < 0.3 and len(s) >= 1 and s[0] == first:
        spec[0] = 0  # copy the first axis
    if rng.random() < 0.2:
        spec = [-1]
    attrs = {"allowzero": 0} if b.opset >= 14 and rng.random() < 0.3 else {}
    return b.try_node("Reshape", [x, b.ints(spec)], attrs)


def op_flatten(b, x):
    if not b.shapes[x]:
        return None
    r = len(b.shapes[x])
    return b.try_node("Flatten", [x], {"axis": int(b.rng.integers(-r, r + 1))})


def op_transpose(b, x):
    if not b.shapes[x]:
        return None
    r = len(b.shapes[x])
    if b.rng.random() < 0.3:
        return b.try_node("Transpose", [x])
    return b.try_node("Transpose", [x], {"perm": [int(v) for v in b.rng.permutation(r)]})


def op_squeeze(b, x):
    s = b.shapes[x]
    ones = [i for i, d in enumerate(s) if d == 1]
    if not ones or len(s) == 1:
        return None
    axes = [int(a) - (len(s) if b.rng.random() < 0.3 else 0) for a in ones[:int(b.rng.integers(1, len(ones) + 1))]]
    if b.rng.random() < 0.2:
        return b.try_node("Squeeze", [x])
    if b.opset >= 13:
        return b.try_node("Squeeze", [x, b.ints(axes)])
    return b.try_node("Squeeze", [x], {"axes": axes})


def op_unsqueeze(b, x):
    s = b.shapes[x]
    if len(s) >= 4:
        return None
    r = len(s) + 1
    axes = [int(b.rng.integers(-r, r))]
    if b.opset >= 13:
        return b.try_node("Unsqueeze", [x, b.ints(axes)])
    return b.try_node("Unsqueeze", [x], {"axes": axes})


def op_relu(b, x):
    return b.try_node("Relu", [x])


def op_identity(b, x):
    return b.try_node(str(b.rng.choice(["Identity", "Dropout"])), [x])


def op_max(b, x):
    rng, s = b.rng, b.shapes[x]
    inputs = [x, b.const(b.weights(_broadcast_partner(rng, s)))]
    if rng.random() < 0.4:
        y = b.try_node("Mul", [x, b.const(b.weights((1,)))])
        if y is not None:
            inputs.insert(1, y)
    rng.shuffle(inputs)
    return b.try_node("Max", inputs)


def op_reduce_max(b, x):
    if not b.shapes[x]:
        return None
    rng, s = b.rng, b.shapes[x]
    r = len(s)
    axes = sorted(int(a) for a in rng.choice(r, size=int(rng.integers(1, r + 1)), replace=False))
    attrs = {"keepdims": int(rng.random() < 0.5)}
    if b.opset >= 18:
        if rng.random() < 0.1:
            return b.try_node("ReduceMax", [x], {**attrs, "noop_with_empty_axes": int(rng.random() < 0.5)})
        return b.try_node("ReduceMax", [x, b.ints(axes)], attrs)
    return b.try_node("ReduceMax", [x], {**attrs, "axes": axes})


def _window_attrs(b, spatial, kernel, *, dilate=True, ceil=True):
    rng = b.rng
    D = len(spatial)
    attrs = {}
    if rng.random() < 0.5:
        attrs["strides"] = [int(rng.integers(1, 3)) for _ in range(D)]
    if dilate and rng.random() < 0.3:
        attrs["dilations"] = [int(rng.integers(1, 3)) for _ in range(D)]
    if rng.random() < 0.2:
        attrs["auto_pad"] = str(rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"]))
    elif rng.random() < 0.6:
        attrs["pads"] = [int(rng.integers(0, k)) for k in list(kernel) * 2]
    if ceil and "auto_pad" not in attrs and rng.random() < 0.4:
        attrs["ceil_mode"] = 1
    return attrs


def op_conv(b, x):
    rng, s = b.rng, b.shapes[x]
    if len(s) < 3:
        return None
    C, spatial = s[1], s[2:]
    group = int(rng.choice([g for g in (1, 2, 3) if C % g == 0]))
    M = group * int(rng.integers(1, 3))
    kernel = [int(rng.integers(1, min(3, d) + 1)) for d in spatial]
    attrs = _window_attrs(b, spatial, kernel, ceil=False)
    attrs["group"] = group
    if rng.random() < 0.5:
        attrs["kernel_shape"] = kernel
    inputs = [x, b.const(b.weights((M, C // group, *kernel)))]
    if rng.random() < 0.6:
        inputs.append(b.const(b.weights((M,))))
    return b.try_node("Conv", inputs, attrs)


def op_pool(b, x):
    rng, s = b.rng, b.shapes[x]
    if len(s) < 3:
        return None
    spatial = s[2:]
    kernel = [int(rng.integers(1, min(3, d) + 1)) for d in spatial]
    if rng.random() < 0.5:
        attrs = _window_attrs(b, spatial, kernel, dilate=False)
        if rng.random() < 0.5:
            attrs["count_include_pad"] = 1
        return b.try_node("AveragePool", [x], {"kernel_shape": kernel, **attrs})
    attrs = _window_attrs(b, spatial, kernel)
    return b.try_node("MaxPool", [x], {"kernel_shape": kernel, **attrs})


def op_pad(b, x):
    if not b.shapes[x]:
        return None
    rng, s = b.rng, b.shapes[x]
    r = len(s)
    pads = [int(rng.integers(-1 if d > 1 else 0, 3)) for d in s] + [int(rng.integers(-1 if d > 2 else 0, 2)) for d in s]
    value = float(rng.choice([0.0, 0.5, -2.0]))
    if b.opset < 11:
        return b.try_node("Pad", [x], {"pads": pads, "value": value})
    inputs = [x, b.ints(pads)]
    if value or rng.random() < 0.5:
        inputs.append(b.const(np.array(value, np.float32)))
    return b.try_node("Pad", inputs, {"mode": "constant"} if rng.random() < 0.5 else {})


def op_batchnorm(b, x):
    rng, s = b.rng, b.shapes[x]
    if len(s) < 2:
        return None
    C = s[1]
    eps = 0.25
    roots = rng.choice([0.5, 1.0, 1.5, 2.0], size=C)  # var + eps = root^2: a rational factor
    var = (roots ** 2 - eps).astype(np.float32)
    if rng.random() < 0.1:
        var[0] = 1.0  # sqrt(1.25): irrational, refused
    inputs = [x, b.const(b.weights((C,))), b.const(b.weights((C,))), b.const(b.weights((C,))), b.const(var)]
    return b.try_node("BatchNormalization", inputs, {"epsilon": eps})


OPERATIONS = [op_gemm, op_matmul, op_binary, op_binary, op_self, op_reshape, op_flatten, op_transpose, op_squeeze,
              op_unsqueeze, op_relu, op_relu, op_identity, op_max, op_reduce_max, op_conv, op_conv, op_pool, op_pool,
              op_pad, op_batchnorm, op_skip]
#: operations that only make sense on image-like tensors get inputs of rank 3 or 4 more often
SPATIAL = {op_conv, op_pool}


def random_graph(seed):
    """``(model, ops)``: a random graph (module docstring) and the operations it uses."""
    rng = np.random.default_rng(seed)
    opset = int(rng.choice(OPSETS))
    rank = int(rng.integers(1, 5))
    shape = [int(rng.integers(1, 5)) for _ in range(rank)]
    while int(np.prod(shape)) > 100:
        shape[int(np.argmax(shape))] -= 1
    batch = str(rng.choice(["symbolic", "one", "fixed"]))
    if batch in ("symbolic", "one"):
        shape[0] = 1
    elif shape[0] == 1:
        shape[0] = int(rng.integers(2, 4))
    b = Builder(rng, opset, shape, batch)
    x = "x"
    steps = int(rng.integers(1, 6))
    for _ in range(steps):
        for _attempt in range(6):
            op = OPERATIONS[int(rng.integers(0, len(OPERATIONS)))]
            y = op(b, x)
            if y is not None:
                x = y
                break
    if x == "x":
        x = b.try_node("Relu", ["x"]) or b.try_node("Identity", ["x"])
    model = b.model(x)
    if batch == "symbolic":
        d = model.graph.input[0].type.tensor_type.shape.dim[0]
        d.Clear()
        d.dim_param = "N"
    return model, b.ops, batch, tuple(shape)
