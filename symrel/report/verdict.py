"""The report of ``symrel verify``: the verdict first, then how it was reached.

A report leads with what was decided: the result, the network and the property (file names
and the sha256 of their bytes) and, for ``unsat``, the sha256 of the certificate and that
the trusted checker accepted it; then the lines the command printed, then the statistics.
It is typeset in the format the file's extension names (:func:`symrel.report.report_format`):
Markdown, LaTeX, HTML, or ``.json``, the verdict as ``symrel verify --json`` prints it.

>>> from symrel.verification.verdict import Verdict
>>> v = Verdict("unsat", checked=True, certificate_sha256="ab" * 32, stats={"nodes": 3})
>>> text = verdict_report(v, {"net": "n.onnx", "property": "p.vnnlib"}, ["certificate c.json: checked in 0.1 s"], "md")
>>> text.splitlines()[0]
'# symrel verify: unsat'
>>> "**Result: unsat.**" in text.splitlines()[2]
True
"""

from __future__ import annotations

from .document import Code, Heading, Items, Para, Pre, Strong, Table

#: the result's lead, in words
LEADS = {"unsat": "no input of the property's region meets its unsafe condition",
         "sat": "an exact input of the region whose exact outputs meet the unsafe condition",
         "unknown": "undecided within the limits given"}


def verdict_blocks(verdict, info: dict, lines: list) -> list:
    """The report as document blocks (module docstring)."""
    result = verdict.result
    lead = [Strong(f"Result: {result}."), f" {LEADS[result][0].upper()}{LEADS[result][1:]}."]
    if result == "unsat":
        if verdict.checked:
            lead.append(" The certificate was checked by the trusted checker (symrel check-certificate) before the "
                        "verdict was made.")
        else:
            lead.append(" The certificate was not checked (--no-check).")
    elif result == "unknown":
        lead.append(" " + verdict.why()[0].upper() + verdict.why()[1:] + ".")
    blocks = [Heading(1, [f"symrel verify: {result}"]), Para(lead)]
    facts = []
    if verdict.certificate_sha256:
        facts.append([Strong("certificate sha256: "), Code(verdict.certificate_sha256)])
    for role, key in (("network", "net"), ("property", "property")):
        f = verdict.files.get(role)
        name = f["name"] if f else str(info.get(key, ""))
        facts.append([f"{role}: ", Code(name)] + ([" (sha256 of its bytes ", Code(f["sha256"]), ")"] if f else []))
    if verdict.stats.get("seconds") is not None:
        facts.append([f"time: {verdict.stats['seconds']} s"])
    blocks.append(Items(facts))
    if lines:
        blocks.append(Pre("\n".join(lines)))
    if verdict.stats:
        from ..verification.verdict import _stat_text

        blocks += [Heading(2, ["Statistics"]),
                   Table(["statistic", "value"], [[[k], [_stat_text(v)]] for k, v in verdict.stats.items()])]
    blocks += [Heading(2, ["How to read this report"]),
               Para(["The network and the property are named by the sha256 of their files' bytes (", Code("sha256sum"),
                     " prints it; ", Code("symrel info FILE"), " prints it with the sha256 of the exact object read "
                     "from the file). An unsat verdict's certificate is named by the sha256 of its file; ",
                     Code("symrel check-certificate C --input network=NET --input property=PROP"),
                     " checks it again and ties it to the files."])]
    return blocks


def verdict_report(verdict, info: dict, lines: list, fmt: str) -> str:
    """The report in ``fmt`` (``md``, ``tex``, ``html``, ``json``)."""
    if fmt == "json":
        from ..fileformat.canonical import canonical_dumps

        return canonical_dumps(info)
    from . import _typeset

    return _typeset(verdict_blocks(verdict, info, lines), fmt, f"symrel verify: {verdict.result}")


def write_verdict_report(path, verdict, info: dict, lines: list) -> None:
    """Write the report of ``verdict`` to ``path`` in the format its extension names."""
    from ..fileformat.jsonio import write_text_atomic
    from . import report_format

    write_text_atomic(path, verdict_report(verdict, info, lines, report_format(path)))


def write_referee_report(path, info: dict, lines: list) -> None:
    """The report of ``symrel verify --check-witness``: the referee's verdict on another tool's
    witness, its lines, in the format the extension of ``path`` names."""
    from ..fileformat.jsonio import write_text_atomic
    from . import _typeset, report_format

    fmt = report_format(path)
    if fmt == "json":
        from ..fileformat.canonical import canonical_dumps

        text = canonical_dumps(info)
    else:
        blocks = [Heading(1, [f"symrel verify: {info['result']}"]),
                  Para([Strong(f"Result: {info['result']}."), " Another tool's counterexample, checked exactly."]),
                  Items([["network: ", Code(str(info["net"]))],
                         ["property: ", Code(str(info["property"])), " (sha256 of its bytes ",
                          Code(str(info["property_sha256"])), ")"]]),
                  Pre("\n".join(lines))]
        text = _typeset(blocks, fmt, f"symrel verify: {info['result']}")
    write_text_atomic(path, text)
