"""Hypothesis strategies that break a valid ONNX model: its parsed ``ModelProto`` edited (dims,
attributes, initializers' types, sizes and bytes, node order and names, op types, opsets,
external data, sparse initializers, an empty graph) or its serialized bytes themselves.

Every strategy draws a complete file (bytes); the tests only ask what symrel does with it.
"""

from __future__ import annotations

from hypothesis import strategies as st

from .corrupt import broken_bytes

#: every element type of ONNX's TensorProto (1 float ... 16 bfloat16, 17-20 float8, 21-22 4-bit)
ELEMENT_TYPES = list(range(0, 24))
#: operations put in a node's place: read, not read, of other domains, attention's
OP_TYPES = ["Relu", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Reshape", "Flatten", "Transpose", "Squeeze",
            "Unsqueeze", "Identity", "Constant", "Max", "ReduceMax", "Conv", "MaxPool", "AveragePool", "Pad",
            "BatchNormalization", "Dropout", "Softmax", "Hardmax", "Sigmoid", "Gather", "Concat", "Cast", "Loop",
            "If", "Where", "NoSuchOp", ""]
DIMS = [0, 1, 2, 3, -1, -7, 10**7, 2**62, "N", "", "batch"]
NAMES = ["x", "y", "h", "r", "m", "W1", "b1", "W2T", "b2", "", "ghost", "x\x00", "y" * 300]
INTS = [0, 1, 2, -1, -2, 3, 7, 2**31, -(2**63), 2**62]
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-45, 3.4e38, float("inf"), float("nan")]


def _tensor_types():
    from onnx import TensorProto

    return TensorProto


def _value_infos(model):
    g = model.graph
    return list(g.input) + list(g.output) + list(g.value_info)


def _edit_dim(draw, model):
    infos = [v for v in _value_infos(model) if v.type.HasField("tensor_type")]
    if not infos:
        return
    v = draw(st.sampled_from(infos))
    shape = v.type.tensor_type.shape
    how = draw(st.sampled_from(["set", "add", "drop", "clear"]))
    if how == "clear":
        v.type.tensor_type.ClearField("shape")
        return
    if how == "add" or not shape.dim:
        d = shape.dim.add()
    elif how == "drop":
        del shape.dim[draw(st.integers(0, len(shape.dim) - 1))]
        return
    else:
        d = shape.dim[draw(st.integers(0, len(shape.dim) - 1))]
    value = draw(st.sampled_from(DIMS))
    d.Clear()
    if isinstance(value, str):
        d.dim_param = value
    else:
        d.dim_value = value


def _edit_elem_type(draw, model):
    infos = [v for v in _value_infos(model) if v.type.HasField("tensor_type")]
    if infos:
        draw(st.sampled_from(infos)).type.tensor_type.elem_type = draw(st.sampled_from(ELEMENT_TYPES))


def _edit_attribute(draw, model):
    from onnx import helper

    nodes = list(model.graph.node)
    if not nodes:
        return
    node = draw(st.sampled_from(nodes))
    how = draw(st.sampled_from(["set", "drop", "add"]))
    if how == "drop" and node.attribute:
        del node.attribute[draw(st.integers(0, len(node.attribute) - 1))]
        return
    name = draw(st.sampled_from(["transA", "transB", "alpha", "beta", "axis", "axes", "keepdims", "perm", "shape",
                                 "kernel_shape", "strides", "pads", "dilations", "group", "ceil_mode", "epsilon",
                                 "allowzero", "mode", "value", "to", "unknown"]
                                + [a.name for a in node.attribute]))
    value = draw(st.one_of(st.sampled_from(INTS), st.sampled_from(FLOATS), st.lists(st.sampled_from(INTS), min_size=1, max_size=4),
                           st.sampled_from([b"constant", b"reflect", b"", b"\xff"])))
    for k, a in enumerate(node.attribute):
        if a.name == name:
            del node.attribute[k]
            break
    node.attribute.append(helper.make_attribute(name, value))


def _edit_initializer(draw, model):
    import numpy as np

    inits = list(model.graph.initializer)
    if not inits:
        return
    t = draw(st.sampled_from(inits))
    how = draw(st.sampled_from(["type", "dims", "raw", "fields", "external", "rename", "segment", "half", "double"]))
    if how == "type":
        t.data_type = draw(st.sampled_from(ELEMENT_TYPES))
    elif how == "dims":
        if t.dims and draw(st.booleans()):
            t.dims[draw(st.integers(0, len(t.dims) - 1))] = draw(st.sampled_from([0, 1, 2, 3, 4, -1, 2**40]))
        else:
            t.dims.append(draw(st.sampled_from([0, 1, 2])))
    elif how == "raw":
        data = t.raw_data
        t.raw_data = draw(st.sampled_from([data[:-1], data + b"\x00", data[: len(data) // 2], b"", data * 2,
                                           b"\xff" * len(data), b"\x00\x00\xc0\x7f" * (len(data) // 4)]))
    elif how == "fields":   # the values in float_data and raw_data both, or in a field of another type
        t.float_data.extend(draw(st.lists(st.sampled_from(FLOATS), max_size=4)))
        if draw(st.booleans()):
            t.int64_data.extend([1, 2])
    elif how == "external":
        from onnx import TensorProto

        t.data_location = TensorProto.EXTERNAL
        entry = t.external_data.add()
        entry.key, entry.value = "location", draw(st.sampled_from(["../../etc/passwd", "/dev/zero", "missing.bin",
                                                                   "net.onnx", "", "."]))
        if draw(st.booleans()):
            entry = t.external_data.add()
            entry.key, entry.value = "length", draw(st.sampled_from(["16", "99999999999999", "-1", "x"]))
        t.ClearField("raw_data")
    elif how == "rename":
        t.name = draw(st.sampled_from(NAMES))
    elif how == "segment":
        t.segment.begin, t.segment.end = 0, 1
    else:   # the weights as float16 or float64 bytes (the declared type changed with them)
        from onnx import numpy_helper

        try:   # an earlier edit may have left the tensor unreadable: then it stays as it is
            a = numpy_helper.to_array(t)
        except Exception:
            return
        if a.dtype.kind == "f":
            dtype = np.float16 if how == "half" else np.float64
            t.CopyFrom(numpy_helper.from_array(a.astype(dtype), t.name))


def _edit_nodes(draw, model):
    g = model.graph
    nodes = list(g.node)
    how = draw(st.sampled_from(["reverse", "shuffle", "delete", "duplicate", "rename-input", "rename-output",
                                "op", "domain", "empty", "dangling"]))
    if how == "empty" or not nodes:
        del g.node[:]
        return
    i = draw(st.integers(0, len(nodes) - 1))
    node = g.node[i]
    if how == "reverse":
        copies = [type(n)() for n in nodes]
        for c, n in zip(copies, reversed(nodes)):
            c.CopyFrom(n)
        del g.node[:]
        g.node.extend(copies)
    elif how == "shuffle":
        order = draw(st.permutations(range(len(nodes))))
        copies = [type(nodes[k])() for k in order]
        for c, k in zip(copies, order):
            c.CopyFrom(nodes[k])
        del g.node[:]
        g.node.extend(copies)
    elif how == "delete":
        del g.node[i]
    elif how == "duplicate":
        g.node.add().CopyFrom(node)
    elif how == "rename-input" and node.input:
        node.input[draw(st.integers(0, len(node.input) - 1))] = draw(st.sampled_from(NAMES))
    elif how == "rename-output" and node.output:
        node.output[0] = draw(st.sampled_from(NAMES))
    elif how == "op":
        node.op_type = draw(st.sampled_from(OP_TYPES))
    elif how == "domain":
        node.domain = draw(st.sampled_from(["com.microsoft", "ai.onnx.ml", "ai.onnx", "custom"]))
    else:
        node.input.append(draw(st.sampled_from(NAMES)))


def _edit_graph(draw, model):
    from onnx import helper

    g = model.graph
    how = draw(st.sampled_from(["opset", "opset-domain", "no-opset", "ir", "output-is-input", "init-as-input",
                                "no-output", "two-outputs", "no-input", "sparse", "shadow-input"]))
    if how == "opset" and model.opset_import:
        model.opset_import[0].version = draw(st.sampled_from([0, 1, 6, 7, 9, 11, 17, 21, 99]))
    elif how == "opset-domain":
        model.opset_import.append(helper.make_opsetid(draw(st.sampled_from(["", "ai.onnx", "com.microsoft"])),
                                                      draw(st.sampled_from([1, 7, 13]))))
    elif how == "no-opset":
        del model.opset_import[:]
    elif how == "ir":
        model.ir_version = draw(st.sampled_from([0, 1, 3, 4, 10, 99]))
    elif how == "output-is-input" and g.output and g.input:
        g.output[0].name = g.input[0].name
    elif how == "init-as-input" and g.initializer:
        t = draw(st.sampled_from(list(g.initializer)))
        g.input.append(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)))
    elif how == "no-output":
        del g.output[:]
    elif how == "two-outputs" and g.output:
        g.output.add().CopyFrom(g.output[0])
    elif how == "no-input":
        del g.input[:]
    elif how == "sparse" and g.initializer:
        import numpy as np
        from onnx import numpy_helper

        t = g.initializer[draw(st.integers(0, len(g.initializer) - 1))]
        values = numpy_helper.from_array(np.array([1.0], np.float32), t.name)
        indices = numpy_helper.from_array(np.array([0], np.int64), "")
        sparse = helper.make_sparse_tensor(values, indices, list(t.dims))
        if draw(st.booleans()):
            g.ClearField("initializer")
        g.sparse_initializer.append(sparse)
    elif how == "shadow-input" and g.initializer and g.input:   # an initializer named as the input
        t = g.initializer[0]
        t.name = g.input[0].name


EDITS = [_edit_dim, _edit_elem_type, _edit_attribute, _edit_initializer, _edit_nodes, _edit_graph]


@st.composite
def broken_model(draw, data: bytes) -> bytes:
    """The model of ``data`` with one to three edits of its ``ModelProto``."""
    import onnx

    model = onnx.ModelProto()
    model.ParseFromString(data)
    for _ in range(draw(st.integers(1, 3))):
        draw(st.sampled_from(EDITS))(draw, model)
    return model.SerializeToString()


def broken_onnx(data: bytes):
    """An ONNX file broken in its parsed model (four times in five) or in its bytes."""
    return st.one_of(broken_model(data), broken_model(data), broken_model(data), broken_model(data),
                     broken_bytes(data))
