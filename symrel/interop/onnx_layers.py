"""The ONNX importer's program read symbolically: the operators of a net, then the net.

:class:`SymbolicRun` executes the steps of a :class:`~symrel.interop.onnx_ir.PrimitiveProgram` as
they are emitted, each input-dependent tensor an
:class:`~symrel.interop.onnx_affine.AffineTensor` over the output ``h`` of the last operator
recorded. Affine steps compose into the tensor (nothing is recorded); ``relu`` and ``max``
close a layer: the tensor they read is recorded as a sparse affine operator (unless it *is*
``h``, or, for a max, entries of ``h``), then the ReLU or the max over groups, and the result
is a fresh tensor over the new ``h``. The records are exactly the operators of a layered net
(:mod:`symrel.models.layered`); :func:`build_model` makes the net, as the densest kind that
fits: a ReLU net when the layers alternate affine and ReLU, a maxout net when maxima appear,
a layered net when convolutions or pooling appear (or a dense matrix would hold more than
:data:`DENSE_LIMIT` entries).

A tensor read by a nonlinearity must be affine in the *last* layer's output: a skip
connection around a nonlinearity is refused, naming the node. When composing a linear step
would make more than :data:`COMPOSE_LIMIT` entries, the tensor so far is recorded as an
affine operator of its own, and the step composes with that (a layered net only).
"""

from __future__ import annotations

from ..errors import InputError, LimitError
from ..exact import Q, from_rationals
from ..models import AffineMap, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from ..models.layered import LayeredNet, MaxGroups, Relu, SparseAffine
from .onnx_affine import AffineTensor, concat
from .onnx_values import ONE, ZERO, np

#: a dense layer with more entries than this makes the import a layered net
DENSE_LIMIT = 4_000_000
#: entries one composition may make before the tensor is recorded as an operator of its own
COMPOSE_LIMIT = 4_000_000


class SymbolicRun:
    """The symbolic reading of a program's steps (module docstring): ``values[id]`` is an
    :class:`AffineTensor`; ``ops`` the recorded operators, ``("affine", tensor)``,
    ``("relu", width)`` or ``("max", groups)``; ``widths[k]`` the width of the output of the
    first ``k`` operators (``widths[0]`` the input's)."""

    def __init__(self, file=None):
        self.file = file
        self.values: dict = {}
        self.ops: list = []
        self.widths: list = []
        self.materialised = False

    # -- helpers
    @property
    def last(self) -> int:
        return len(self.ops)

    def _error(self, step, message):
        return InputError(message, path=step.node, file=self.file)

    def _on(self, t: AffineTensor, base, step, what) -> AffineTensor:
        if t.entries == 0:
            return t.with_base(base, self.widths[base])
        if t.base != base:
            raise self._error(step, f"{what}: a tensor computed before the last nonlinearity is combined with one "
                                    "after it (a skip connection), which a layered net cannot hold")
        return t

    def _push(self, record, width):
        self.ops.append(record)
        self.widths.append(width)

    def _record_affine(self, t: AffineTensor):
        self._push(("affine", t), t.size)

    # -- the steps
    def __call__(self, step):
        a = [self.values[i] for i in step.args]
        p = step.p
        op = step.op
        if op == "input":
            n = int(np.prod(step.shape))
            self.widths.append(n)
            r = AffineTensor.identity(step.shape, 0)
        elif op == "gather":
            r = a[0].gather(p["src"], p["fill"])
        elif op == "mul":
            r = a[0].scale(p["c"].a)
        elif op == "div":
            r = a[0].scale(np.asarray([ONE / v for v in p["c"].a.reshape(-1)] or [ONE], dtype=object)[:p["c"].size])
        elif op == "add":
            r = a[0].shift(p["c"].a)
        elif op == "sum":
            base = next((t.base for t in a if t.entries), self.last)
            r = self._on(a[0], base, step, "a sum").plus(self._on(a[1], base, step, "a sum"))
        elif op == "linear":
            r = self._linear(a[0], step)
        elif op == "relu":
            t = self._on(a[0], self.last, step, "a ReLU")
            if not t.is_identity():
                self._record_affine(t)
            self._push(("relu", t.size), t.size)
            r = AffineTensor.identity(t.shape, self.last)
        elif op == "max":
            r = self._max(self._on(a[0], self.last, step, "a max"), p["ptr"], p["members"], step)
        elif op == "concat":
            base = next((t.base for t in a if t.entries), self.last)
            r = concat([self._on(t, base, step, "a concatenation") for t in a])
        elif op == "const":
            r = AffineTensor.constant(p["c"].a, step.shape, self.last, self.widths[self.last])
        else:  # pragma: no cover - the importer emits only the primitives above
            raise ValueError(f"unknown step {op}")
        if r.shape != step.shape:
            r = r.reshaped(step.shape)
        self.values[step.out] = r

    def _linear(self, t, step):
        p = step.p
        w, out_idx, in_idx = p["w"].a.reshape(-1), p["out_idx"], p["in_idx"]
        if p["w"].err is not None:  # zero weights kept for the runtime's error bound only
            live = w != ZERO
            w, out_idx, in_idx = w[live], out_idx[live], in_idx[live]
        b = None if p["b"] is None else p["b"].a.reshape(-1)
        # a tensor that reads h directly composes into exactly the step's own entries: no limit
        limit = None if t.unit and t.reads_directly() else COMPOSE_LIMIT
        try:
            return t.compose(out_idx, in_idx, w, b, step.shape, limit=limit)
        except LimitError as err:
            if t.base != self.last:
                raise self._error(step, f"{err.message}, and the tensor it reads cannot be made an operator of its own "
                                        "(it is computed before the last nonlinearity)") from None
        self._record_affine(t)
        self.materialised = True
        return AffineTensor.identity(t.shape, self.last).compose(out_idx, in_idx, w, b, step.shape)

    def _max(self, t, ptr, members, step):
        if t.reads_directly():  # pieces are entries of h: the max reads them there
            cols = t.cols
            groups = [list(dict.fromkeys(cols[members[ptr[g]:ptr[g + 1]]].tolist())) for g in range(ptr.size - 1)]
        else:
            self._record_affine(t)
            groups = [members[ptr[g]:ptr[g + 1]].tolist() for g in range(ptr.size - 1)]
        self._push(("max", groups), len(groups))
        return AffineTensor.identity(step.shape, self.last)


# -- the net ---------------------------------------------------------------------------------------
def build_model(run: SymbolicRun, out: AffineTensor, *, layered: bool = False):
    """The net the records and the output tensor ``out`` (over the last operator's output)
    make (module docstring); ``layered`` asks for a layered net whatever the layers."""
    ops = list(run.ops)
    # the output is the last operator's output itself only when no arithmetic came after it
    final = None if (out.unit and out.is_identity() and ops) else out
    kinds = {r[0] for r in ops}
    alternate = _alternates(ops)
    dense = alternate and _dense_entries(run, ops, final) <= DENSE_LIMIT
    if layered or run.materialised or not dense:
        return _layered(run, ops, final)
    if "max" in kinds:
        return _maxout(run, ops, final)
    return _relu(run, ops, final)


def _alternates(ops) -> bool:
    """Whether no two affine operators follow each other (each nonlinearity reads at most one)."""
    return all(not (a[0] == "affine" and b[0] == "affine") for a, b in zip(ops, ops[1:]))


def _dense_entries(run, ops, final) -> int:
    """The largest dense matrix the dense kinds would hold."""
    sizes = [run.widths[k] * r[1].size for k, r in enumerate(ops) if r[0] == "affine"]
    sizes += [run.widths[k] * run.widths[k] for k, r in enumerate(ops) if r[0] != "affine"]  # an identity at most
    if final is not None:
        sizes.append(final.size * final.width)
    return max(sizes, default=0)


def _layered(run, ops, final) -> LayeredNet:
    out = []
    for k, r in enumerate(ops):
        width = run.widths[k]
        if r[0] == "affine":
            out.append(SparseAffine(r[1].rows_as_pairs(), list(r[1].const), input_dim=width, path=f"ops[{k}]"))
        elif r[0] == "relu":
            out.append(Relu(r[1], path=f"ops[{k}]"))
        else:
            out.append(MaxGroups(r[1], input_dim=width, path=f"ops[{k}]"))
    if final is not None:
        out.append(SparseAffine(final.rows_as_pairs(), list(final.const), input_dim=run.widths[-1],
                                path=f"ops[{len(out)}]"))
    return LayeredNet(run.widths[0], out)


def _pairs(run, ops):
    """``(affine or None, nonlinearity, width read)`` per layer; None: the identity."""
    layers, pending = [], None
    for k, r in enumerate(ops):
        if r[0] == "affine":
            pending = (r[1], run.widths[k])
        else:
            layers.append((pending[0] if pending else None, r, pending[1] if pending else run.widths[k]))
            pending = None
    return layers


def _matrix(t: AffineTensor | None, width):
    """``(W rows, b)`` of an affine operator (None: the identity of ``width``)."""
    if t is None:
        W = np.full((width, width), ZERO, dtype=object)
        W[np.arange(width), np.arange(width)] = ONE
        return W.tolist(), [ZERO] * width
    return t.dense().tolist(), list(t.const)


def _relu(run, ops, final) -> ReLUNet:
    layers, width = [], run.widths[0]
    for k, (t, r, _) in enumerate(_pairs(run, ops)):
        W, b = _matrix(t, width)
        layers.append(DenseLayer(from_rationals(W, (len(W), width)), from_rationals([[v] for v in b], (len(b), 1)),
                                 "relu", input_dim=width, path=f"layers[{k}]"))
        width = len(W)
    if final is not None:
        W, b = _matrix(final, width)
        layers.append(DenseLayer(from_rationals(W, (len(W), width)), from_rationals([[v] for v in b], (len(b), 1)),
                                 "none", input_dim=width, path=f"layers[{len(layers)}]"))
    return ReLUNet(run.widths[0], layers)


def _maxout(run, ops, final) -> MaxoutNet:
    mlayers, width = [], run.widths[0]
    for k, (t, r, _) in enumerate(_pairs(run, ops)):
        W, b = _matrix(t, width)
        if r[0] == "relu":
            zero = [ZERO] * width
            units = [MaxoutUnit(from_rationals([W[i], zero], (2, width)), [b[i], ZERO], input_dim=width)
                     for i in range(len(W))]
        else:
            units = [_unit([W[j] for j in g], [b[j] for j in g], width) for g in r[1]]
        mlayers.append(MaxoutLayer(units, path=f"layers[{k}]"))
        width = len(units)
    readout = None
    if final is not None:
        W, b = _matrix(final, width)
        readout = AffineMap(from_rationals(W, (len(W), width)), b, input_dim=width)
    return MaxoutNet(run.widths[0], mlayers, readout)


def _unit(Ws, bs, width) -> MaxoutUnit:
    """A maxout unit from its pieces, repeated pieces dropped (they do not change the max;
    exporters pad units of lower rank with them)."""
    seen, rows_, bias = set(), [], []
    for w, b in zip(Ws, bs):
        key = (tuple(w), b)
        if key not in seen:
            seen.add(key)
            rows_.append(list(w))
            bias.append(b)
    return MaxoutUnit(from_rationals(rows_, (len(rows_), width)), bias, input_dim=width)


__all__ = ["SymbolicRun", "build_model", "DENSE_LIMIT", "COMPOSE_LIMIT", "Q"]
