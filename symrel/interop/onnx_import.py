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

from dataclasses import dataclass, field
from math import isqrt, prod

from ..errors import InputError
from ..exact import Q, denominator, numerator
from .onnx_graph import FLOAT_TYPES, OnnxGraph, load_onnx_proto, node_label
from .onnx_ir import Program
from .onnx_layers import SymbolicRun, build_model
from .onnx_linear import (GeometryError, average_pool_triples, conv_triples, matmul_triples, max_pool_groups,
                          reduce_groups)
from .onnx_values import ONE, ZERO, Const, FloatBounds, np, object_array, to_floats


#: the most entries a tensor of the graph may have
TENSOR_LIMIT = 10_000_000


@dataclass
class ImportedModel:
    """A model read from a file, with where it came from and how its numbers were read."""

    model: object
    source: str
    format: str
    number_types: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def provenance(self) -> dict:
        """The record written beside the model (``"provenance"`` key of the JSON file)."""
        reads = {
            "onnx": "float tensors read exactly as dyadic rationals, bit for bit",
            "nnet": "decimal strings read exactly as decimals",
            "torch": "float tensors read exactly as dyadic rationals, bit for bit",
        }
        return {"source": self.source, "format": self.format, "from_floats": self.format != "nnet",
                "number_types": self.number_types, "numbers": reads.get(self.format, ""), "notes": self.notes}


def read_onnx(path, *, check_runtime: bool = True) -> ImportedModel:
    """Import an ONNX file exactly (see the module docstring). ``check_runtime``: compare the
    model with onnxruntime (when installed) and refuse it on a disagreement."""
    proto = load_onnx_proto(path)
    graph = OnnxGraph(proto, str(path))
    if any(n.op_type in ("Softmax", "Hardmax") for n in graph.nodes):
        from .onnx_attention import import_transformer

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


@dataclass(frozen=True)
class Var:
    """An input-dependent tensor: the id of its value in the program, and its shape."""

    id: int
    shape: tuple

    @property
    def size(self) -> int:
        return prod(self.shape)


def _unit_roundoff_format(graph) -> str:
    """The float format of the graph with the largest unit roundoff (its arithmetic's)."""
    names = set(graph.types) | {FLOAT_TYPES.get(graph.input.type.tensor_type.elem_type, "float32")}
    order = ["bfloat16", "float16", "float32", "float64"]
    return next((n for n in order if n in names), "float32")


def _exact_sqrt(q):
    """The rational square root of ``q >= 0`` when there is one, else None."""
    p, d = int(numerator(q)), int(denominator(q))
    rp, rd = isqrt(p), isqrt(d)
    return Q(rp, rd) if rp * rp == p and rd * rd == d else None


class ExactTracer:
    """The symbolic execution of a graph (module docstring): ``values`` maps a tensor name to
    a :class:`~symrel.interop.onnx_values.Const` or a :class:`Var`; the steps go to
    ``program`` and are read into a net by ``symbolic`` as they come."""

    def __init__(self, graph: OnnxGraph):
        self.g = graph
        self.program = Program()
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

    # -- operations: identity, arithmetic
    def op_Identity(self, node):
        return self.arg(0)

    def op_Dropout(self, node):
        training = self.const_arg(2, "training_mode", required=False)
        if training is not None and any(v != ZERO for v in training.a.reshape(-1)):
            self.fail("Dropout in training mode is random: not read")
        return self.arg(0)

    def op_Add(self, node):
        return self.add(self.arg(0), self.arg(1))

    def op_Sub(self, node):
        return self.add(self.arg(0), self.negate(self.arg(1)))

    def op_Mul(self, node):
        return self.mul(self.arg(0), self.arg(1))

    def op_Div(self, node):
        return self.div(self.arg(0), self.arg(1))

    def op_Relu(self, node):
        x = self.arg(0)
        if isinstance(x, Const):
            self.need_float(x)
            return Const(np.where(x.a > ZERO, x.a, ZERO), np.maximum(x.f, 0), x.dtype, x.err)
        return self.var("relu", (x,), x.shape)

    # -- products
    def op_MatMul(self, node):
        return self.matmul(self.arg(0), self.arg(1))[0]

    def matmul(self, a, b, *, scale=None, bias=None, extra_terms=0):
        if isinstance(a, Var) and isinstance(b, Var):
            self.fail("a product of two tensors that depend on the input is not affine: not read")
        out_idx, left, right, shape, k = matmul_triples(a.shape, b.shape)
        x, xi, w, wi = (a, left, b, right) if isinstance(a, Var) or isinstance(b, Const) else (b, right, a, left)
        self.need_float(w)
        wt = w.gather(wi)
        if scale is not None and scale != ONE:
            wt = Const(wt.a * scale, wt.f * float(scale), wt.dtype, None if wt.err is None else wt.err * abs(float(scale)))
        return self.linear(x, out_idx, xi, wt, bias, shape, k + extra_terms), shape

    def op_Gemm(self, node):
        at = self.attrs()
        a, b = self.arg(0), self.arg(1)
        if len(a.shape) != 2 or len(b.shape) != 2:
            self.fail(f"expected matrices, got shapes {a.shape} and {b.shape}")
        if at.get("transA", 0):
            a = self.index(a, self.positions(a).T)
        if at.get("transB", 0):
            b = self.index(b, self.positions(b).T)
        alpha = Q(*float(at.get("alpha", 1.0)).as_integer_ratio())
        beta = Q(*float(at.get("beta", 1.0)).as_integer_ratio())
        c = self.arg(2, required=False)
        shape = (a.shape[0], b.shape[1])
        bias = None
        if isinstance(c, Const):
            self.need_float(c)
            if not self._broadcasts(shape, c.shape) or tuple(np.broadcast_shapes(shape, c.shape)) != shape:
                self.fail(f"expected C broadcastable to {shape}, got {c.shape}")
            cb = self.broadcast(c, shape)
            bias = Const(cb.a.reshape(-1) * beta, cb.f.reshape(-1) * float(beta), cb.dtype,
                         None if cb.err is None else cb.err.reshape(-1) * abs(float(beta)))
        y, _ = self.matmul(a, b, scale=alpha, bias=bias, extra_terms=3)
        if isinstance(c, Var):
            if not self._broadcasts(shape, c.shape) or tuple(np.broadcast_shapes(shape, c.shape)) != shape:
                self.fail(f"expected C broadcastable to {shape}, got {c.shape}")
            y = self.add(y, self.mul(c, self.full(beta, (), "float32")))
        return y

    @staticmethod
    def _broadcasts(*shapes) -> bool:
        try:
            np.broadcast_shapes(*shapes)
            return True
        except ValueError:
            return False

    # -- shapes
    def op_Reshape(self, node):
        x = self.arg(0)
        spec = self.ints_arg(1, "shape")
        allowzero = int(self.attrs().get("allowzero", 0))
        target, infer = [], None
        for i, s in enumerate(spec):
            if s == 0 and not allowzero:
                if i >= len(x.shape):
                    self.fail(f"shape entry {i} is 0 (copy) but the input has rank {len(x.shape)}")
                s = x.shape[i]
            if s == -1:
                if infer is not None:
                    self.fail(f"expected at most one -1 in the shape, got {spec}")
                infer = i
                s = 1
            elif s <= 0:
                self.fail(f"expected a shape of positive sizes (0 copies, -1 infers), got {spec}")
            target.append(s)
        size = prod(x.shape)
        if infer is not None:
            if size % prod(target):
                self.fail(f"cannot reshape {x.shape} to {spec}")
            target[infer] = size // prod(target)
        if prod(target) != size:
            self.fail(f"cannot reshape {x.shape} ({size} entries) to {tuple(target)}")
        return self.index(x, self.positions(x).reshape(target))

    def op_Flatten(self, node):
        x = self.arg(0)
        r = len(x.shape)
        axis = int(self.attrs().get("axis", 1))
        if not -r <= axis <= r:
            self.fail(f"expected an axis in [{-r}, {r}], got {axis}")
        if axis < 0:
            axis += r
        shape = (prod(x.shape[:axis]), prod(x.shape[axis:]))
        return self.index(x, self.positions(x).reshape(shape))

    def op_Transpose(self, node):
        x = self.arg(0)
        r = len(x.shape)
        perm = [int(p) for p in self.attrs().get("perm", range(r - 1, -1, -1))]
        if sorted(perm) != list(range(r)):
            self.fail(f"expected perm a permutation of 0..{r - 1}, got {perm}")
        return self.index(x, np.transpose(self.positions(x), perm))

    def _axes(self, what, rank):
        """The axes of Squeeze, Unsqueeze, ReduceMax: the attribute before opset 13 (18 for
        ReduceMax), the optional input 1 after; normalised into ``0..rank-1``."""
        new = self.g.opset >= (18 if what == "ReduceMax" else 13)
        axes = self.ints_arg(1, "axes", required=False) if new else self.attrs().get("axes")
        if axes is None:
            return None
        axes = [int(a) for a in axes]
        if any(not -rank <= a < rank for a in axes):
            self.fail(f"expected axes in [{-rank}, {rank - 1}], got {axes}")
        norm = [a % rank for a in axes]
        if len(set(norm)) != len(norm):
            self.fail(f"expected distinct axes, got {axes}")
        return norm

    def op_Squeeze(self, node):
        x = self.arg(0)
        axes = self._axes("Squeeze", len(x.shape))
        if axes is None:
            axes = [i for i, s in enumerate(x.shape) if s == 1]
        if any(x.shape[a] != 1 for a in axes):
            self.fail(f"expected axes of size 1 to squeeze, got axes {axes} of shape {x.shape}")
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        return self.index(x, self.positions(x).reshape(shape))

    def op_Unsqueeze(self, node):
        x = self.arg(0)
        axes = self._axes("Unsqueeze", len(x.shape) + len(self._raw_axes()))
        if not axes:
            self.fail("expected axes to unsqueeze")
        shape, it = [], iter(x.shape)
        for i in range(len(x.shape) + len(axes)):
            shape.append(1 if i in axes else next(it))
        return self.index(x, self.positions(x).reshape(shape))

    def _raw_axes(self):
        axes = self.ints_arg(1, "axes", required=False) if self.g.opset >= 13 else self.attrs().get("axes")
        return list(axes or [])

    # -- maxima
    def op_Max(self, node):
        args = [self.arg(i) for i in range(len(node.input)) if node.input[i]]
        if not args:
            self.fail("expected at least one input")
        shape = self.common_shape(*args)
        args = [self.broadcast(a, shape) for a in args]
        if len(args) == 1:
            return args[0]
        n = prod(shape)
        if all(isinstance(a, Const) for a in args):
            for a in args:
                self.need_float(a)
            stacked = Const(np.stack([a.a for a in args]), np.stack([a.f for a in args]), args[0].dtype,
                            None if all(a.err is None for a in args) else np.stack([a.errs() for a in args]))
        else:
            parts = [a if isinstance(a, Var) else self.var("const", (), a.shape, c=a) for a in args]
            stacked = self.var("concat", parts, (len(args) * n,))
        members = (np.arange(len(args), dtype=np.int64) * n + np.arange(n, dtype=np.int64)[:, None]).reshape(-1)
        ptr = np.arange(0, len(args) * n + 1, len(args), dtype=np.int64)
        return self.groups_max(stacked, ptr, members, shape)

    def op_ReduceMax(self, node):
        x = self.arg(0)
        at = self.attrs()
        axes = self._axes("ReduceMax", len(x.shape))
        if not axes:
            if int(at.get("noop_with_empty_axes", 0)):
                return x
            axes = list(range(len(x.shape)))
        ptr, members, shape = reduce_groups(x.shape, axes, int(at.get("keepdims", 1)))
        return self.groups_max(x, ptr, members, shape)

    # -- convolutional operations
    def op_Conv(self, node):
        x = self.arg(0)
        w = self.const_arg(1, "the weights")
        b = self.const_arg(2, "the bias", required=False)
        self.need_float(w)
        out_idx, in_idx, w_idx, channel, shape, terms = conv_triples(x.shape, w.shape, self.attrs())
        bias = None
        if b is not None:
            self.need_float(b)
            if b.shape != (w.shape[0],):
                self.fail(f"expected a bias of shape ({w.shape[0]},), got {b.shape}")
            bias = b.gather(channel)
        self.convolutional |= isinstance(x, Var)
        return self.linear(x, out_idx, in_idx, w.gather(w_idx), bias, shape, terms)

    def op_AveragePool(self, node):
        x = self.arg(0)
        out_idx, in_idx, divisor, shape, terms = average_pool_triples(x.shape, self.attrs(), self.g.opset)
        distinct, where = np.unique(divisor[out_idx], return_inverse=True)
        inverses = object_array([Q(1, int(d)) for d in distinct.tolist()])
        w = Const(inverses[where.reshape(-1)], 1.0 / distinct.astype(np.float64)[where.reshape(-1)], "float32")
        self.convolutional |= isinstance(x, Var)
        return self.linear(x, out_idx, in_idx, w, None, shape, terms)

    def op_MaxPool(self, node):
        x = self.arg(0)
        ptr, members, shape = max_pool_groups(x.shape, self.attrs(), self.g.opset)
        self.convolutional |= isinstance(x, Var)
        return self.groups_max(x, ptr, members, shape)

    def op_Pad(self, node):
        at = self.attrs()
        x = self.arg(0)
        mode = at.get("mode", "constant")
        if mode != "constant":
            self.fail(f"pad mode {mode!r} is not read (only 'constant')")
        r = len(x.shape)
        if self.g.opset < 11:
            pads, fill = [int(p) for p in at.get("pads", [])], Q(*float(at.get("value", 0.0)).as_integer_ratio())
            axes = list(range(r))
        else:
            pads = self.ints_arg(1, "pads")
            value = self.const_arg(2, "constant_value", required=False)
            fill = ZERO
            if value is not None:
                if value.size != 1:
                    self.fail(f"expected a scalar constant_value, got shape {value.shape}")
                fill = value.a.reshape(-1)[0]
            axes = self.ints_arg(3, "axes", required=False)
            axes = list(range(r)) if axes is None else [a % r if -r <= a < r else self.fail(f"axis {a} out of range")
                                                        for a in axes]
        if len(pads) != 2 * len(axes) or len(set(axes)) != len(axes):
            self.fail(f"expected 2 pads per padded axis ({len(axes)}), got {pads}")
        begin, end = [0] * r, [0] * r
        for j, a in enumerate(axes):
            begin[a], end[a] = pads[j], pads[len(axes) + j]
        shape = tuple(s + b + e for s, b, e in zip(x.shape, begin, end))
        if any(s <= 0 for s in shape):
            self.fail(f"padding {pads} leaves no entries of {x.shape}")
        self._check_size(shape)
        idx = np.zeros(shape, dtype=np.int64)
        valid = np.ones(shape, dtype=bool)
        for a in range(r):
            c = (np.arange(shape[a]) - begin[a]).reshape([-1 if j == a else 1 for j in range(r)])
            valid &= (c >= 0) & (c < x.shape[a])
            idx = idx * x.shape[a] + c
        return self.index(x, np.where(valid, idx, -1), fill)

    def op_BatchNormalization(self, node):
        at = self.attrs()
        if int(at.get("training_mode", 0)):
            self.fail("BatchNormalization in training mode is not read")
        if int(at.get("spatial", 1)) != 1:
            self.fail("BatchNormalization with spatial=0 is not read")
        x = self.arg(0)
        if len(x.shape) < 2:
            self.fail(f"expected an input (N, C, ...), got shape {x.shape}")
        C = x.shape[1]
        scale, bias, mean, var = (self.const_arg(i, what) for i, what in
                                  ((1, "scale"), (2, "B"), (3, "mean"), (4, "var")))
        for c in (scale, bias, mean, var):
            self.need_float(c)
            if c.shape != (C,):
                self.fail(f"expected parameters of shape ({C},), got {c.shape}")
        eps = Q(*float(at.get("epsilon", 1e-5)).as_integer_ratio())
        factors = []
        for c in range(C):
            v = var.a[c] + eps
            root = _exact_sqrt(v) if v > ZERO else None
            if root is None or root == ZERO:
                self.fail(f"scale / sqrt(var + epsilon) of channel {c} is not rational (var + epsilon = {v}): "
                          "not read exactly")
            factors.append(scale.a[c] / root)
        shape = (1, C) + (1,) * (len(x.shape) - 2)
        s = Const.of(object_array(factors).reshape(shape), scale.dtype)
        s.err = 5 * self.bounds.u * np.abs(s.f)  # the runtime computes the factor: a few roundings
        centred = self.add(x, self.negate(mean.reshape(shape)))
        return self.add(self.mul(centred, s), bias.reshape(shape))
