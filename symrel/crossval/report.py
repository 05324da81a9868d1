"""A cross-validation report as Markdown (``symrel crossval --report R.md``)."""

from __future__ import annotations

from ..exact import format_rational, inner


def _q(v) -> str:
    return f"`{format_rational(v)}` (~{float(v):.3g})"


def report_markdown(rep) -> str:
    pts = inner(rep.points, "points")
    lines = [
        f"# Cross-validation: {rep.model_kind} model, {rep.backend}, {rep.dtype}",
        "",
        f"- reference: {rep.reference}",
        f"- inputs: {len(pts)} points, floats of {rep.dtype} (the float and the exact run see the same input): "
        + ", ".join(f"{n} {k}" for k, n in rep.points.counts().items()),
        f"- largest output error: {_q(rep.max_abs_error)}; in ULPs of the exact value: {_q(rep.max_ulp_error)}",
    ]
    if rep.worst_input is not None:
        lines.append(f"- worst input (exact): `[{', '.join(str(format_rational(v)) for v in rep.worst_input)}]`")
    if rep.weight_rounding is not None:
        w = rep.weight_rounding
        where = f" at `{w.worst}`" if w.worst else " (every weight is a float of this format)"
        lines.append(f"- weights rounded to {w.format}: largest weight error {_q(w.max_error)}{where}"
                     + (f", {w.overflows} weights overflow to infinity" if w.overflows else ""))
    verdict = "no NaN/Inf, every error within its rigorous bound where one applies" if rep.ok else "PROBLEMS FOUND (below)"
    if rep.flips:
        verdict += f"; {len(rep.flips)} argmax flips at near-ties"
    lines.append(f"- verdict: {verdict}")
    lines += ["", "## Per stage and per output", "",
              "ULPs are those of the exact value (an exact 0 counts in units of the smallest subnormal).", "",
              "| stage | max abs error | max ULP error | NaN/Inf |", "|---|---|---|---|"]
    for s in rep.stages[:-1] + rep.outputs:
        lines.append(f"| {s.name} | {float(s.max_abs_error):.3g} | {float(s.max_ulp_error):.3g} | {s.nonfinite} |")
    if rep.error_bound is not None:
        b = rep.error_bound
        lines += ["", "## Rigorous float error bound", "", f"Rule: `{b['rule']}`.",
                  f"Largest bound {b['max_bound_float']:.3g}; largest observed error / bound = {b['max_error_over_bound_float']:.3g}"
                  f" ({'within the bound everywhere' if not b['violations'] else str(len(b['violations'])) + ' VIOLATIONS'})."]
    if rep.flips:
        lines += ["", f"## Argmax flips ({len(rep.flips)})", ""]
        for f in rep.flips[:10]:
            lines.append(f"- input `{f['input']}` ({f['source']}): exact argmax {f['exact_argmax']}, float argmax {f['float_argmax']}")
    if rep.nonfinite:
        lines += ["", f"## NaN / Inf ({len(rep.nonfinite)} shown)", ""]
        for f in rep.nonfinite[:10]:
            lines.append(f"- {f['stage']} feature {f['feature']} = {f['value']} at input `{f['input']}`")
    if rep.hardmax_rule is not None:
        h = rep.hardmax_rule
        lines += ["", "## Hardmax tie rule", "", h["rule"] + ".",
                  f"{h['points_with_score_ties']} of {h['points_checked']} inputs meet an exact score tie; "
                  f"the two rules give different outputs at {h['points_where_rules_differ']} of them"
                  + (" (this backend uses the first-maximiser rule)." if h.get("applies") else ".")]
        for d in h["disagreements"][:10]:
            lines.append(f"- input `{d['input']}`: symrel {d['symrel']}, first maximiser {d['first_maximiser']}")
    if rep.softmax is not None:
        s = rep.softmax
        lines += ["", "## Softmax attention", "", f"Scales {s['scales']}; wrong answers: {s['wrong_count']}; "
                  f"rigorous bound: {s['rigorous_bound']}."]
        for w in s["wrong"][:10]:
            lines.append(f"- input `{w['input']}`: {w['reason']}")
    for n in rep.notes:
        lines.append(f"\nNote: {n}")
    return "\n".join(lines) + "\n"
