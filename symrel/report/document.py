"""A small document model shared by the renderers.

The words of a report are written once (:mod:`symrel.report.proof_to_document`)
as a list of blocks; each back end (Markdown, LaTeX, HTML) only typesets them.
Inline text is a list of pieces: a plain ``str`` (escaped by the back end, with
rationals ``p/q`` typeset as fractions where the back end can, and the few
notations of :data:`MATH` and the spans ``$...$`` typeset as mathematics),
:class:`Code` (a rule name, a file name), :class:`Strong` (emphasis) and
:class:`Math` (TeX source: set by LaTeX itself, as MathML in HTML, between dollars
in Markdown).

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


@dataclass(frozen=True)
class Math:
    """Mathematics as TeX source (``\\mathbb{Q}^{d}``)."""

    tex: str


Inline = list  # of str | Code | Strong | Link | Math


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
    """A plot: PNG bytes, embedded in HTML; in LaTeX and Markdown included from a
    file beside the report (:func:`figure_files` names and lists them)."""

    caption: str
    png: bytes


def figure_files(blocks: list, stem: str) -> list[tuple[str, bytes]]:
    """``(file name, PNG bytes)`` of every figure of a document, in order: the
    files a LaTeX or Markdown report named ``stem.*`` includes."""
    figs = [b for b in blocks if isinstance(b, Figure)]
    return [(f"{stem}-figure-{k}.png", f.png) for k, f in enumerate(figs, 1)]


#: notations written as text that are typeset as mathematics (TeX replacement):
#: ``lambda = O(1/eps)``, ``ReLU(u) - ReLU(-u) = u``, ``A(x) = B(x)``, ``x in D``, boxes
#: ``[-1, 1] x [0, 1]``, Greek names, node variables ``y5``, ``Sigma_b``, ``Q^d``, ``R^d``,
#: ``[-1, 1]^2``, ``x_1``, ``y_12``; and the phrases of the provers' lemmas: the scores
#: ``<phi_q(x), phi_k(y)>``, ``beta u(x, y)``, ``score(y) <= score(z)``, ``R = L diag(D) L^T``,
#: ``|ReLU a - ReLU b| <= |a-b|``, the lattice form ``max_i min_(j in S_i) l_j``
_GREEK = {"lambda": r"\lambda", "eps": r"\varepsilon", "beta": r"\beta"}
def _operand(text: str) -> str:
    """One side of a relation written as text, as TeX (``e_lower`` -> ``e_{\\mathrm{lower}}``)."""
    core = text.strip()
    if core in _GREEK:
        core = _GREEK[core]
    elif core == "rank":
        core = r"\mathrm{rank}"
    elif "_" in core:
        base, sub = core.split("_", 1)
        core = base + "_{" + (sub if sub.isdigit() or len(sub) == 1 else r"\mathrm{" + sub + "}") + "}"
    return core + (" " if text.endswith(" ") else "")


_INTERVAL = r"\[-?[\w/]+, ?-?[\w/]+\]"
MATH = [
    (re.compile(r"<phi_q\(x\), phi_k\(y\)>"), lambda m: r"\langle \varphi_q(x), \varphi_k(y) \rangle"),
    (re.compile(r"\bbeta u\(x, y\)"), lambda m: r"\beta\, u(x, y)"),
    (re.compile(r"\bscore\(y\) <= score\(z\)"), lambda m: r"\mathrm{score}(y) \le \mathrm{score}(z)"),
    (re.compile(r"\bR = L diag\(D\) L\^T"), lambda m: r"R = L \operatorname{diag}(D) L^{\top}"),
    (re.compile(r"\|ReLU a - ReLU b\| <= \|a-b\|"), lambda m: r"|\mathrm{ReLU}(a) - \mathrm{ReLU}(b)| \le |a - b|"),
    (re.compile(r"\bmax_([a-z]) min_\(j in S_([a-z])\) l_j\b"), lambda m: rf"\max_{m.group(1)} \min_{{j \in S_{m.group(2)}}} l_j"),
    (re.compile(r"\b(lambda|beta) = O\(1/eps\)"), lambda m: _GREEK[m.group(1)] + r" = O(1/\varepsilon)"),
    (re.compile(r"\bO\(1/eps\)"), lambda m: r"O(1/\varepsilon)"),
    (re.compile(r"\bReLU\((-?\w)\) - ReLU\((-?\w)\) = (-?\w)\b"),
     lambda m: rf"\mathrm{{ReLU}}({m.group(1)}) - \mathrm{{ReLU}}({m.group(2)}) = {m.group(3)}"),
    (re.compile(r"\bmax\(-B, \.\.\.\)"), lambda m: r"\max(-B, \ldots)"),
    (re.compile(r"\bmax\(0, (-?\w)\)"), lambda m: r"\max(0, " + m.group(1) + ")"),
    (re.compile(r"\b([ABTN])\(x\) = ([ABTN])\(x\)"), lambda m: m.group(0)),
    (re.compile(r"\bx in D\b"), lambda m: r"x \in D"),
    (re.compile(r"(?<![\w\\])((?:[A-Za-z](?:_?\d+|_[a-z]+)?|rank|eps|lambda) )?(<=|>=) "
                r"(-?(?:\d+(?:[./]\d+)*|eps|lambda|[A-Za-z](?:_\d+|_[a-z]+)?))(?![\w(.])"),
     lambda m: _operand(m.group(1) or "") + (r"\le " if m.group(2) == "<=" else r"\ge ") + _operand(m.group(3))),
    (re.compile(_INTERVAL + r"(?: x " + _INTERVAL + ")+"), lambda m: m.group(0).replace(" x ", r" \times ")),
    (re.compile(r"(?<![\w\\])(lambda|eps|beta)\b"), lambda m: _GREEK[m.group(1)]),
    (re.compile(r"(?<![\w\\])y(\d+)\b"), lambda m: "y_{" + m.group(1) + "}"),
    (re.compile(r"\bSigma_(\w+)"), lambda m: r"\Sigma_{" + m.group(1) + "}"),
    (re.compile(r"\b([QR])\^(\w+)"), lambda m: r"\mathbb{" + m.group(1) + "}^{" + m.group(2) + "}"),
    (re.compile(r"(\[-?[\w/]+, ?-?[\w/]+\])\^(\w+)"), lambda m: m.group(1) + "^{" + m.group(2) + "}"),
    (re.compile(r"(?<![\w\\])([xy])_(\d+|[a-z])\b"), lambda m: m.group(1) + "_{" + m.group(2) + "}"),
]
_MATH_ANY = re.compile("|".join(f"(?:{p.pattern})" for p, _ in MATH))


_DOLLARS = re.compile(r"(?<!\\)\$([^$]+)(?<!\\)\$")


def split_math(text: str) -> list:
    """Plain text as pieces: ``str``, and :class:`Math` for each span ``$...$`` (TeX) and
    each notation of :data:`MATH`.

    >>> split_math("on [-1, 1]^2 in Q^d, Sigma_0 and x_1")
    ['on ', Math(tex='[-1, 1]^{2}'), ' in ', Math(tex='\\\\mathbb{Q}^{d}'), ', ', Math(tex='\\\\Sigma_{0}'), ' and ', Math(tex='x_{1}')]
    >>> split_math("so $A^{T} y = \\\\pm e_{i}$ holds")
    ['so ', Math(tex='A^{T} y = \\\\pm e_{i}'), ' holds']
    """
    out: list = []
    pos = 0
    for m in _DOLLARS.finditer(text):
        out += _split_notations(text[pos:m.start()])
        out.append(Math(m.group(1).strip()))
        pos = m.end()
    return out + _split_notations(text[pos:])


def _split_notations(text: str) -> list:
    out, pos = [], 0
    for m in _MATH_ANY.finditer(text):
        if m.start() > pos:
            out.append(text[pos:m.start()])
        token = m.group(0)
        for pat, rep in MATH:
            full = pat.fullmatch(token)
            if full:
                out.append(Math(pat.sub(rep, token)))
                break
        pos = m.end()
    if pos < len(text):
        out.append(text[pos:])
    return out


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
