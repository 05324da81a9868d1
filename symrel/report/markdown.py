"""Documents as Markdown (the default report format).

>>> from symrel.report.document import Heading, Para, Code
>>> print(markdown_of([Heading(1, ["Claim"]), Para(["by ", Code("relu-fixed-sign"), ", 2*x and $x \\\\ge 0$"])]), end="")
# Claim
<BLANKLINE>
by `relu-fixed-sign`, 2\\*x and $x \\ge 0$
"""

from __future__ import annotations

from .document import Code, certificate_label, Figure, Heading, Items, Link, Math, Para, Pre, StepBlock, Strong, Table, figure_files, split_math

_STATUS = {"proved": "proved", "open": "**open**", "refuted": "**refuted**"}


def _escape(text: str, in_table: bool = False) -> str:
    text = text.replace("\\", "\\\\").replace("*", "\\*").replace("`", "\\`")
    text = text.replace("\n", " " if in_table else "\n")
    return text.replace("|", "\\|") if in_table else text


def inline(text, in_table: bool = False) -> str:
    out = []
    for part in text:
        if isinstance(part, str):
            out += [f"${p.tex}$" if isinstance(p, Math) else _escape(p, in_table) for p in split_math(part)]
        elif isinstance(part, Math):
            out.append(f"${part.tex}$")
        elif isinstance(part, Code):
            out.append(f"`{part.text}`")
        elif isinstance(part, Strong):
            out.append(f"**{_escape(part.text, in_table).strip()}**" + (" " if part.text.endswith(" ") else ""))
        elif isinstance(part, Link):
            out.append(f"[{_escape(part.text, in_table)}]({part.target})")
        else:
            out.append(_escape(str(part), in_table))
    return "".join(out)


def _step(b: StepBlock) -> str:
    """A lemma: its claim, then the prover's note (or why it is not established) and
    one line of mathematics per fact its certificate proves."""
    lines = [f"**Lemma {b.number}** ({_STATUS.get(b.status, b.status)}, rule `{b.rule}`). {inline(b.lemma)}", ""]
    if b.why:
        lines.append(f"- {inline(b.why)}".rstrip())
    if b.certified:
        if b.status != "proved":
            lines.append(f"- *{certificate_label(b.status)}:*")
            lines += [f"  - {inline(c)}" for c in b.certified]
        else:
            lines += [f"- {inline(c)}" for c in b.certified]
    return "\n".join(lines).rstrip()


def markdown_of(blocks: list, figure_stem: str = "report") -> str:
    """Typeset a document as GitHub-flavoured Markdown (mathematics between
    dollars; figures linked to the files :func:`~symrel.report.document.figure_files`
    names for ``figure_stem``)."""
    out = []
    names = iter(name for name, _ in figure_files(blocks, figure_stem))
    for b in blocks:
        if isinstance(b, Heading):
            out.append("#" * b.level + " " + inline(b.text))
        elif isinstance(b, Para):
            out.append(inline(b.text))
        elif isinstance(b, Items):
            out.append("\n".join("- " + inline(it) for it in b.items))
        elif isinstance(b, Table):
            rows = ["| " + " | ".join(h.replace("|", "\\|") for h in b.header) + " |",
                    "|" + "---|" * len(b.header)]
            rows += ["| " + " | ".join(inline(c, in_table=True) for c in r) + " |" for r in b.rows]
            out.append("\n".join(rows))
        elif isinstance(b, StepBlock):
            out.append(_step(b))
        elif isinstance(b, Pre):
            out.append("```\n" + b.text.rstrip("\n") + "\n```")
        elif isinstance(b, Figure):
            out.append(f"![{_escape(b.caption)}]({next(names)})\n\n*Figure: {_escape(b.caption)}.*")
        else:  # pragma: no cover - every block type is handled above
            raise TypeError(f"unknown block {b!r}")
    return "\n\n".join(out) + "\n"
