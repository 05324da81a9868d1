"""The ONNX importer's program: a graph's input-dependent part as a list of exact primitives.

The importer (:mod:`symrel.interop.onnx_import`) turns every ONNX node that depends on the
input into a few :class:`Primitive` s, each one primitive on flat (row-major) tensors:

============  ======================================================================
``input``     the graph input, flattened
``gather``    ``y_i = x_{src_i}``, or the constant ``fill`` where ``src_i = -1``
``mul``       ``y_i = x_i c_i``;  ``div``: ``y_i = x_i / c_i``;  ``add``: ``y_i = x_i + c_i``
``sum``       ``y_i = x_i + z_i``
``linear``    ``y_o = b_o + sum w_t x_{in_t}`` over the triples ``(o, in_t, w_t)``
``relu``      ``y_i = max(x_i, 0)``
``max``       ``y_g = max_{k in group g} x_k``
``concat``    the inputs one after the other;  ``const``: a constant tensor
============  ======================================================================

Constants ``c``, ``w``, ``b`` are :class:`~symrel.interop.onnx_values.Const` (flat). The same
program is read three ways: symbolically into a net (:mod:`symrel.interop.onnx_layers`),
exactly at one point (:func:`run_exact`: every intermediate tensor, for the error messages and
the tests), and as a float error analysis of a runtime's evaluation (:func:`run_bounds`, for
the onnxruntime guard, :mod:`symrel.interop.onnx_guard`).

>>> p = PrimitiveProgram()
>>> x = p.emit("input", (), (2,), "input")
>>> c = Const.of(object_array([Q(1, 3), Q(2)]), "float32")
>>> y = p.emit("div", (x,), (2,), "node d (Div)", c=c)
>>> [str(v) for v in run_exact(p, object_array([Q(1), Q(1)]))[y]]
['3', '1/2']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..exact import Q
from .onnx_values import ZERO, Const, FloatBounds, np, object_array

__all__ = ["PrimitiveProgram", "Primitive", "run_exact", "run_bounds", "Const", "object_array", "Q"]


@dataclass
class Primitive:
    """One primitive: ``out = op(args...)`` with parameters ``p``, of ``shape``, made for ``node``."""

    op: str
    out: int
    args: tuple
    shape: tuple
    node: str
    p: dict = field(default_factory=dict)


class PrimitiveProgram:
    """The steps in order, and which value is each ONNX tensor that depends on the input."""

    def __init__(self):
        self.steps: list[Primitive] = []
        #: ONNX tensor name -> the id of its value (node outputs that depend on the input)
        self.tensors: dict = {}
        self.listeners: list = []

    def emit(self, op, args, shape, node, **p) -> int:
        step = Primitive(op, len(self.steps), tuple(args), tuple(shape), node, p)
        self.steps.append(step)
        for listen in self.listeners:
            listen(step)
        return step.out


def _sum_by(out_idx, prods, n_out, start):
    """``start`` plus the sums of ``prods`` grouped by ``out_idx`` (sorted), as a new object array."""
    out = start.copy()
    if prods.size:
        starts = np.flatnonzero(np.r_[True, out_idx[1:] != out_idx[:-1]])
        out[out_idx[starts]] = out[out_idx[starts]] + np.add.reduceat(prods, starts)
    return out


def run_exact(program: PrimitiveProgram, x) -> dict:
    """Every value of the program at the input ``x`` (a flat object array of rationals),
    exactly: ``{value id: flat object array}``. Cost: one exact operation per stored
    constant entry read."""
    v: dict = {}
    for s in program.steps:
        a = [v[i] for i in s.args]
        p = s.p
        if s.op == "input":
            r = np.asarray(x, dtype=object).reshape(-1)
        elif s.op == "gather":
            src = p["src"].reshape(-1)
            valid = src >= 0
            r = a[0][np.where(valid, src, 0)]
            if not valid.all():
                r = r.copy()
                r[~valid] = p["fill"]
        elif s.op == "mul":
            r = a[0] * p["c"].a.reshape(-1)
        elif s.op == "div":
            r = a[0] / p["c"].a.reshape(-1)
        elif s.op == "add":
            r = a[0] + p["c"].a.reshape(-1)
        elif s.op == "sum":
            r = a[0] + a[1]
        elif s.op == "linear":
            n_out = int(np.prod(s.shape))
            start = np.full(n_out, ZERO, dtype=object) if p["b"] is None else p["b"].a.reshape(-1)
            r = _sum_by(p["out_idx"], p["w"].a.reshape(-1) * a[0][p["in_idx"]], n_out, start)
        elif s.op == "relu":
            r = np.where(a[0] > ZERO, a[0], ZERO)
        elif s.op == "max":
            ptr = p["ptr"]
            r = np.maximum.reduceat(a[0][p["members"]], ptr[:-1]) if ptr.size > 1 else a[0][:0]
        elif s.op == "concat":
            r = np.concatenate(a)
        elif s.op == "const":
            r = p["c"].a.reshape(-1)
        else:  # pragma: no cover - the importer emits only the primitives above
            raise ValueError(f"unknown step {s.op}")
        v[s.out] = np.asarray(r, dtype=object)
    return v


def run_bounds(program: PrimitiveProgram, x, runtime: dict, bounds: FloatBounds) -> dict:
    """The float error analysis of a runtime's evaluation at the float input ``x`` (flat):
    ``{value id: (mag, err)}``, ``mag`` bounding the magnitude of the runtime's value and
    ``err`` its distance to the exact value, entrywise (float64 arrays). ``runtime`` maps ONNX
    tensor names to the runtime's values of them, which replace the bounds' magnitudes (they
    are the very operands of the next node)."""
    named = {i: name for name, i in program.tensors.items()}
    v: dict = {}
    for s in program.steps:
        a = [v[i] for i in s.args]
        p = s.p
        if s.op == "input":
            xf = np.asarray(x, dtype=np.float64).reshape(-1)
            mag, err = np.abs(xf), np.zeros(xf.size)
        elif s.op == "gather":
            src = p["src"].reshape(-1)
            valid = src >= 0
            take = np.where(valid, src, 0)
            mag = np.where(valid, a[0][0][take], abs(float(p["fill"])))
            err = np.where(valid, a[0][1][take], 0.0)
        elif s.op in ("mul", "div"):
            c = p["c"]
            rule = bounds.scale if s.op == "mul" else bounds.divide
            mag, err = rule(a[0][0], a[0][1], np.abs(c.f).reshape(-1), None if c.err is None else c.err.reshape(-1))
        elif s.op == "add":
            c = p["c"]
            mag, err = bounds.add(a[0][0], a[0][1], c.mag().reshape(-1), c.errs().reshape(-1))
        elif s.op == "sum":
            mag, err = bounds.add(a[0][0], a[0][1], a[1][0], a[1][1])
        elif s.op == "linear":
            w, b = p["w"], p["b"]
            mag, err = bounds.linear(a[0][0], a[0][1], p["out_idx"], p["in_idx"], np.abs(w.f).reshape(-1),
                                     None if w.err is None else w.err.reshape(-1),
                                     None if b is None else np.abs(b.f).reshape(-1),
                                     None if b is None or b.err is None else b.err.reshape(-1),
                                     int(np.prod(s.shape)), p["terms"])
        elif s.op == "relu":
            mag, err = a[0]
        elif s.op == "max":
            ptr, members = p["ptr"], p["members"]
            mag = np.maximum.reduceat(a[0][0][members], ptr[:-1])
            err = np.maximum.reduceat(a[0][1][members], ptr[:-1])
        elif s.op == "concat":
            mag = np.concatenate([m for m, _ in a])
            err = np.concatenate([e for _, e in a])
        elif s.op == "const":
            c = p["c"]
            mag, err = c.mag().reshape(-1), c.errs().reshape(-1)
        else:  # pragma: no cover
            raise ValueError(f"unknown step {s.op}")
        name = named.get(s.out)
        if name is not None and name in runtime:
            mag = np.abs(np.asarray(runtime[name], dtype=np.float64).reshape(-1))
        v[s.out] = (mag, err)
    return v
