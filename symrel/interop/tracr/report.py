"""The Markdown report of a tracr audit, and its counterexample file.

The report lists the input count, the model's per-layer sizes, the import notes, the
result with any disagreement (the input, the three outputs, which differs, tracr's own
float output), the softmax error bound of a numerical output, and the certified coldness.
"""

from __future__ import annotations

from ...exact import format_rational, to_float
from ...fileformat.sequence_io import label_to_json


def _q(x) -> str:
    return f"{format_rational(x)} (about {to_float(x):.4g})"


def _value(v):
    from .audit import _show

    return _show(v)


def _values(vs) -> str:
    return ", ".join(_value(v) for v in vs)


def coldness_line(cold) -> str:
    """The coldness in words, for the report and the command line."""
    if cold is None:
        return "not computed"
    if cold.status == "bracketed":
        return (f"between {_q(cold.lower)} and {_q(cold.upper)} times the compiled logits: softmax decodes every "
                f"input at c = {format_rational(cold.upper)} and fails on input {list(cold.witness)} at "
                f"c = {format_rational(cold.lower)} (compiled with tracr's default softmax_coldness 100, a "
                f"coldness of about {100 * to_float(cold.upper):.3g} suffices)")
    if cold.status == "below-limit":
        return f"below {_q(cold.upper)}: {cold.note}"
    return f"{cold.status}: {cold.note}"


def audit_markdown(proof, title: str = "tracr audit") -> str:
    """The report (module docstring) of a proof returned by :func:`~symrel.interop.tracr.audit_tracr`."""
    ex = proof.extra
    sizes = ex.get("sizes", {})
    lines = [f"# {title}", "", f"Claim: {proof.claim}.", "", f"**Result: {proof.result}.**", ""]
    lines += [f"- inputs: {ex.get('inputs')} (every sequence of length 1..{proof.claim_data.get('max_seq_len')})"]
    if sizes:
        lines += [f"- model: residual width {sizes['width']}, {sizes['layers']} layers, {sizes['heads']} heads, "
                  f"{sizes['output']} output{', causal' if sizes['causal'] else ''}", "",
                  "| layer | sublayer | size |", "| --- | --- | --- |"]
        for row in ex.get("layers", []):
            size = (f"{row['heads']} heads, key size {row['key_size']}" if row["sublayer"] == "attention"
                    else f"{row['hidden']} hidden units")
            lines.append(f"| {row['layer']} | {row['sublayer']} | {size} |")
    lines.append("")
    d = ex.get("disagreement")
    if d is not None:
        verb = "outputs differ" if " and " in d["differs"] else "output differs"
        lines += ["## Disagreement", "", f"Input {d['input']}, position {d['position']}: the {d['differs']} {verb}.", "",
                  "| | output at that position | all positions |", "| --- | --- | --- |",
                  f"| RASP | {_value(d['rasp'])} | {_values(d['rasp_outputs'])} |",
                  f"| hardmax (exact) | {_value(d['hardmax'])} | {_values(d['hardmax_outputs'])} |",
                  f"| softmax (certified) | {_value(d['softmax'])} | |"]
        if d.get("tracr_apply") is not None:
            lines.append(f"| tracr `model.apply` (float32) | {_value(d['tracr_apply'][d['position']])} "
                         f"| {_values(d['tracr_apply'])} |")
        lines += ["", "Confirmed outside the audit by `rasp.evaluate` and exact evaluation of the imported model.", ""]
    elif proof.result == "open":
        lines += [f"Open: {proof.obstacle}.", ""]
    if "softmax_error_bound" in ex:
        lines += [f"Certified softmax error (c = 1) of the numerical output: at most {_q(ex['softmax_error_bound'])}.", ""]
    if proof.result == "proved":
        lines += [f"Certified coldness: {coldness_line(ex.get('coldness'))}.", ""]
    lines += ["## Steps", ""]
    for i, s in enumerate(proof.steps, 1):
        lines.append(f"{i}. {s.lemma} (`{s.rule}`: {s.status})" + (f" {s.note}" if s.note else ""))
    lines += ["", "## Import notes", ""] + [f"- {n}" for n in ex.get("notes", [])]
    return "\n".join(lines) + "\n"


def counterexample_json(proof) -> dict:
    """``kind: "tracr-counterexample"``: the refuting input and the three outputs."""
    d = proof.extra["disagreement"]

    def out(v):
        if isinstance(v, tuple) and len(v) == 2 and hasattr(v[0], "denominator"):
            return {"interval": [format_rational(v[0]), format_rational(v[1])]}
        if isinstance(v, tuple):
            return {"tie": [out(x) for x in v]}
        if hasattr(v, "denominator") and not isinstance(v, (int, float, bool)):
            return {"exact": format_rational(v)}
        return label_to_json(v)

    return {"symrel": 1, "kind": "tracr-counterexample", "input": [label_to_json(t) for t in d["input"]],
            "position": d["position"], "differs": d["differs"], "rasp": out(d["rasp"]), "hardmax": out(d["hardmax"]),
            "softmax": out(d["softmax"]), "tracr_apply": None if d["tracr_apply"] is None else
            [out(v) for v in d["tracr_apply"]]}
