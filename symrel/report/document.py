"""A small document model shared by the renderers.

The words of a report are written once (:mod:`symrel.report.proof_to_document`)
as a list of blocks; each back end (Markdown, LaTeX, HTML) only typesets them.
Inline text is a list of pieces: a plain ``str`` (escaped by the back end, with
rationals ``p/q`` typeset as fractions where the back end can), :class:`Code`
(a rule name, a file name) and :class:`Strong` (emphasis).

>>> doc = [Heading(1, ["Claim"]), Para(["x = ", Code("relu-fixed-sign"), " holds."])]
>>> plain_text(doc[1].text)
'x = relu-fixed-sign holds.'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Code:
    """Literal text set in a fixed-width font (rule names, files)."""

    text: str


@dataclass(frozen=True)
class Strong:
    """Emphasised text."""

    text: str


@dataclass(frozen=True)
class Link:
    """A link to another file of the report (``target`` is a relative path)."""

    text: str
    target: str


Inline = list  # of str | Code | Strong | Link


@dataclass
class Heading:
    level: int
    text: Inline
    anchor: str = ""


@dataclass
class Para:
    text: Inline


@dataclass
class Pre:
    """Preformatted text (a traceback, a command)."""

    text: str


@dataclass
class Items:
    """A bulleted list; each item is inline text."""

    items: list[Inline]


@dataclass
class Table:
    header: list[str]
    rows: list[list[Inline]]


@dataclass
class StepBlock:
    """One lemma of a proof: what is claimed, why it holds, what certifies it."""

    number: int
    lemma: Inline
    rule: str
    why: Inline
    certified: list[Inline]
    status: str
    note: Inline = field(default_factory=list)


def certificate_label(status: str) -> str:
    """How a step's data is introduced: it certifies a proved step, it is only a record otherwise."""
    return "Certified by" if status == "proved" else "Recorded"


@dataclass
class Figure:
    """A plot: PNG bytes embedded by the HTML back end, named by the others."""

    caption: str
    png: bytes


#: a fraction written as text: ``-3/4``, ``1/10^6`` (sign, numerator, denominator, optional
#: power of the denominator); integers are left as they are
FRACTION = re.compile(r"(?<![\w./])(-?)(\d+)/(\d+)(?:\^(\d+))?(?![\w/^]|\.\d)")


def plain_text(text: Inline) -> str:
    """Inline text without markup (for titles and tables of contents)."""
    return "".join(part if isinstance(part, str) else part.text for part in text)


def slug(text: str) -> str:
    """A file- and anchor-safe name: ``"Thm 3.1 (A)"`` -> ``"thm-3-1-a"``.

    >>> slug("Thm 3.1 (Paper A)")
    'thm-3-1-paper-a'
    """
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "item"
