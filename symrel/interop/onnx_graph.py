"""An ONNX graph read exactly: its constants, its one input and output, its shapes.

:class:`OnnxGraph` holds the parsed graph: every initializer and ``Constant`` node as exact
rationals (:func:`tensor_to_exact`, bit for bit), beside its float values; the one real
input (an initializer listed among the inputs is a constant); the nodes that the one output
depends on, in order; the default-domain opset; and the shape ONNX's own shape inference
gives every tensor (:meth:`OnnxGraph.inferred_shape`), against which the importer checks the
shape it computes.

The input tensor (:meth:`OnnxGraph.input_shape`). VNN-LIB numbers the inputs ``X_i`` by the
row-major flattening of the whole input tensor of one sample, and so does symrel: an axis is
a *batch axis* when it is the first axis and symbolic (or of unknown size); the tensor is then
read with that axis of size 1. A first axis of fixed size, even 1, is part of the tensor
(size 1 changes nothing). Any other symbolic axis is refused, naming it.

:class:`GraphTracer` runs the nodes in order, handing each to the tracer's method
``op_<OpType>``; the attention importer (:mod:`symrel.interop.onnx_attention`) is such a
tracer. An operation that a tracer has no method for is refused, naming the node and the
operations it supports.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..exact import Q
from .extras import require

#: ONNX element types symrel reads as input tensors (float types: read bit for bit)
FLOAT_TYPES = {1: "float32", 11: "float64", 10: "float16", 16: "bfloat16"}
#: the oldest default-domain opset read (Gemm, Max, ... broadcast as numpy does from opset 7 on)
MIN_OPSET = 7


def exact_zeros(np, shape):
    """A numpy object array of exact zeros."""
    a = np.empty(shape, dtype=object)
    a[...] = Q(0)
    return a


def exact_identity(np, n: int):
    """The n x n identity as a numpy object array of exact rationals."""
    eye = exact_zeros(np, (n, n))
    for i in range(n):
        eye[i, i] = Q(1)
    return eye


def tensor_to_exact(tensor, path):
    """An ONNX ``TensorProto`` as ``(exact, floats, dtype name)``: a numpy object array of
    exact rationals, the numpy array as stored, and its type name."""
    require("numpy", "onnx")
    from onnx import numpy_helper

    from .floats import exact_tensor

    try:
        arr = numpy_helper.to_array(tensor)
    except Exception as err:  # a malformed tensor: its bytes do not match its dims or type
        raise InputError(f"cannot read the tensor: {str(err).splitlines()[0] if str(err) else type(err).__name__}",
                         path=path) from None
    return exact_tensor(arr, path=path), arr, str(arr.dtype)


def load_onnx_proto(path):
    """The ``ModelProto`` of an ONNX file (InputError naming the file when it cannot be read).

    The file's bytes are read bounded (:mod:`symrel.fileformat.reading`: a device is refused) and
    parsed as they are; a tensor whose data lives in another file (ONNX's external data) is
    refused, unread: the network is the one file named, the file its sha256 binds."""
    onnx = require("onnx", "onnx")
    from ..fileformat.reading import read_bytes

    data = read_bytes(path)
    try:
        proto = onnx.load_model_from_string(data)
    except Exception as err:
        text = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise InputError(f"cannot read the ONNX file: {text}", file=str(path)) from None
    for tensor in _tensors(proto.graph):
        if tensor.data_location == onnx.TensorProto.EXTERNAL or tensor.external_data:
            where = {e.key: e.value for e in tensor.external_data}.get("location", "?")
            raise InputError(f"the data of tensor {tensor.name!r} is in another file ({where!r}, ONNX external data): "
                             "expected every tensor in the file itself", file=str(path))
    return proto


def _tensors(graph):
    """Every tensor the graph holds: initializers, sparse ones, and Constant nodes' (subgraphs too)."""
    yield from graph.initializer
    for sparse in graph.sparse_initializer:
        yield sparse.values
        yield sparse.indices
    for node in graph.node:
        for a in node.attribute:
            if a.HasField("t"):
                yield a.t
            yield from a.tensors
            if a.HasField("g"):
                yield from _tensors(a.g)
            for g in a.graphs:
                yield from _tensors(g)


def _dims(value_info) -> list:
    """The dims of a tensor's declared shape: ints, or None where symbolic or unknown
    (None for the whole list when the rank is unknown)."""
    t = value_info.type.tensor_type
    if not t.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]


class OnnxGraph:
    """The parsed graph: constants (exact), the real input, the nodes in order, the output."""

    def __init__(self, proto, path):
        self.path = path
        self.proto = proto
        self.onnx = require("onnx", "onnx")
        g = proto.graph
        default = {o.version for o in proto.opset_import if o.domain in ("", "ai.onnx")}
        if len(default) > 1:   # onnxruntime takes the last, and the operations' meaning depends on it
            raise InputError(f"expected one version of the default ONNX opset, got {sorted(default)} (imported "
                             "as '' and 'ai.onnx', or twice)", file=path)
        self.opset = next(iter(default), None)
        if g.sparse_initializer:
            raise InputError(f"sparse initializers are not read (got {g.sparse_initializer[0].values.name!r})",
                             file=path)
        self.consts: dict = {}  # name -> exact object array
        self.floats: dict = {}  # name -> the array as stored (its float values, for error bounds)
        self.dtypes: dict = {}  # name -> numpy dtype name
        self.types: set = set()
        for t in g.initializer:
            self._add_const(t.name, t, f"initializer {t.name}")
        self.nodes = list(g.node)
        for n in self.nodes:
            if n.op_type == "Constant" and n.domain in ("", "ai.onnx") and n.output:
                self._add_constant_node(n)
        inputs = [i for i in g.input if i.name not in self.consts]
        if len(inputs) != 1:
            raise InputError(f"expected one graph input (besides initializers), got {len(inputs)}", file=path)
        self.input = inputs[0]
        if len(g.output) != 1:
            raise InputError(f"expected one graph output, got {len(g.output)}", file=path)
        self.output = g.output[0].name
        self.metadata = {p.key: p.value for p in proto.metadata_props}

    def _add_const(self, name, tensor, where):
        try:
            a, f, ty = tensor_to_exact(tensor, where)
        except InputError as err:
            raise err.in_file(self.path) from None
        self.consts[name], self.floats[name], self.dtypes[name] = a, f, ty
        if ty.startswith(("float", "bfloat")):
            self.types.add(ty)

    def _add_constant_node(self, n):
        np = require("numpy", "onnx")
        attrs = {a.name: a for a in n.attribute}
        where = f"node {n.name or n.output[0]} (Constant)"
        if "value" in attrs:
            self._add_const(n.output[0], attrs["value"].t, where)
            return
        lists = {"value_float": np.float32, "value_floats": np.float32, "value_int": np.int64, "value_ints": np.int64}
        for key, dtype in lists.items():
            if key in attrs:
                v = self.onnx.helper.get_attribute_value(attrs[key])
                from onnx import numpy_helper

                self._add_const(n.output[0], numpy_helper.from_array(np.array(v, dtype=dtype)), where)
                return
        raise InputError("expected a Constant with a tensor, float(s) or int(s) value "
                         f"(got {', '.join(sorted(attrs)) or 'no value'})", path=where, file=self.path)

    # -- the input tensor
    def input_shape(self) -> tuple:
        """The shape of one sample's input tensor (the module docstring): the declared shape,
        a symbolic (or unknown) first axis read as 1; any other symbolic axis refused."""
        name = self.input.name
        elem = self.input.type.tensor_type.elem_type
        if elem not in FLOAT_TYPES:
            raise InputError(f"expected a float input tensor, got element type {elem}", path=f"input {name}",
                             file=self.path)
        dims = _dims(self.input)
        if dims is None:
            raise InputError("expected an input with a declared shape", path=f"input {name}", file=self.path)
        shape = []
        for axis, d in enumerate(dims):
            if d is None and axis == 0:
                d = 1  # the batch axis: one sample
            if d is None:
                param = self.input.type.tensor_type.shape.dim[axis].dim_param
                raise InputError(f"axis {axis} is symbolic ({param or 'unknown size'}): expected a fixed size "
                                 "(only the first axis may be a symbolic batch axis)", path=f"input {name}",
                                 file=self.path)
            if d <= 0:
                raise InputError(f"axis {axis} has size {d}: expected a positive size", path=f"input {name}",
                                 file=self.path)
            shape.append(d)
        return tuple(shape)

    @property
    def input_feat(self) -> tuple:
        """The attention importer's reading of the input: ``(batch, features...)`` or
        ``(features,)``, the per-sample features."""
        dims = _dims(self.input) or []
        if len(dims) == 1 and dims[0] is not None:
            return tuple(dims)
        if len(dims) < 2 or any(d is None for d in dims[1:]):
            raise InputError(f"expected an input of shape (batch, features...) or (features,), got {dims}",
                             path=self.input.name, file=self.path)
        return tuple(dims[1:])

    # -- checks
    def check(self):
        """The ONNX checker's verdict on the model (a failure is a one-line InputError)."""
        try:
            self.onnx.checker.check_model(self.proto)
        except Exception as err:
            raise InputError(f"not a valid ONNX model: {_first_line(err)}", file=self.path) from None
        if self.opset is None or self.opset < MIN_OPSET:
            raise InputError(f"expected the default ONNX opset {MIN_OPSET} or newer, got {self.opset}", file=self.path)

    def needed_nodes(self) -> list:
        """The nodes the graph output depends on, in the graph's order."""
        producer = {o: n for n in self.nodes for o in n.output if o}
        need, stack = set(), [self.output]
        while stack:
            name = stack.pop()
            n = producer.get(name)
            if n is None or id(n) in need:
                continue
            need.add(id(n))
            stack.extend(i for i in n.input if i)
        return [n for n in self.nodes if id(n) in need]

    def infer_shapes(self, input_shape) -> None:
        """Run ONNX shape inference on the graph with the input of ``input_shape`` (the batch
        axis fixed to 1); :meth:`inferred_shape` then answers per tensor."""
        from onnx import shape_inference

        proto = self.onnx.ModelProto()
        proto.CopyFrom(self.proto)
        for i in proto.graph.input:
            if i.name == self.input.name:
                for d, size in zip(i.type.tensor_type.shape.dim, input_shape):
                    d.Clear()
                    d.dim_value = size
        try:
            inferred = shape_inference.infer_shapes(proto, strict_mode=True, data_prop=True)
        except Exception as err:
            raise InputError(f"ONNX shape inference fails: {_first_line(err)}", file=self.path) from None
        g = inferred.graph
        self._inferred = {}
        for v in list(g.value_info) + list(g.output):
            dims = _dims(v)
            if dims is not None:
                self._inferred[v.name] = tuple(dims)

    def inferred_shape(self, name):
        """The shape ONNX shape inference gives tensor ``name`` (None for an unknown size),
        or None when it gives none."""
        return getattr(self, "_inferred", {}).get(name)

    # -- nodes
    def error(self, node, message) -> InputError:
        return InputError(message, path=node_label(node), file=self.path)

    def attrs(self, node) -> dict:
        """The node's attributes as Python values (strings decoded)."""
        out = {}
        for a in node.attribute:
            v = self.onnx.helper.get_attribute_value(a)
            out[a.name] = v.decode("utf-8", "replace") if isinstance(v, bytes) else v
        return out


def node_label(node) -> str:
    """How errors name a node: ``node NAME (OpType)``."""
    return f"node {node.name or (node.output[0] if node.output else '?')} ({node.op_type})"


def _first_line(err) -> str:
    text = str(err).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[0] if lines else type(err).__name__


@dataclass
class Constant:
    """A constant tensor: a numpy object array of exact rationals."""

    a: object


class GraphTracer:
    """Symbolic execution of an :class:`OnnxGraph`: ``values`` maps a tensor name to what
    the tracer knows it is (constants start as :class:`Constant`); subclasses add the
    values of the input (``start``) and one method ``op_<OpType>(node)`` per operation,
    returning the value of the node's output."""

    #: how the graphs this tracer reads are called in its errors
    graph_kind = "graph"

    def __init__(self, graph: OnnxGraph):
        self.g = graph
        self.np = require("numpy", "onnx")
        self.values: dict = {name: Constant(a) for name, a in graph.consts.items()}

    @classmethod
    def supported(cls) -> list[str]:
        """The operations this tracer executes (its ``op_`` methods)."""
        return sorted(name[3:] for name in dir(cls) if name.startswith("op_"))

    def trace(self):
        """Run every node in order; returns the value of the graph output (None if never computed)."""
        for node in self.g.nodes:
            if node.op_type == "Constant":
                continue
            handler = getattr(self, f"op_{node.op_type}", None)
            if handler is None:
                raise self.g.error(node, f"operation not supported in {self.graph_kind} "
                                         f"(supported: {', '.join(self.supported())})")
            try:
                self.values[node.output[0]] = handler(node)
            except InputError:
                raise
            except (ValueError, IndexError, TypeError, KeyError, ZeroDivisionError, OverflowError, MemoryError) as err:
                # operands of shapes the layout does not expect: numpy's complaint, on one line
                text = " ".join(str(err).split())[:200]
                raise self.g.error(node, f"symrel cannot read this node (internal: {type(err).__name__}: {text})") \
                    from None
        return self.values.get(self.g.output)

    def get(self, node, i):
        """The value of the node's input i (None for an absent optional input)."""
        name = node.input[i] if i < len(node.input) else ""
        if not name:
            return None
        if name not in self.values:
            raise self.g.error(node, f"input {name!r} is not computed before this node")
        return self.values[name]

    def const(self, node, i):
        """The node's input i, which must be a constant: its exact array."""
        v = self.get(node, i)
        if not isinstance(v, Constant):
            raise self.g.error(node, f"expected input {i} to be a constant (initializer)")
        return v.a

    def fail(self, node, what):
        raise self.g.error(node, f"expected {what}")

    def op_Identity(self, node):
        return self.get(node, 0)
