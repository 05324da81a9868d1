"""Markdown read back into a document, so that a report written as Markdown can be typeset
as LaTeX or HTML too (``--report R.html`` of the commands whose reports are Markdown text).

The subset read is the one symrel's Markdown reports use: ``#`` headings, paragraphs,
``-`` lists (an indented item joins the one above), tables (``| a | b |`` rows with a
``|---|`` rule under the header), fenced (between lines of three backticks) and indented
(four spaces) code, and inline ``**strong**``, code between backticks and
``[text](target)``; mathematics between dollars
is kept for the back ends (:func:`~symrel.report.document.split_math`). Anything else is
text. Cost: linear in the text.

>>> doc = blocks_of_markdown("# Claim\\n\\nIt holds: **proved**, by `rule`.\\n\\n| a | b |\\n|---|---|\\n| 1 | 2 |\\n")
>>> [type(b).__name__ for b in doc]
['Heading', 'Para', 'Table']
>>> doc[1].text
['It holds: ', Strong(text='proved'), ', by ', Code(text='rule'), '.']
>>> doc[2].header, doc[2].rows
(['a', 'b'], [[['1'], ['2']]])
"""

from __future__ import annotations

import re

from .document import Code, Heading, Items, Link, Para, Pre, Strong, Table

_INLINE = re.compile(r"\*\*(.+?)\*\*|`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)")
_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def inline_of(text: str) -> list:
    """Inline Markdown as document pieces (``str``, :class:`Strong`, :class:`Code`, :class:`Link`)."""
    out, pos = [], 0
    for m in _INLINE.finditer(text):
        if m.start() > pos:
            out.append(_unescape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append(Strong(_unescape(m.group(1))))
        elif m.group(2) is not None:
            out.append(Code(m.group(2)))
        else:
            out.append(Link(_unescape(m.group(3)), m.group(4)))
        pos = m.end()
    if pos < len(text):
        out.append(_unescape(text[pos:]))
    return out


def _unescape(text: str) -> str:
    return re.sub(r"\\([\\*`|_\[\]])", r"\1", text)


def _cells(line: str) -> list[str]:
    core = line.strip()
    core = core[1:] if core.startswith("|") else core
    core = core[:-1] if core.endswith("|") and not core.endswith("\\|") else core
    return [c.strip() for c in re.split(r"(?<!\\)\|", core)]


def blocks_of_markdown(text: str) -> list:
    """The document a Markdown text describes (module docstring)."""
    lines = text.splitlines()
    blocks: list = []
    para: list[str] = []
    i = 0

    def flush():
        if para:
            blocks.append(Para(inline_of(" ".join(s.strip() for s in para))))
            para.clear()

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            flush()
            i += 1
        elif stripped.startswith("```"):
            flush()
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith("```"):
                j += 1
            blocks.append(Pre("\n".join(lines[i + 1:j])))
            i = j + 1
        elif line.startswith("    ") and not para:
            j = i
            while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
                j += 1
            blocks.append(Pre("\n".join(s[4:] for s in lines[i:j]).rstrip("\n")))
            i = j
        elif re.match(r"^#{1,6} ", stripped):
            flush()
            level = len(stripped) - len(stripped.lstrip("#"))
            blocks.append(Heading(level, inline_of(stripped[level:].strip())))
            i += 1
        elif stripped.startswith("|") and i + 1 < len(lines) and _RULE.match(lines[i + 1].strip()):
            flush()
            header = [_unescape(c) for c in _cells(stripped)]
            rows = []
            j = i + 2
            while j < len(lines) and lines[j].strip().startswith("|"):
                rows.append([inline_of(c) for c in _cells(lines[j])])
                j += 1
            blocks.append(Table(header, rows))
            i = j
        elif re.match(r"^[-*] ", stripped) and not line.startswith("  "):
            flush()
            items = []
            j = i
            while j < len(lines) and lines[j].strip() and (re.match(r"^[-*] ", lines[j]) or lines[j].startswith("  ")):
                entry = lines[j].strip()
                if re.match(r"^[-*] ", lines[j]):
                    items.append(entry[2:])
                else:   # an indented line continues the item above (a nested item is read into it)
                    items[-1] += " " + (entry[2:] if re.match(r"^[-*] ", entry) else entry)
                j += 1
            blocks.append(Items([inline_of(item) for item in items]))
            i = j
        else:
            para.append(line)
            i += 1
    flush()
    return blocks
