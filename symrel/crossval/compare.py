"""``crossvalidate``: a float implementation against symrel's exact evaluation.

Both run on the same inputs, floats of the dtype under test (so the input is
not a source of difference). For every stage (layer) and every output the
report gives the largest absolute error ``|float - exact|`` (an exact rational:
a float is a dyadic rational), the largest error in ULPs of the exact value
(``|float - exact| / ulp(exact)``, exact), the input where each is attained,
NaN/Inf counts, and argmax flips of the outputs (the float argmax outside the
exact argmax set). The float error includes the rounding of the weights to the
dtype, which is reported separately and exactly. ULPs are those of the exact
value's binade and are taken over the nonzero exact values only: an exact 0 (an
inactive ReLU) has no meaningful unit in the last place (the smallest subnormal
would turn a tiny absolute error into 1e39 ULPs); its error counts in the
absolute column.

Softmax Transformers have no exact value: their reference is mpmath at
``reference_dps`` digits, and the report says so.

(needs numpy, so not run as a doctest)

>>> from symrel.models import ReLUNet, DenseLayer
>>> net = ReLUNet(2, [DenseLayer([[1, "1/3"], [2, -1]], [0, "1/7"]), DenseLayer([[1, 1]], [0], "none")])
>>> rep = crossvalidate(net, "numpy", "float32", 20)      # doctest: +SKIP
>>> rep.outputs[0].max_ulp_error < 4                      # doctest: +SKIP
True
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ..errors import InputError
from ..exact import Public, Q, Rational, columns, format_rational, inner, rows, to_sympy
from ..exact.display import Card, number_text
from ..exact.displayed import Displayed
from ..lowering import AttentionOp, lower
from ..models import Box, argmax_set
from ..interop.extras import require
from ..interop.floats import FloatFormat, float_format, ulp
from .points import PointSet, make_points


@dataclass
class ErrorStat:
    """The worst float error of one stage or one output over all points."""

    name: str
    max_abs_error: Rational = Public(default=Q(0))
    worst_abs: int | None = None
    max_ulp_error: Rational = Public(default=Q(0))
    worst_ulp: int | None = None
    nonfinite: int = 0

    def update(self, err: Rational, ulps: Rational | None, index: int):
        """Record one error; ``ulps`` is None where the exact value is 0 (no ULP
        of 0 is meaningful: the subnormal unit would count it 1e39 times over)."""
        if self.worst_abs is None or err > inner(self, "max_abs_error"):
            self.max_abs_error, self.worst_abs = err, index
        if ulps is not None and (self.worst_ulp is None or ulps > inner(self, "max_ulp_error")):
            self.max_ulp_error, self.worst_ulp = ulps, index


@dataclass(repr=False)
class CrossvalReport(Displayed):
    """Everything :func:`crossvalidate` found (see the module docstring)."""

    def _summary(self) -> str:
        return (f"{self.backend} {self.dtype} vs exact on {len(inner(self.points, 'points'))} points: max |error| "
                f"{number_text(self.max_abs_error)}, {len(self.flips)} argmax flips, {'ok' if self.ok else 'FAILED'}")

    def _card(self) -> Card:
        fields = [("points", len(inner(self.points, "points"))), ("max |float - exact|", self.max_abs_error),
                  ("max ULP error (nonzero exact values)", self.max_ulp_error), ("argmax flips", len(self.flips)),
                  ("NaN/Inf", len(self.nonfinite))]
        if self.worst_input is not None:
            fields.insert(2, ("worst input", self.worst_input))
        if self.error_bound is not None:
            fields.append(("rigorous bound violations", len(self.error_bound.get("violations", []))))
        rows = [(s.name, s.max_abs_error, s.max_ulp_error) for s in self.stages[:30]]
        return Card(f"Cross-validation: {self.backend}, {self.dtype}: {'ok' if self.ok else 'FAILED'}", fields,
                    ["stage", "max |error|", "max ULPs"] if rows else [], rows, max(0, len(self.stages) - 30))

    model_kind: str
    backend: str
    dtype: str
    reference: str
    points: PointSet
    stages: list[ErrorStat]
    outputs: list[ErrorStat]
    flips: list[dict] = field(default_factory=list)
    exact_ties: int = 0
    nonfinite: list[dict] = field(default_factory=list)
    weight_rounding: object = None
    error_bound: dict | None = None
    hardmax_rule: dict | None = None
    softmax: dict | None = None
    notes: list[str] = field(default_factory=list)

    # -- summary figures -------------------------------------------------------------------------
    @property
    def output_stat(self) -> ErrorStat:
        """The worst output (abs error), over all outputs."""
        best = ErrorStat("output")
        for s in self.outputs:
            if s.worst_abs is not None:
                best.update(inner(s, "max_abs_error"), Q(0), s.worst_abs)
            ulps = inner(s, "max_ulp_error")
            if s.worst_ulp is not None and (best.worst_ulp is None or ulps > inner(best, "max_ulp_error")):
                best.max_ulp_error, best.worst_ulp = ulps, s.worst_ulp
            best.nonfinite += s.nonfinite
        return best

    # the figures users read: sympy Rationals, symrel's public number type (the stats keep QQ)
    @property
    def max_abs_error(self):
        """The largest ``|float - exact|`` over the outputs and points (exact)."""
        return to_sympy(self.output_stat.max_abs_error)

    @property
    def max_ulp_error(self):
        """The largest error in ULPs of the exact value, over nonzero exact values."""
        return to_sympy(self.output_stat.max_ulp_error)

    @property
    def worst_input(self) -> list | None:
        """The input (exact) where :attr:`max_abs_error` is attained."""
        i = self.output_stat.worst_abs
        return None if i is None else [to_sympy(v) for v in inner(self.points, "points")[i]]

    @property
    def ok(self) -> bool:
        """No NaN/Inf, no rigorous error bound violated, no wrong softmax answer, and
        (for a first-maximiser backend) no input where ONNX's hardmax rule changes
        the answer. Argmax flips at near-ties are reported but are not failures:
        they are within the float error of a correct implementation."""
        hm = self.hardmax_rule or {}
        return not (self.nonfinite or (hm.get("applies") and hm.get("disagreements"))
                    or (self.softmax or {}).get("wrong") or (self.error_bound or {}).get("violations"))

    def to_json(self) -> dict:
        pts = inner(self.points, "points")

        def stat(s: ErrorStat):
            return {
                "name": s.name,
                "max_abs_error": format_rational(s.max_abs_error),
                "max_abs_error_float": float(s.max_abs_error),
                "worst_input": _fmt_point(pts[s.worst_abs]) if s.worst_abs is not None else None,
                "max_ulp_error": format_rational(s.max_ulp_error),
                "max_ulp_error_float": float(s.max_ulp_error),
                "worst_ulp_input": _fmt_point(pts[s.worst_ulp]) if s.worst_ulp is not None else None,
                "nonfinite": s.nonfinite,
            }

        out = {
            "kind": "crossval",
            "model": self.model_kind,
            "backend": self.backend,
            "dtype": self.dtype,
            "reference": self.reference,
            "points": len(pts),
            "point_sources": self.points.counts(),
            "max_abs_error": format_rational(self.max_abs_error),
            "max_ulp_error": format_rational(self.max_ulp_error),
            "worst_input": _fmt_point(self.worst_input) if self.worst_input is not None else None,
            "outputs": [stat(s) for s in self.outputs],
            "stages": [stat(s) for s in self.stages],
            "flips": self.flips,
            "exact_ties": self.exact_ties,
            "nonfinite": self.nonfinite,
            "ok": self.ok,
            "notes": self.notes,
        }
        if self.weight_rounding is not None:
            out["weight_rounding"] = self.weight_rounding.to_json()
        for key in ("error_bound", "hardmax_rule", "softmax"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    def to_markdown(self) -> str:
        from .report import report_markdown

        return report_markdown(self)


def _fmt_point(p):
    return [format_rational(v) for v in p]


def _default_box(model, domain):
    if domain is None:
        return Box.cube(model.input_dim)
    if not isinstance(domain, Box):
        raise InputError("cross-validation samples box domains only; give a box", path="domain")
    return domain


def crossvalidate(model, backend="numpy", dtype="float32", points=1000, *, domain=None, seed: int = 0,
                  special: bool = True, runner=None, reference_dps: int = 40, error_bound: bool | None = None,
                  progress=None, executor=None) -> CrossvalReport:
    """Run a float implementation and the exact evaluation on the same inputs.

    ``points``: how many random points (plus the special ones when ``special``),
    or an explicit list of points (rounded to the dtype). ``backend``: ``numpy``,
    ``torch`` or ``onnxruntime``, or pass a ready ``runner`` (e.g. an ONNX file
    run as it is). ``error_bound`` (default: on for relu/maxout nets with a
    symrel runner) adds the rigorous a-posteriori bound of
    :mod:`symrel.crossval.error_bound` and counts any point where the observed
    error exceeds it. ``executor``: any :class:`concurrent.futures.Executor`; the exact
    reference is then computed on runs of consecutive points put back in order
    (:func:`symrel.parallel.map_ordered`), so the report does not depend on it.
    """
    fmt = float_format(dtype)
    box = _default_box(model, domain)
    if isinstance(points, int):
        if points < 0:
            raise InputError(f"expected a number of points >= 0, got {points}", path="points")
        pset = make_points(model, box, points, fmt, seed=seed, special=special)
    else:
        from ..interop.floats import round_points
        from ..models import as_point

        raw = [as_point(p, model.input_dim, path=f"points[{i}]") for i, p in enumerate(points)]
        pset = PointSet(round_points(raw, fmt), ["given"] * len(raw))
    if not inner(pset, "points"):
        raise InputError("expected at least one point", path="points")
    np = require("numpy", "numeric")   # after the domain and the points are checked: those need no numpy
    if runner is None:
        from .backends import make_runner

        runner = make_runner(model, backend, dtype)
    if progress:
        progress(f"crossval: {len(inner(pset, 'points'))} points, {getattr(runner, 'name', backend)} {fmt.name}")
    X = np.array([[float(v) for v in p] for p in inner(pset, "points")], dtype=np.float64)
    float_trace = runner.trace(X)
    attention = {op.rule for st in lower(model).stages for op in st.ops if isinstance(op, AttentionOp)}
    is_softmax = "softmax" in attention
    if progress:
        progress("crossval: exact evaluation of the points")
    exact = _exact_reference(model, inner(pset, "points"), is_softmax, reference_dps, executor)
    reference = f"mpmath at {reference_dps} digits (softmax has no exact value)" if is_softmax else "exact rational evaluation"
    report = CrossvalReport(
        getattr(model, "kind", type(model).__name__), getattr(runner, "name", backend), fmt.name, reference,
        pset, [], [], weight_rounding=getattr(runner, "rounding", None))
    _compare(report, exact, float_trace, fmt)
    if error_bound is None:
        error_bound = getattr(model, "kind", "") in ("relu", "maxout", "cpwl1d") and hasattr(runner, "stages")
    if error_bound and not report.nonfinite:
        if progress:
            progress("crossval: rigorous error bounds")
        report.error_bound = _check_bound(model, runner, pset, float_trace, exact, fmt, executor)
    if attention and not is_softmax:   # hardmax attention: which rule at ties
        from .ties import hardmax_rule_report

        report.hardmax_rule = hardmax_rule_report(model, inner(pset, "points"), exact)
        report.hardmax_rule["applies"] = getattr(runner, "hardmax_rule", "average") == "first"
    if is_softmax:
        from .softmax_check import softmax_report

        report.softmax = softmax_report(model, report, exact, float_trace, box)
    return report


def _compare(report: CrossvalReport, exact, float_trace, fmt: FloatFormat):
    from ..interop.floats import exact_from_float

    np = require("numpy", "numeric")
    by_name = dict(float_trace)
    pts = inner(report.points, "points")
    pairs = [(name, E, by_name.get(name)) for name, E in exact[:-1] if name in by_name]
    pairs.append((exact[-1][0], exact[-1][1], float_trace[-1][1]))
    for k, (name, E, F) in enumerate(pairs):
        last = k == len(pairs) - 1
        stat = ErrorStat(name)
        outs = [ErrorStat(f"output[{i}]") for i in range(E.shape[0])] if last else []
        finite = np.isfinite(F)
        for j, (ycol, fcol, okcol) in enumerate(zip(columns(E), F.tolist(), finite.tolist())):
            for i, (y, f, ok) in enumerate(zip(ycol, fcol, okcol)):
                if not ok:
                    stat.nonfinite += 1
                    if last:
                        outs[i].nonfinite += 1
                    if len(report.nonfinite) < 20:
                        report.nonfinite.append({"stage": name, "feature": i, "value": str(f),
                                                 "input": _fmt_point(pts[j]), "source": report.points.sources[j]})
                    continue
                err = abs(exact_from_float(f) - y)
                ulps = None if y == 0 else (err / ulp(y, fmt) if err else err)  # ULPs over nonzero values
                stat.update(err, ulps, j)
                if last:
                    outs[i].update(err, ulps, j)
        report.stages.append(stat)
        if last:
            report.outputs = outs
            _flips(report, E, F)


def _flips(report, E, F):
    if E.shape[0] < 2:
        return
    np = require("numpy", "numeric")
    pts = inner(report.points, "points")
    for j, (ycol, fcol) in enumerate(zip(columns(E), F.tolist())):
        M = argmax_set(ycol)
        if len(M) > 1:
            report.exact_ties += 1
        if not all(np.isfinite(fcol)):
            continue
        k = int(np.argmax(fcol))
        if k not in M and len(report.flips) < 50:
            report.flips.append({"input": _fmt_point(pts[j]), "source": report.points.sources[j],
                                 "exact_argmax": sorted(M), "float_argmax": k,
                                 "exact_outputs": [format_rational(v) for v in ycol], "float_outputs": fcol})


def _bound_part(program, stages, fmt, dim, part):
    """The output error bounds (``outputs x n``) of one run of n consecutive points and
    their float trace, one task of :func:`_check_bound` (every bound is per point)."""
    from ..exact import from_columns
    from .error_bound import forward_error_bounds

    points, trace = part
    return forward_error_bounds(program, stages, from_columns(points, dim), trace, fmt)[-1]


def _check_bound(model, runner, pset, float_trace, exact, fmt, executor=None) -> dict:
    """The rigorous error bound at every point against the observed error. The bounds are
    computed on ``executor`` in runs of consecutive points (:func:`symrel.parallel.map_ordered`),
    whose columns are put back side by side in the points' order: the same as serially."""
    from ..exact import hstack
    from ..interop.floats import exact_matrix
    from ..parallel import chunked, map_ordered

    pts = inner(pset, "points")
    runs = [(r[0], r[-1] + 1) for r in chunked(range(len(pts)), executor)]
    parts = [(pts[a:b], [(name, F[a:b]) for name, F in float_trace]) for a, b in runs]
    pieces = map_ordered(_bound_part, parts, executor, shared=(runner.program, runner.stages, fmt, model.input_dim))
    B_out = pieces[0] if len(pieces) == 1 else hstack(*pieces)
    E_out = exact[-1][1]
    F_out = exact_matrix(float_trace[-1][1]).transpose()
    worst_ratio, violations, max_bound = Q(0), [], Q(0)
    for j, (y, f, b) in enumerate(zip(columns(E_out), columns(F_out), columns(B_out))):
        for yi, fi, bi in zip(y, f, b):
            err = abs(fi - yi)
            max_bound = max(max_bound, bi)
            if bi and err / bi > worst_ratio:
                worst_ratio = err / bi
            if err > bi and len(violations) < 20:
                violations.append(_fmt_point(inner(pset, "points")[j]))
    return {
        "rule": "|h~' - h'| <= |W| e + gamma_(n+1)(|W~||h~| + |b~|) + (n+1) eta + |W~-W||h~| + |b~-b|",
        "max_bound": format_rational(max_bound),
        "max_bound_float": float(max_bound),
        "max_error_over_bound": format_rational(worst_ratio),
        "max_error_over_bound_float": float(worst_ratio),
        "violations": violations,
    }


def _reference_part(model, is_softmax, dps, points) -> list:
    """The exact trace of ``points`` (softmax: the mpmath outputs), one task of
    :func:`_exact_reference`."""
    if is_softmax:
        return [("readout", _softmax_reference(model, points, dps))]
    from ..interop.exact_trace import exact_trace

    return exact_trace(model, points)


def _exact_reference(model, points, is_softmax, dps, executor=None) -> list:
    """The exact reference of every point, computed on ``executor`` in runs of consecutive
    points whose columns are put back side by side in the points' order."""
    from ..exact import hstack
    from ..parallel import chunked, map_ordered

    parts = map_ordered(_reference_part, chunked(points, executor), executor, shared=(model, is_softmax, dps))
    if len(parts) == 1:
        return parts[0]
    return [(name, hstack(*(part[k][1] for part in parts))) for k, (name, _) in enumerate(parts[0])]


def _softmax_reference(model, points, dps):
    """mpmath outputs of a softmax Transformer, as exact rationals of the mpf values."""
    from ..exact import from_rationals

    cols = []
    for x in points:
        vals = model.evaluate_softmax(x, dps=dps)
        cols.append([_mpf_to_rational(v) for v in vals])
    return from_rationals([list(r) for r in zip(*cols)], (model.output_dim, len(cols)))


def _mpf_to_rational(v) -> Rational:
    """The exact value of an mpmath binary float (sign, mantissa, exponent)."""
    sign, man, exp, _ = v._mpf_
    if not man and exp:
        raise InputError(f"the reference evaluation gave {v}", path="reference")
    q = Q(int(man)) * Q(2) ** exp if exp >= 0 else Q(int(man), 2 ** (-exp))
    return -q if sign else q
