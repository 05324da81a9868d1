"""ONNX graphs read exactly into symrel models, or refused.

Every float initializer becomes exact dyadic rationals bit for bit
(:func:`symrel.interop.floats.exact_tensor`); the graph is then executed *symbolically*, one
node at a time, following the ONNX specification on full tensor shapes:

* the input tensor is one sample (:meth:`~symrel.interop.onnx_graph.OnnxGraph.input_shape`:
  a symbolic first axis is a batch axis of size 1, any fixed axis is part of the input), and
  the net's inputs ``X_i`` and outputs ``Y_j`` are the row-major flattenings of the whole
  input and output tensors, as VNN-LIB numbers them;
* a tensor that does not depend on the input is a constant (exact); one that does is lowered
  to the primitives of :mod:`symrel.interop.onnx_ir` (index moves, entrywise arithmetic with
  constants, sparse linear maps, ReLU, max over groups), read symbolically into a net by
  :mod:`symrel.interop.onnx_layers`;
* the operations read: ``Gemm`` (``transA``, ``transB``, ``alpha``, ``beta``), ``MatMul``
  (either side constant, any ranks, numpy's rules), ``Add``, ``Sub``, ``Mul``, ``Div`` (numpy
  broadcasting; a division by a constant is a multiplication by its exact reciprocal),
  ``Relu``, ``Max``, ``ReduceMax``, ``Reshape``, ``Flatten``, ``Transpose``, ``Squeeze``,
  ``Unsqueeze``, ``Identity``, ``Dropout`` (inference), ``Constant``, ``Conv``, ``Pad``
  (constant mode), ``AveragePool``, ``MaxPool``, ``BatchNormalization`` (inference, when
  ``scale / sqrt(var + eps)`` is rational);
* every tensor's shape is checked against ONNX shape inference.

An operation outside these, a product of two input-dependent tensors, a division by zero or
by an input-dependent tensor, a symbolic axis other than the batch axis: each is refused
with one line naming the file and the node. After the import, when onnxruntime is installed,
:mod:`symrel.interop.onnx_guard` compares the exact model with onnxruntime at a few points
(a guard against misreading a node, not the semantics). Attention graphs (``Softmax`` or
``Hardmax`` present) are read by :mod:`symrel.interop.onnx_attention`.
"""

from __future__ import annotations

from math import prod

from ..errors import InputError
from .imported import ImportedModel
from .onnx_graph import FLOAT_TYPES, OnnxGraph, load_onnx_proto, node_label
from .onnx_ir import PrimitiveProgram
from .onnx_layers import SymbolicRun, build_model
from .onnx_linear import GeometryError
from .onnx_operations import Operations
from .onnx_values import ONE, ZERO, Const, FloatBounds, Var, np, to_floats


#: the most entries a tensor of the graph may have
TENSOR_LIMIT = 10_000_000


def read_onnx(path, *, check_runtime: bool = True) -> ImportedModel:
    """Import an ONNX file exactly (see the module docstring). ``check_runtime``: compare the
    model with onnxruntime (when installed) and refuse it on a disagreement."""
    proto = load_onnx_proto(path)
    graph = OnnxGraph(proto, str(path))
    if any(n.op_type in ("Softmax", "Hardmax") for n in graph.nodes):
        from .onnx_attention import import_transformer

        graph.check()   # the ONNX checker, the opset, and shapes as ONNX infers them, as for any graph
        graph.infer_shapes(graph.input_shape())
        model, notes = import_transformer(graph)
        return ImportedModel(model, str(path), "onnx", sorted(graph.types), notes)
    tracer = ExactTracer(graph)
    model = tracer.run()
    notes = list(tracer.notes)
    if check_runtime:
        from .onnx_guard import check_with_onnxruntime

        note = check_with_onnxruntime(tracer, model)
        if note:
            notes.append(note)
    return ImportedModel(model, str(path), "onnx", sorted(graph.types), notes)


def _unit_roundoff_format(graph) -> str:
    """The float format of the graph with the largest unit roundoff (its arithmetic's)."""
    names = set(graph.types) | {FLOAT_TYPES.get(graph.input.type.tensor_type.elem_type, "float32")}
    order = ["bfloat16", "float16", "float32", "float64"]
    return next((n for n in order if n in names), "float32")


class ExactTracer(Operations):
    """The symbolic execution of a graph (module docstring): ``values`` maps a tensor name to
    a :class:`~symrel.interop.onnx_values.Const` or a :class:`Var`; the steps go to
    ``program`` and are read into a net by ``symbolic`` as they come."""

    def __init__(self, graph: OnnxGraph):
        self.g = graph
        self.program = PrimitiveProgram()
        self.symbolic = SymbolicRun(file=graph.path)
        self.program.listeners.append(self.symbolic)
        self.format = _unit_roundoff_format(graph)
        self.bounds = FloatBounds(self.format)
        self.notes: list[str] = []
        self.convolutional = False
        self.node = None
        self.label = f"input {graph.input.name}"
        self.values: dict = {}

    # -- running the graph
    def run(self):
        """The exact model of the graph (ReLU, maxout or layered net)."""
        g = self.g
        g.check()
        shape = g.input_shape()
        self._check_size(shape)
        g.infer_shapes(shape)
        for name, a in g.consts.items():
            self.values[name] = Const(a, np.asarray(g.floats[name], dtype=np.float64)
                                      if g.floats[name].dtype.kind in "fiub" or g.floats[name].dtype.name == "bfloat16"
                                      else to_floats(a), g.dtypes[name])
        self.input_shape = shape
        self.values[g.input.name] = self.var("input", (), shape)
        self._note_input(shape)
        for node in g.needed_nodes():
            self.node, self.label = node, node_label(node)
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
                self._check_shape(node.output[0], self.values[node.output[0]].shape)
                continue
            if node.domain not in ("", "ai.onnx"):
                self.fail(f"operation of the domain {node.domain!r} is not read")
            handler = getattr(self, f"op_{node.op_type}", None)
            if handler is None:
                self.fail(f"operation not supported (supported: {', '.join(self.supported())})")
            try:
                value = handler(node)
            except GeometryError as err:
                self.fail(str(err))
            except InputError:
                raise
            except (ValueError, IndexError, TypeError, KeyError, ZeroDivisionError, OverflowError, MemoryError) as err:
                self.fail(f"symrel cannot read this node (internal: {type(err).__name__}: {err})")
            name = node.output[0]
            self.values[name] = value
            if isinstance(value, Var):
                self.program.tensors[name] = value.id
            if prod(value.shape) == 0:
                self.fail(f"the output {name!r} has no entries (shape {value.shape})")
            self._check_size(value.shape)
            self._check_shape(name, value.shape)
        return self._finish()

    def _note_input(self, shape):
        dims = [d.dim_param or (d.dim_value if d.HasField("dim_value") else "?")
                for d in self.g.input.type.tensor_type.shape.dim]
        if dims and not isinstance(dims[0], int):
            self.notes.append(f"input {self.g.input.name} {dims}: the symbolic first axis is a batch axis, read "
                              f"as 1; X_i numbers the {prod(shape)} entries of {tuple(shape)} row-major")

    def _finish(self):
        g = self.g
        out = self.values.get(g.output)
        self.label = f"output {g.output}"
        if out is None:
            raise InputError("the graph output is not computed by any node", path=self.label, file=g.path)
        if not isinstance(out, Var):
            raise InputError("expected the graph output to depend on the input", path=self.label, file=g.path)
        declared = g.proto.graph.output[0].type.tensor_type
        if declared.HasField("shape"):
            dims = [d.dim_value if d.HasField("dim_value") else None for d in declared.shape.dim]
            if len(dims) != len(out.shape) or any(d is not None and d != s for d, s in zip(dims, out.shape)):
                raise InputError(f"symrel computes the output shape {out.shape}, the graph declares {dims}",
                                 path=self.label, file=g.path)
        t = self.symbolic.values[out.id]
        if t.entries == 0:  # computed from the input, but every weight on the way is zero: constant
            t = t.with_base(self.symbolic.last, self.symbolic.widths[self.symbolic.last])
        if t.base != self.symbolic.last:
            raise InputError("the output is computed before the last nonlinearity (a skip connection), which a "
                             "layered net cannot hold", path=self.label, file=g.path)
        self.output = out
        return build_model(self.symbolic, t, layered=self.convolutional)

    def _check_shape(self, name, shape):
        inferred = self.g.inferred_shape(name)
        if inferred is None:
            return
        if len(inferred) != len(shape) or any(i is not None and i != s for i, s in zip(inferred, shape)):
            self.fail(f"symrel computes the shape {tuple(shape)} for {name!r}, ONNX shape inference "
                      f"{tuple('?' if i is None else i for i in inferred)}")

    @classmethod
    def supported(cls) -> list[str]:
        return sorted(name[3:] for name in dir(cls) if name.startswith("op_"))

    # -- helpers
    def fail(self, message):
        raise InputError(message, path=self.label, file=self.g.path)

    def var(self, op, args, shape, **p) -> Var:
        return Var(self.program.emit(op, [a.id for a in args], tuple(shape), self.label, **p), tuple(shape))

    def attrs(self) -> dict:
        return self.g.attrs(self.node)

    def arg(self, i, *, required=True):
        name = self.node.input[i] if i < len(self.node.input) else ""
        if not name:
            if required:
                self.fail(f"expected input {i}")
            return None
        if name not in self.values:
            self.fail(f"input {name!r} is not computed before this node (or is an output symrel does not read)")
        return self.values[name]

    def const_arg(self, i, what, *, required=True) -> Const | None:
        v = self.arg(i, required=required)
        if isinstance(v, Var):
            self.fail(f"expected input {i} ({what}) to be a constant, got a tensor that depends on the input")
        return v

    def ints_arg(self, i, what, *, required=True):
        c = self.const_arg(i, what, required=required)
        if c is None:
            return None
        if c.dtype not in ("int64", "int32"):
            self.fail(f"expected input {i} ({what}) of integers, got {c.dtype}")
        return c.ints()

    def need_float(self, c: Const):
        if not c.is_float:
            self.fail(f"expected float tensors, got a constant of type {c.dtype} (integer arithmetic is not read)")

    def index(self, v, idx, fill=ZERO):
        """The tensor ``out[...] = v.flat[idx[...]]`` (``-1``: ``fill``)."""
        self._check_size(idx.shape)
        if isinstance(v, Const):
            return v.gather(idx, fill)
        return self.var("gather", (v,), idx.shape, src=idx.reshape(-1).astype(np.int64), fill=fill)

    @staticmethod
    def positions(v):
        return np.arange(prod(v.shape), dtype=np.int64).reshape(v.shape)

    def broadcast(self, v, shape):
        shape = tuple(shape)
        if tuple(v.shape) == shape:
            return v
        return self.index(v, np.broadcast_to(self.positions(v), shape))

    def common_shape(self, *vs):
        try:
            shape = tuple(np.broadcast_shapes(*[tuple(v.shape) for v in vs]))
        except ValueError:
            self.fail(f"operand shapes {', '.join(str(tuple(v.shape)) for v in vs)} do not broadcast")
        self._check_size(shape)
        return shape

    def _check_size(self, shape):
        if prod(shape) > TENSOR_LIMIT:
            self.fail(f"a tensor of shape {tuple(shape)} has {prod(shape)} entries, beyond the limit of {TENSOR_LIMIT} "
                      "(the importer's size limit)")

    def full(self, value, shape, dtype) -> Const:
        return Const.of(np.full(shape, value, dtype=object), dtype)

    # -- arithmetic on values (constants folded exactly, with the runtime's error bound)
    def add(self, a, b):
        shape = self.common_shape(a, b)
        a, b = self.broadcast(a, shape), self.broadcast(b, shape)
        if isinstance(a, Const) and isinstance(b, Const):
            self.need_float(a), self.need_float(b)
            _, err = self.bounds.add(a.mag(), a.errs(), b.mag(), b.errs())
            return Const.of(a.a + b.a, a.dtype, err)
        if isinstance(a, Const):
            a, b = b, a
        if isinstance(b, Const):
            self.need_float(b)
            return self.var("add", (a,), shape, c=b)
        return self.var("sum", (a, b), shape)

    def negate(self, v):
        if isinstance(v, Const):
            return Const(-v.a, -v.f, v.dtype, v.err)
        return self.var("mul", (v,), v.shape, c=self.full(-ONE, v.shape, "float32"))

    def mul(self, a, b):
        shape = self.common_shape(a, b)
        a, b = self.broadcast(a, shape), self.broadcast(b, shape)
        if isinstance(a, Var) and isinstance(b, Var):
            self.fail("a product of two tensors that depend on the input is not affine: not read")
        if isinstance(a, Const) and isinstance(b, Const):
            self.need_float(a), self.need_float(b)
            _, err = self.bounds.scale(a.mag(), a.errs(), np.abs(b.f), b.err)
            return Const.of(a.a * b.a, a.dtype, err)
        if isinstance(a, Const):
            a, b = b, a
        self.need_float(b)
        return self.var("mul", (a,), shape, c=b)

    def div(self, a, b):
        shape = self.common_shape(a, b)
        a, b = self.broadcast(a, shape), self.broadcast(b, shape)
        if isinstance(b, Var):
            self.fail("a division by a tensor that depends on the input is not affine: not read")
        self.need_float(b)
        zero = np.flatnonzero(b.a.reshape(-1) == ZERO)
        if zero.size:
            self.fail(f"division by zero (entry {[int(i) for i in np.unravel_index(int(zero[0]), b.shape)]} of the "
                      "divisor)")
        if isinstance(a, Const):
            self.need_float(a)
            _, err = self.bounds.divide(a.mag(), a.errs(), np.abs(b.f), b.err)
            return Const.of(a.a / b.a, a.dtype, err)
        return self.var("div", (a,), shape, c=b)

    def linear(self, x, out_idx, in_idx, w: Const, b: Const | None, shape, terms):
        """``y_o = b_o + sum w_t x_{in_t}`` over triples sorted by ``out_idx`` (``w`` gathered per
        triple); zero weights known exactly (no float error) are dropped."""
        wa = w.a.reshape(-1)
        keep = w.f.reshape(-1) != 0  # f is the nearest float to the exact weight: nonzero means nonzero
        maybe = np.flatnonzero(~keep)
        keep[maybe] = wa[maybe] != ZERO
        if w.err is not None:
            keep |= w.err.reshape(-1) > 0
        if not keep.all():
            out_idx, in_idx = out_idx[keep], in_idx[keep]
            w = Const(wa[keep], w.f.reshape(-1)[keep], w.dtype, None if w.err is None else w.err.reshape(-1)[keep])
        if isinstance(x, Const):
            self.need_float(x)
            n_out = prod(shape)
            xa = x.a.reshape(-1)
            start = np.full(n_out, ZERO, dtype=object) if b is None else b.a.reshape(-1).copy()
            prods = w.a.reshape(-1) * xa[in_idx]
            if prods.size:
                starts = np.flatnonzero(np.r_[True, out_idx[1:] != out_idx[:-1]])
                start[out_idx[starts]] = start[out_idx[starts]] + np.add.reduceat(prods, starts)
            _, err = self.bounds.linear(x.mag().reshape(-1), x.errs().reshape(-1), out_idx, in_idx,
                                        np.abs(w.f).reshape(-1), None if w.err is None else w.err.reshape(-1),
                                        None if b is None else np.abs(b.f).reshape(-1),
                                        None if b is None or b.err is None else b.err.reshape(-1), n_out, terms)
            return Const.of(start.reshape(shape), x.dtype, err.reshape(shape))
        return self.var("linear", (x,), shape, out_idx=out_idx, in_idx=in_idx, w=w, b=b, terms=terms)

    def groups_max(self, x, ptr, members, shape):
        if isinstance(x, Const):
            a = np.maximum.reduceat(x.a.reshape(-1)[members], ptr[:-1])
            err = None if x.err is None else np.maximum.reduceat(x.err.reshape(-1)[members], ptr[:-1]).reshape(shape)
            return Const.of(a.reshape(shape), x.dtype, err)
        return self.var("max", (x,), shape, ptr=ptr, members=members)
