"""An ONNX graph read exactly, and the one way its nodes are executed symbolically.

:class:`OnnxGraph` holds the parsed graph: every initializer and ``Constant`` node as
exact rationals (:func:`tensor_to_exact`), the one real input and the one output.
:class:`GraphTracer` runs the nodes in order, handing each to the tracer's method
``op_<OpType>``; a tracer says what a tensor *is* (an affine map of the input, a state
of a Transformer, ...) by the values those methods return. The MLP/maxout importer
(:mod:`symrel.interop.onnx_import`) and the attention importer
(:mod:`symrel.interop.onnx_attention`) are two such tracers. An operation that a
tracer has no method for is refused, naming the node and the operations it supports.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..exact import Q
from .extras import require


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
    """An ONNX ``TensorProto`` as a numpy object array of exact rationals, and its type name."""
    np = require("numpy", "onnx")
    from onnx import numpy_helper

    from .floats import exact_flat

    arr = numpy_helper.to_array(tensor)
    out = np.empty(arr.size, dtype=object)
    out[:] = exact_flat(arr, path=path)
    return out.reshape(arr.shape), str(arr.dtype)


def load_onnx_proto(path):
    """The ``ModelProto`` of an ONNX file (InputError naming the file when it cannot be read)."""
    onnx = require("onnx", "onnx")
    try:
        return onnx.load(str(path))
    except Exception as err:
        raise InputError(f"cannot read the ONNX file: {str(err).splitlines()[0]}", file=str(path)) from None


class OnnxGraph:
    """The parsed graph: constants (exact), the real input, nodes in order, the output."""

    def __init__(self, proto, path):
        self.path = path
        self.onnx = require("onnx", "onnx")
        g = proto.graph
        self.consts: dict = {}
        self.types: set = set()
        for t in g.initializer:
            a, ty = tensor_to_exact(t, f"initializer {t.name}")
            self.consts[t.name] = a
            if ty.startswith(("float", "bfloat")):
                self.types.add(ty)
        self.nodes = list(g.node)
        for n in self.nodes:
            if n.op_type == "Constant":
                val = [a for a in n.attribute if a.name == "value"]
                if not val:
                    raise self.error(n, "only Constant nodes with a tensor 'value' are supported")
                a, ty = tensor_to_exact(val[0].t, f"node {n.name or n.output[0]}")
                self.consts[n.output[0]] = a
        inputs = [i for i in g.input if i.name not in self.consts]
        if len(inputs) != 1:
            raise InputError(f"expected one graph input, got {len(inputs)}", file=path)
        self.input = inputs[0]
        dims = [d.dim_value if d.HasField("dim_value") else None for d in self.input.type.tensor_type.shape.dim]
        if len(dims) == 1 and dims[0] is not None:
            self.input_feat = tuple(dims)  # one unbatched vector (the VNN-COMP test networks)
        elif len(dims) < 2 or any(d is None for d in dims[1:]):
            raise InputError(f"expected an input of shape (batch, features...) or (features,), got {dims}",
                             path=self.input.name, file=path)
        else:
            self.input_feat = tuple(dims[1:])
        if len(g.output) != 1:
            raise InputError(f"expected one graph output, got {len(g.output)}", file=path)
        self.output = g.output[0].name
        self.metadata = {p.key: p.value for p in proto.metadata_props}

    def error(self, node, message) -> InputError:
        return InputError(message, path=f"node {node.name or node.output[0]} ({node.op_type})", file=self.path)

    def attrs(self, node) -> dict:
        return {a.name: self.onnx.helper.get_attribute_value(a) for a in node.attribute}


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
            self.values[node.output[0]] = handler(node)
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
