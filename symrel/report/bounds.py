"""The report of ``symrel bounds``: the bounds first, then how they were reached.

A report leads with what was certified: the bounds of each output (exact, with a decimal for
reading), which are attained, whether the trusted checker accepted the certificate and its
sha256, the network and the region (file names and the sha256 of their bytes); then the lines
the command printed, then the statistics. It is typeset in the format the file's extension
names (:func:`symrel.report.report_format`): Markdown, LaTeX, HTML, or ``.json``, the result as
``symrel bounds --json`` prints it.

>>> from symrel.exact import Q
>>> from symrel.verification.bounds_result import OutputBound, OutputBounds
>>> r = OutputBounds([OutputBound(0, Q(-1), Q(2), (Q(-1), (Q(0),)), (Q(3, 2), (Q(1),)))], checked=True,
...                  certificate_sha256="ab" * 32, stats={"leaves": 3})
>>> text = bounds_report(r, {"net": "n.onnx", "region": "b.json"}, [], "md")
>>> text.splitlines()[0]
'# symrel bounds: certified'
>>> "| Y_0 | -1 | -1 | 3/2 | 2 | min |" in text
True
"""

from __future__ import annotations

from .document import Code, Heading, Items, Para, Pre, Strong, Table


def _result_word(result) -> str:
    return "certified" if result.checked else "not checked" if result.outputs else "no bounds"


def bounds_blocks(result, info: dict, lines: list) -> list:
    """The report as document blocks (module docstring)."""
    from ..exact import format_rational

    word = _result_word(result)
    lead = [Strong(f"Result: {word}.")]
    if result.checked:
        lead.append(" For every input of the region, each output lies between its bounds; the certificate was "
                    "checked by the trusted checker (symrel check-certificate) before the bounds were reported.")
    elif result.outputs:
        lead.append(" The bounds were computed but their certificate was not checked"
                    + (f": {result.why()}." if result.stage else " (--no-check)."))
    else:
        lead.append(" " + result.why()[0].upper() + result.why()[1:] + ".")
    blocks = [Heading(1, [f"symrel bounds: {word}"]), Para(lead)]
    if result.outputs:
        rows = []
        for b in result.outputs:
            least = "" if b.least is None else str(format_rational(b.least.exact_y))
            greatest = "" if b.greatest is None else str(format_rational(b.greatest.exact_y))
            sides = [s for s, yes in (("min", b.lower_attained), ("max", b.upper_attained)) if yes]
            rows.append([[f"Y_{b.output}"], [str(format_rational(b.exact_lower))], [least], [greatest],
                         [str(format_rational(b.exact_upper))], [" and ".join(sides) or "no"]])
        blocks.append(Table(["output", "lower", "least found", "greatest found", "upper", "attained"], rows))
    facts = []
    if result.certificate_sha256:
        facts.append([Strong("certificate sha256: "), Code(result.certificate_sha256)])
    for role, key in (("network", "net"), ("region", "region")):
        f = result.files.get(role)
        name = f["name"] if f else str(info.get(key, ""))
        facts.append([f"{role}: ", Code(name)] + ([" (sha256 of its bytes ", Code(f["sha256"]), ")"] if f else []))
    if result.limit:
        facts.append([f"the search stopped at: {result.why() if not result.stage else result.limit}"])
    facts += [[f"note: {note}"] for note in result.notes]
    if result.stats.get("seconds") is not None:
        facts.append([f"time: {result.stats['seconds']} s"])
    blocks.append(Items(facts))
    if lines:
        blocks.append(Pre("\n".join(lines)))
    if result.stats:
        blocks += [Heading(2, ["Statistics"]),
                   Table(["statistic", "value"], [[[k], [str(v)]] for k, v in result.stats.items()])]
    blocks += [Heading(2, ["How to read this report"]),
               Para(["Each bound is exact: lower <= Y_j(x) <= upper for every x of the region. 'Least found' and "
                     "'greatest found' are the exact values of Y_j at the points of the region found nearest to "
                     "the bounds, so the true minimum lies between 'lower' and 'least found' and the true maximum "
                     "between 'greatest found' and 'upper'; a bound equal to its point's value is attained (the "
                     "minimum or maximum itself). The certificate is named by the sha256 of its file; ",
                     Code("symrel check-certificate C --input network=NET"), " checks it again."])]
    return blocks


def bounds_report(result, info: dict, lines: list, fmt: str) -> str:
    """The report in ``fmt`` (``md``, ``tex``, ``html``, ``json``)."""
    if fmt == "json":
        from ..fileformat.canonical import canonical_dumps

        return canonical_dumps(info)
    from . import _typeset

    return _typeset(bounds_blocks(result, info, lines), fmt, f"symrel bounds: {_result_word(result)}")


def write_bounds_report(path, result, info: dict, lines: list) -> None:
    """Write the report of ``result`` to ``path`` in the format its extension names."""
    from ..fileformat.jsonio import write_text_atomic
    from . import report_format

    write_text_atomic(path, bounds_report(result, info, lines, report_format(path)))
