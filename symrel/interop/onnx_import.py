"""ONNX graphs read exactly into symrel models.

Every float initializer becomes exact dyadic rationals bit for bit
(:func:`symrel.interop.floats.exact_array`); the graph is then executed
*symbolically*, one node at a time, tracking what each tensor is as a function
of the input:

* MLP and maxout graphs (``Gemm``, ``MatMul``, ``Add``, ``Sub``, ``Mul``,
  ``Relu``, ``Max``, ``ReduceMax``, ``Transpose``, ``Reshape``, ``Flatten``,
  ``Identity``): a tensor is an affine function ``A h + c`` of the output h of the
  last nonlinearity (:class:`_AffineInLayer`, A an exact array over the tensor's per-sample
  shape). ``Relu`` closes a ReLU layer, ``Max`` of several affine tensors or
  ``ReduceMax`` over an axis closes a maxout layer (the pieces are the maximised
  entries). The result is a ReLU net, or a maxout net when any maxout appears.
* attention graphs (``Softmax`` or ``Hardmax`` present): see
  :mod:`symrel.interop.onnx_attention`.

An operation outside these forms is refused with an error naming the node.
The report of an import (:class:`ImportedModel`) records that the weights came
from floats, and of which types.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError
from ..exact import Q, from_rationals
from ..models import DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from .onnx_graph import Constant, GraphTracer, OnnxGraph, exact_identity, exact_zeros, load_onnx_proto


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


# -- tensors --------------------------------------------------------------------------------------
class _AffineInLayer:
    """``A h + c`` per sample: ``A`` has shape ``feat + (n_base,)`` (``None``:
    the identity, feat flat), ``c`` has shape ``feat``; ``base`` numbers the
    nonlinearity whose output h is."""

    def __init__(self, base, A, c, feat):
        self.base, self.A, self.c, self.feat = base, A, c, tuple(feat)

    def coef(self, np):
        if self.A is None:
            n = self.c.size
            return exact_identity(np, n).reshape(self.feat + (n,))
        return self.A


def read_onnx(path) -> ImportedModel:
    """Import an ONNX file exactly (see the module docstring)."""
    proto = load_onnx_proto(path)
    graph = OnnxGraph(proto, str(path))
    if any(n.op_type in ("Softmax", "Hardmax") for n in graph.nodes):
        from .onnx_attention import import_transformer

        model, notes = import_transformer(graph)
    else:
        model, notes = MLPTracer(graph).run()
    types = sorted(graph.types)
    return ImportedModel(model, str(path), "onnx", types, notes)


# -- MLP / maxout tracing -------------------------------------------------------------------------
class MLPTracer(GraphTracer):
    """A tensor is ``A h + c`` (:class:`_AffineInLayer`) of the output h of the last nonlinearity,
    or a constant; ``Relu``, ``Max`` and ``ReduceMax`` close a layer."""

    graph_kind = "an MLP/maxout graph"

    def __init__(self, graph: OnnxGraph):
        super().__init__(graph)
        self.layers: list = []  # ("relu", A, c) or ("max", [(W, b) per unit])
        self.base_size = [int(self.np.prod(graph.input_feat))]  # flat size of each layer's output h
        self.values[graph.input.name] = _AffineInLayer(0, None, exact_zeros(self.np, graph.input_feat), graph.input_feat)
        self.notes: list[str] = []

    def run(self):
        out = self.trace()
        if not isinstance(out, _AffineInLayer):
            raise InputError("expected the graph output to depend on the input", path=self.g.output, file=self.g.path)
        return self._build(out), self.notes

    # -- helpers
    def lin(self, node, i) -> _AffineInLayer:
        v = self.get(node, i)
        if not isinstance(v, _AffineInLayer):
            raise self.g.error(node, f"expected input {i} to depend on the network input")
        return v

    def per_sample(self, node, a, rank):
        """A constant broadcast against a tensor with ``rank`` per-sample axes:
        a leading batch axis of size 1 is dropped."""
        if a.ndim == rank + 1:
            if a.shape[0] != 1:
                raise self.g.error(node, f"expected a constant with batch axis 1, got shape {a.shape}")
            a = a[0]
        if a.ndim > rank:
            raise self.g.error(node, f"constant of shape {a.shape} does not broadcast against the features")
        return a

    def add_const(self, node, x: _AffineInLayer, a, sign=1):
        a = self.per_sample(node, a, len(x.feat))
        c = x.c + sign * a
        if c.shape != x.c.shape:
            A = self.np.broadcast_to(x.coef(self.np), c.shape + (self.base_size[x.base],)).copy()
            return _AffineInLayer(x.base, A, c, c.shape)
        return _AffineInLayer(x.base, x.A, c, x.feat)

    def matmul(self, node, x: _AffineInLayer, M):
        if M.ndim != 2 or not x.feat or x.feat[-1] != M.shape[0]:
            raise self.g.error(node, f"expected a matrix of shape ({x.feat[-1] if x.feat else '?'}, k), got {M.shape}")
        np = self.np
        Mt = np.ascontiguousarray(M.T)
        if x.A is None and len(x.feat) == 1:
            A = Mt.copy()
        else:
            A = np.matmul(Mt, x.coef(np))
        c = np.matmul(x.c, M) if x.c.size else x.c
        feat = x.feat[:-1] + (M.shape[1],)
        return _AffineInLayer(x.base, A, np.asarray(c, dtype=object).reshape(feat), feat)

    def new_base(self, feat) -> _AffineInLayer:
        n = int(self.np.prod(feat)) if feat else 1
        self.base_size.append(n)
        return _AffineInLayer(len(self.base_size) - 1, None, exact_zeros(self.np, feat), feat)

    def flat(self, x: _AffineInLayer):
        n = self.base_size[x.base]
        size = int(self.np.prod(x.feat)) if x.feat else 1
        return x.coef(self.np).reshape(size, n), x.c.reshape(size)

    # -- linear operations
    op_Dropout = GraphTracer.op_Identity

    def op_MatMul(self, node):
        if isinstance(self.get(node, 0), Constant):  # M @ x for a vector x: x @ M^T
            x = self.lin(node, 1)
            M = self.const(node, 0)
            if len(x.feat) != 1 or M.ndim != 2:
                raise self.g.error(node, f"expected a matrix times a vector, got shapes {M.shape} and {x.feat}")
            return self.matmul(node, x, self.np.ascontiguousarray(M.T))
        return self.matmul(node, self.lin(node, 0), self.const(node, 1))

    def op_Add(self, node):
        a, b = self.get(node, 0), self.get(node, 1)
        if isinstance(a, Constant) and isinstance(b, _AffineInLayer):
            a, b = b, a
        if isinstance(a, _AffineInLayer) and isinstance(b, Constant):
            return self.add_const(node, a, b.a)
        if isinstance(a, _AffineInLayer) and isinstance(b, _AffineInLayer) and a.base == b.base and a.feat == b.feat:
            return _AffineInLayer(a.base, a.coef(self.np) + b.coef(self.np), a.c + b.c, a.feat)
        if isinstance(a, Constant) and isinstance(b, Constant):
            return Constant(a.a + b.a)
        raise self.g.error(node, "expected an addition of a constant, or of two tensors affine in the same layer")

    def op_Sub(self, node):
        a, b = self.get(node, 0), self.get(node, 1)
        if isinstance(a, _AffineInLayer) and isinstance(b, Constant):
            return self.add_const(node, a, b.a, sign=-1)
        if isinstance(a, Constant) and isinstance(b, Constant):
            return Constant(a.a - b.a)
        raise self.g.error(node, "expected a tensor minus a constant")

    def op_Mul(self, node):
        a, b = self.get(node, 0), self.get(node, 1)
        if isinstance(a, Constant) and isinstance(b, _AffineInLayer):
            a, b = b, a
        if not (isinstance(a, _AffineInLayer) and isinstance(b, Constant)):
            raise self.g.error(node, "expected a tensor times a constant")
        s = self.per_sample(node, b.a, len(a.feat))
        c = a.c * s
        A = a.coef(self.np) * s[..., None] if s.ndim else a.coef(self.np) * s
        return _AffineInLayer(a.base, A, c, c.shape)

    def op_Gemm(self, node):
        at = self.g.attrs(node)
        x = self.lin(node, 0)
        if at.get("transA", 0):
            raise self.g.error(node, "transA=1 on the input is not supported")
        B = self.const(node, 1)
        if at.get("transB", 0):
            B = B.T
        alpha = Q(*float(at.get("alpha", 1.0)).as_integer_ratio())
        beta = Q(*float(at.get("beta", 1.0)).as_integer_ratio())
        y = self.matmul(node, x, B * alpha if alpha != 1 else B)
        if len(node.input) > 2 and node.input[2]:
            y = self.add_const(node, y, self.const(node, 2) * beta)
        return y

    def op_Flatten(self, node):
        x = self.lin(node, 0)
        if self.g.attrs(node).get("axis", 1) != 1:
            raise self.g.error(node, "expected Flatten with axis 1")
        return self._reshape(x, (int(self.np.prod(x.feat)),))

    def op_Reshape(self, node):
        x = self.lin(node, 0)
        shape = [int(v) for v in self.const(node, 1).reshape(-1)]
        if not shape or shape[0] not in (0, -1) and shape[0] < 1:
            raise self.g.error(node, f"expected a shape keeping the batch axis first, got {shape}")
        feat = []
        for i, s in enumerate(shape[1:]):
            feat.append(x.feat[i] if s == 0 else s)
        total = int(self.np.prod(x.feat)) if x.feat else 1
        if -1 in feat:
            known = int(self.np.prod([f for f in feat if f != -1])) if len(feat) > 1 else 1
            feat[feat.index(-1)] = total // known
        if int(self.np.prod(feat)) != total:
            raise self.g.error(node, f"cannot reshape features {x.feat} to {tuple(feat)}")
        return self._reshape(x, tuple(feat))

    def _reshape(self, x: _AffineInLayer, feat):
        if x.A is None and len(feat) == 1 and len(x.feat) == 1:
            return _AffineInLayer(x.base, None, x.c.reshape(feat), feat)
        A = x.coef(self.np).reshape(tuple(feat) + (self.base_size[x.base],))
        return _AffineInLayer(x.base, A, x.c.reshape(feat), feat)

    def op_Transpose(self, node):
        x = self.lin(node, 0)
        perm = list(self.g.attrs(node).get("perm", range(len(x.feat), -1, -1)))  # ONNX default: reverse all axes
        if perm[0] != 0:
            raise self.g.error(node, "expected a transpose that keeps the batch axis first")
        p = [q - 1 for q in perm[1:]]
        A = x.coef(self.np).transpose(p + [len(p)])
        c = x.c.transpose(p)
        return _AffineInLayer(x.base, A, c, c.shape)

    # -- nonlinear operations close a layer
    def op_Relu(self, node):
        x = self.lin(node, 0)
        A, c = self.flat(x)
        self.layers.append(("relu", x.base, A, c))
        return self.new_base(x.feat)

    def op_Max(self, node):
        args = [self.get(node, i) for i in range(len(node.input))]
        lins = [a for a in args if isinstance(a, _AffineInLayer)]
        if not lins or len({a.base for a in lins}) != 1:
            raise self.g.error(node, "expected a Max of tensors affine in the same layer (and constants)")
        base = lins[0].base
        np = self.np
        shape = np.broadcast_shapes(*[a.feat if isinstance(a, _AffineInLayer) else self.per_sample(node, a.a, len(lins[0].feat)).shape
                                      for a in args])
        n = self.base_size[base]
        pieces = []
        for a in args:
            if isinstance(a, _AffineInLayer):
                A = np.broadcast_to(a.coef(np), shape + (n,)).reshape(-1, n)
                c = np.broadcast_to(a.c, shape).reshape(-1)
            else:
                A = exact_zeros(np, (int(np.prod(shape)) if shape else 1, n))
                c = np.broadcast_to(self.per_sample(node, a.a, len(shape)), shape).reshape(-1)
            pieces.append((A, c))
        units = [([P[0][u] for P in pieces], [P[1][u] for P in pieces]) for u in range(int(np.prod(shape)) if shape else 1)]
        self.layers.append(("max", base, units))
        return self.new_base(shape)

    def op_ReduceMax(self, node):
        x = self.lin(node, 0)
        at = self.g.attrs(node)
        axes = at.get("axes")
        if axes is None and len(node.input) > 1 and node.input[1]:
            axes = [int(v) for v in self.const(node, 1).reshape(-1)]
        rank = len(x.feat) + 1
        if not axes or len(axes) != 1:
            raise self.g.error(node, "expected ReduceMax over exactly one axis")
        ax = axes[0] % rank
        if ax == 0:
            raise self.g.error(node, "expected ReduceMax over a feature axis, not the batch")
        np = self.np
        n = self.base_size[x.base]
        A = np.moveaxis(x.coef(np), ax - 1, -2)
        c = np.moveaxis(x.c, ax - 1, -1)
        k = c.shape[-1]
        keep = c.shape[:-1]
        A = A.reshape(-1, k, n)
        c = c.reshape(-1, k)
        units = [(list(A[u]), list(c[u])) for u in range(A.shape[0])]
        self.layers.append(("max", x.base, units))
        feat = list(x.feat)
        if at.get("keepdims", 1):
            feat[ax - 1] = 1
        else:
            del feat[ax - 1]
        return self.new_base(tuple(feat))

    # -- assembling the model
    def _build(self, out: _AffineInLayer):
        d = self.base_size[0]
        if out.base != len(self.layers):
            raise InputError("expected the output to depend on the last layer", path=self.g.output, file=self.g.path)
        for k, L in enumerate(self.layers):
            if L[1] != k:
                raise InputError(f"layer {k + 1} skips a layer (a residual connection): not an MLP",
                                 path=self.g.output, file=self.g.path)
        A, c = self.flat(out)
        identity = out.A is None and not any(v for v in c)
        if all(L[0] == "relu" for L in self.layers):
            layers, width = [], d
            for k, (_, _, W, b) in enumerate(self.layers):
                layers.append(_dense(W, b, "relu", width, k))
                width = W.shape[0]
            if not identity or not layers:
                layers.append(_dense(A, c, "none", width, len(layers)))
            return ReLUNet(d, layers)
        mlayers, width = [], d
        for k, L in enumerate(self.layers):
            if L[0] == "relu":
                W, b = L[2], L[3]
                zero = [Q(0)] * width
                units = [MaxoutUnit(from_rationals([list(W[i]), zero], (2, width)), [b[i], Q(0)], input_dim=width)
                         for i in range(W.shape[0])]
            else:
                units = [_unit(Ws, bs, width) for Ws, bs in L[2]]
            mlayers.append(MaxoutLayer(units, path=f"layers[{k}]"))
            width = len(units)
        from ..models import AffineMap

        readout = None if identity else AffineMap(from_rationals([list(r) for r in A], A.shape), list(c), input_dim=width)
        return MaxoutNet(d, mlayers, readout)


def _unit(Ws, bs, width) -> MaxoutUnit:
    """A maxout unit from its pieces, repeated pieces dropped (they do not change
    the max; exporters pad units of lower rank with them)."""
    seen, rows_, bias = set(), [], []
    for w, b in zip(Ws, bs):
        key = (tuple(w), b)
        if key not in seen:
            seen.add(key)
            rows_.append(list(w))
            bias.append(b)
    return MaxoutUnit(from_rationals(rows_, (len(rows_), width)), bias, input_dim=width)


def _dense(W, b, act, width, k):
    return DenseLayer(from_rationals([list(r) for r in W], (W.shape[0], width)),
                      from_rationals([[v] for v in b], (len(b), 1)), act, input_dim=width, path=f"layers[{k}]")
