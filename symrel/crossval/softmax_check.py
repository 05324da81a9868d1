"""Softmax Transformers in low precision: overflow and wrong answers.

The reference is mpmath at high precision (softmax has no exact value). A float
result is *wrong* when it is NaN/Inf, when its argmax differs from the
reference's, or when it is farther from the reference than ``tolerance * (1 +
max |reference|)`` (default 1/100: far beyond any rounding of a correct
computation, so a flagged point is an answer the float run got wrong). When
:func:`symrel.softmax.propagate` certifies a softmax-vs-hardmax bound for the
model on the box, float outputs outside ``hardmax +- bound`` are flagged too.
"""

from __future__ import annotations

from ..exact import columns, format_rational, inner


def softmax_report(model, report, reference, float_trace, box=None, tolerance=None) -> dict:
    from ..exact import Q

    tol = Q(1, 100) if tolerance is None else tolerance
    hard = model.with_rule("hardmax")
    H = columns(hard.evaluate_matrix(inner(report.points, "points")))
    R = columns(reference[-1][1])
    F = float_trace[-1][1].tolist()
    scales = sorted({format_rational(b.attention.exact_scale) for b in model.blocks
                     if b.attention is not None and b.attention.rule == "softmax"}, key=str)
    bound, why = _rigorous_bound(model, box)
    wrong, count = [], 0
    for j, (h, r, f) in enumerate(zip(H, R, F)):
        x = [format_rational(v) for v in inner(report.points, "points")[j]]
        finite = all(v == v and abs(v) != float("inf") for v in f)
        reason = None
        if not finite:
            reason = "overflow: NaN/Inf in the output"
        else:
            from ..interop.floats import exact_from_float

            fe = [exact_from_float(v) for v in f]
            err = max(abs(a - b) for a, b in zip(fe, r))
            if len(r) > 1 and max(range(len(f)), key=lambda i: f[i]) != max(range(len(r)), key=lambda i: r[i]):
                reason = "argmax differs from the high-precision softmax"
            elif err > tol * (1 + max(abs(v) for v in r)):
                reason = f"float error {float(err):.3g} against the high-precision softmax"
            elif bound is not None and max(abs(a - b) for a, b in zip(fe, h)) > bound:
                reason = "outside the rigorous softmax bound around the hardmax output"
        count += bool(reason)
        if reason and len(wrong) < 50:
            wrong.append({"input": x, "reason": reason, "float_outputs": f,
                          "reference": [float(v) for v in r], "hardmax": [format_rational(v) for v in h]})
    out = {"scales": scales, "tolerance": format_rational(tol), "wrong": wrong, "wrong_count": count}
    out["rigorous_bound"] = format_rational(bound) if bound is not None else why
    return out


def _rigorous_bound(model, box):
    """``(bound, why)``: the certified sup-norm bound on ``|softmax output - hardmax
    output|`` over the box from :func:`symrel.softmax.propagate` (one common scale),
    or ``(None, reason)``."""
    scales = {b.attention.exact_scale for b in model.blocks if b.attention is not None and b.attention.rule == "softmax"}
    if len(scales) != 1 or box is None:
        return None, "no bound: blocks use different scales" if box is not None else "no bound: no box domain"
    from ..softmax import analyse, propagate

    trace = propagate(analyse(model.with_rule("hardmax"), box), scales.pop())
    if trace.total is None:
        return None, f"no bound: {trace.obstacle}"
    return trace.total, ""
