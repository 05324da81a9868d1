"""The onnxruntime guard of the ONNX importer: symrel's reading against the runtime's.

After a graph is read (:mod:`symrel.interop.onnx_import`), onnxruntime evaluates it (every
optimisation off, one thread, every input-dependent node's output exposed) at a few float
points: a point of ``[0, 1]^n`` and one of ``[-1, 1]^n`` at random, and a corner of
``[-1, 1]^n`` (seeded). At each point the exact model gives the output, and the float error
analysis of the runtime's evaluation (:func:`symrel.interop.onnx_ir.run_bounds`, the standard
model of float arithmetic with the graph's unit roundoff, times a count of the rounded
operations of each node, on the runtime's own intermediate values) bounds how far a correct
runtime can be from it. A difference beyond twice that bound (the factor covers the float64
arithmetic of the bound itself) is a refusal that names the first node whose output already
differs: "symrel's reading of NODE differs from onnxruntime".

This is a guard against misreading a node, not the semantics (the exact model is): it never
refuses a correct import, whatever the weights, as the bound is rigorous; and an import it
passes is still only as right as the reading of each operation.
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import Q
from .floats import exact_tensor
from .onnx_graph import FLOAT_TYPES
from .onnx_ir import run_bounds, run_exact
from .onnx_values import np

#: the points compared: (kind, seed)
POINTS = (("uniform [0, 1]", 0), ("uniform [-1, 1]", 1), ("a corner of [-1, 1]", 2))
#: the slack on the bound (its own float64 arithmetic)
SLACK = 2.0


def _point(kind, seed, shape, dtype):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if kind.startswith("uniform [0"):
        x = rng.uniform(0, 1, n)
    elif kind.startswith("uniform"):
        x = rng.uniform(-1, 1, n)
    else:
        x = rng.choice([-1.0, 1.0], n)
    return x.astype(dtype).reshape(shape)


def _session(tracer):
    import onnx
    import onnxruntime as ort

    g = tracer.g
    proto = onnx.ModelProto()
    proto.CopyFrom(g.proto)
    elem = g.input.type.tensor_type.elem_type
    have = {o.name for o in proto.graph.output}
    for name in tracer.program.tensors:
        if name not in have:
            proto.graph.output.append(onnx.helper.make_tensor_value_info(name, elem, None))
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(proto.SerializeToString(), options, providers=["CPUExecutionProvider"])
    except Exception as err:
        text = str(err).strip().splitlines()
        raise InputError(f"onnxruntime cannot load the graph: {text[0] if text else type(err).__name__}",
                         file=g.path) from None


def check_with_onnxruntime(tracer, model) -> str | None:
    """Compare ``model`` (the exact import of ``tracer``'s graph) with onnxruntime (module
    docstring); an InputError naming the node on a difference, else a note saying what was
    compared (None when onnxruntime is not installed)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return None
    g = tracer.g
    session = _session(tracer)
    names = [o.name for o in session.get_outputs()]
    dtype = np.dtype(FLOAT_TYPES[g.input.type.tensor_type.elem_type]) if \
        FLOAT_TYPES[g.input.type.tensor_type.elem_type] != "bfloat16" else None
    if dtype is None:
        return "onnxruntime guard skipped: bfloat16 inputs"
    runs = []
    for kind, seed in POINTS:
        x = _point(kind, seed, tracer.input_shape, dtype)
        try:
            got = dict(zip(names, session.run(None, {g.input.name: x})))
        except Exception as err:
            text = str(err).strip().splitlines()
            raise InputError(f"onnxruntime cannot run the graph: {text[0] if text else type(err).__name__}",
                             file=g.path) from None
        if all(np.isfinite(np.asarray(v, dtype=np.float64)).all() for v in got.values()):
            runs.append((kind, x, got))  # else the runtime overflowed: its values say nothing here
    if not runs:
        return "onnxruntime overflowed at every point compared: the import is not cross-checked"
    points = [exact_tensor(x).reshape(-1) for _, x, _ in runs]
    outputs = exact_outputs(model, points)
    for (kind, x, got), exact_x, y in zip(runs, points, outputs):
        bounds = run_bounds(tracer.program, x.astype(np.float64).reshape(-1), got, tracer.bounds)
        out_err = bounds[tracer.output.id][1]
        ort_y = np.asarray(got[g.output], dtype=np.float64).reshape(-1)
        for j, (exact, f, e) in enumerate(zip(y, ort_y, out_err)):
            if abs(Q(*float(f).as_integer_ratio()) - exact) > Q(*float(SLACK * e).as_integer_ratio()):
                _localise(tracer, exact_x, got, bounds, kind, j, f, exact, e)
    return (f"agrees with onnxruntime at {len(runs)} points within its float error bound "
            f"({tracer.format} arithmetic)")


def exact_outputs(model, points) -> list:
    """The model's exact outputs at ``points`` (flat object arrays), one list per point: a ReLU
    net by exact matrix products over the batch (python-flint's when installed), a layered net
    operator by operator on numpy object arrays, any other model by its own evaluation."""
    from ..exact import ZERO, from_rationals
    from ..models import ReLUNet
    from ..models.layered import LayeredNet, MaxGroups, Relu

    if isinstance(model, ReLUNet):
        X = from_rationals([list(r) for r in zip(*points)], (len(points[0]), len(points)))
        for layer in model.layers:
            Y = layer.affine.exact_W * X
            rows_ = [[v + b[0] for v in r] for r, b in zip(Y.to_list(), layer.affine.exact_b.to_list())]
            if layer.activation == "relu":
                rows_ = [[v if v > ZERO else ZERO for v in r] for r in rows_]
            X = from_rationals(rows_, (len(rows_), len(points)))
        return [list(c) for c in zip(*X.to_list())]
    if isinstance(model, LayeredNet):
        X = np.stack([np.asarray(p, dtype=object) for p in points], axis=1)
        for op in model.ops:
            if isinstance(op, Relu):
                X = np.where(X > ZERO, X, ZERO)
            elif isinstance(op, MaxGroups):
                members = np.fromiter((j for grp in op.groups for j in grp), dtype=np.int64)
                starts = np.cumsum([0] + [len(grp) for grp in op.groups[:-1]])
                X = np.maximum.reduceat(X[members], starts, axis=0)
            else:
                X = _sparse_apply(op, X)
        return [list(c) for c in X.T]
    return [model.evaluate_exact(list(p)) for p in points]


def _sparse_apply(op, X):
    """``W X + b`` for a :class:`~symrel.models.layered.SparseAffine` and a batch ``X`` (columns)."""
    from ..exact import ZERO

    lengths = np.fromiter((len(r) for r in op.rows), dtype=np.int64, count=op.output_dim)
    cols = np.fromiter((j for r in op.rows for j, _ in r), dtype=np.int64, count=int(lengths.sum()))
    vals = np.empty(cols.size, dtype=object)
    vals[:] = [v for r in op.rows for _, v in r]
    Y = np.empty((op.output_dim, X.shape[1]), dtype=object)
    Y[:] = np.asarray(op.b, dtype=object).reshape(-1, 1)
    live = np.flatnonzero(lengths)
    if live.size:
        starts = np.cumsum(lengths) - lengths
        sums = np.add.reduceat(vals[:, None] * X[cols], starts[live], axis=0)
        Y[live] = Y[live] + sums
    del ZERO
    return Y


def _localise(tracer, exact_x, got, bounds, kind, j, f, exact, e):
    """Raise the refusal naming the first node whose output differs beyond its bound."""
    values = run_exact(tracer.program, exact_x)
    steps = {s.out: s for s in tracer.program.steps}
    for name, vid in tracer.program.tensors.items():  # node order
        if name not in got:
            continue
        mine = values[vid]
        ort_v = np.asarray(got[name], dtype=np.float64).reshape(-1)
        err = bounds[vid][1]
        for i, (m, o, b) in enumerate(zip(mine, ort_v, err)):
            if abs(Q(*float(o).as_integer_ratio()) - m) > Q(*float(SLACK * b).as_integer_ratio()):
                raise InputError(f"symrel's reading of {steps[vid].node} differs from onnxruntime at {kind}: entry "
                                 f"{i} of {name!r} is {float(m)!r} exactly, onnxruntime {o!r}, beyond the float error "
                                 f"bound {SLACK * b:.3g}", path=steps[vid].node, file=tracer.g.path)
    raise InputError(f"symrel's reading of the graph differs from onnxruntime at {kind}: output {j} is "
                     f"{float(exact)!r} exactly, onnxruntime {f!r}, beyond the float error bound {SLACK * e:.3g}",
                     path=f"output {tracer.g.output}", file=tracer.g.path)
