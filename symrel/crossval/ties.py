"""Where ONNX's Hardmax and symrel's hardmax give different answers.

symrel's hardmax puts weight ``1/|M|`` on every index of the argmax set M;
ONNX's ``Hardmax`` puts weight 1 on the *first* maximiser (docs/theory.md#conventions).
They differ only when a score column has a tie, and a tie changes the answer
only when the tied keys carry different values. Both rules are evaluated
exactly here, so a reported disagreement is a fact about the model at that
input, not a rounding artefact.

>>> from symrel.crossval.examples import tied_values_hardmax
>>> rep = hardmax_rule_report(tied_values_hardmax(), [[Q(0)], [Q(1, 2)]])
>>> rep["points_with_score_ties"], rep["disagreements"]
(1, [{'input': [0], 'symrel': ['1/2'], 'first_maximiser': [1]}])
"""

from __future__ import annotations

from ..exact import Q, columns, format_rational
from ..interop.exact_trace import exact_trace, first_maximiser
from ..models import argmax_set


def hardmax_rule_report(model, points, exact_average=None, *, limit: int = 50) -> dict:
    """Exact outputs under both rules at every point; the points where they differ."""
    if exact_average is None:
        exact_average = exact_trace(model, points)
    tied = []

    def first_recording_ties(scores):
        tied[-1] = tied[-1] or len(argmax_set(scores)) > 1
        return first_maximiser(scores)

    first_cols = []
    for x in points:  # point by point, to know which inputs met a tie
        tied.append(False)
        first_cols.append(columns(exact_trace(model, [x], hardmax_rule=first_recording_ties)[-1][1])[0])
    avg_out = columns(exact_average[-1][1])
    diffs = []
    count = 0
    for x, a, f in zip(points, avg_out, first_cols):
        if a != f:
            count += 1
            if len(diffs) < limit:
                diffs.append({"input": [format_rational(v) for v in x],
                              "symrel": [format_rational(v) for v in a],
                              "first_maximiser": [format_rational(v) for v in f]})
    return {
        "rule": "symrel hardmax averages over the argmax set; ONNX Hardmax takes the first maximiser",
        "points_checked": len(points),
        "points_with_score_ties": sum(tied),
        "points_where_rules_differ": count,
        "disagreements": diffs,
    }


_ = Q
