"""Documents as a standalone LaTeX file that compiles with pdflatex.

Each step of a proof is a numbered lemma (amsthm) whose proof says why it holds
and summarises its certificate. Rationals ``p/q`` in the text are typeset as
``\\frac{p}{q}``; ``<=`` and ``>=`` as relations; the other LaTeX specials and the
usual Unicode symbols are escaped, so any lemma text a prover writes compiles.

>>> latex_text("x <= -3/4 and y_1 = 1/2 & 50%")
'x $\\\\le$ $-\\\\frac{3}{4}$ and y\\\\_1 = $\\\\frac{1}{2}$ \\\\& 50\\\\%'
"""

from __future__ import annotations

import re

from .document import (FRACTION, Code, certificate_label, Figure, Heading, Items, Link, Math, Para, Pre, StepBlock,
                       Strong, Table, figure_files, plain_text, split_math)

_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "%": r"\%",
    "_": r"\_",
    "^": r"\textasciicircum{}",
    "~": r"\textasciitilde{}",
}
_UNICODE = {
    "≤": r"$\le$", "≥": r"$\ge$", "≠": r"$\ne$", "∈": r"$\in$", "×": r"$\times$", "→": r"$\to$",
    "←": r"$\leftarrow$", "∀": r"$\forall$", "∃": r"$\exists$", "−": "-", "–": "--", "—": "---",
    "…": r"\dots{}", "·": r"$\cdot$", "λ": r"$\lambda$", "β": r"$\beta$", "ε": r"$\varepsilon$",
    "η": r"$\eta$", "δ": r"$\delta$", "φ": r"$\varphi$", "ψ": r"$\psi$", "σ": r"$\sigma$",
    "Φ": r"$\Phi$", "∞": r"$\infty$", "⊆": r"$\subseteq$", "∩": r"$\cap$", "∪": r"$\cup$",
    "ᵀ": r"$^{T}$", "²": r"$^{2}$", "≈": r"$\approx$", "√": r"$\surd$", "⟨": r"$\langle$",
    "⟩": r"$\rangle$", "\u00a0": "~", "“": "``", "”": "''", "’": "'", "‘": "`", "±": r"$\pm$",
}
_RELATIONS = re.compile(r"<=|>=|!=|<|>|\|")
_RELATION_TEX = {"<=": r"$\le$", ">=": r"$\ge$", "!=": r"$\ne$", "<": r"$<$", ">": r"$>$", "|": r"$|$"}
_STATUS = {"proved": "proved", "open": r"\textbf{open}", "refuted": r"\textbf{refuted}"}


def _escape_chars(text: str) -> str:
    out = []
    for ch in text:
        if ch in _SPECIALS:
            out.append(_SPECIALS[ch])
        elif ch in _UNICODE:
            out.append(_UNICODE[ch])
        elif ord(ch) > 127:
            out.append(f"[U+{ord(ch):04X}]")
        else:
            out.append(ch)
    return "".join(out)


def _frac(m: re.Match) -> str:
    sign, p, q, power = m.groups()
    q = f"{q}^{{{power}}}" if power else q
    return f"${sign}\\frac{{{p}}}{{{q}}}$"


def latex_text(text: str) -> str:
    """Plain text as LaTeX: specials escaped, rationals as fractions, relations as math."""
    pieces = []
    pos = 0
    pattern = re.compile(f"{FRACTION.pattern}|{_RELATIONS.pattern}")
    for m in pattern.finditer(text):
        pieces.append(_escape_chars(text[pos:m.start()]))
        token = m.group(0)
        pieces.append(_RELATION_TEX[token] if token in _RELATION_TEX else _frac(FRACTION.match(token)))
        pos = m.end()
    pieces.append(_escape_chars(text[pos:]))
    return "".join(pieces)


def _inline_math(tex: str) -> str:
    """``$tex$``, breakable after each comma (a long vector of rationals wraps instead of
    running past the margin).

    >>> print(_inline_math("x = (1, 2)"))
    $x = (1,\\allowbreak 2)$
    """
    return "$" + tex.replace(", ", ",\\allowbreak ") + "$"


def inline(text) -> str:
    out = []
    for part in text:
        if isinstance(part, str):
            out += [_inline_math(p.tex) if isinstance(p, Math) else latex_text(p) for p in split_math(part)]
        elif isinstance(part, Math):
            out.append(_inline_math(part.tex))
        elif isinstance(part, Code):
            out.append(r"\texttt{" + _escape_chars(part.text).replace("-", "-\\allowbreak{}") + "}")
        elif isinstance(part, Strong):
            out.append(r"\textbf{" + latex_text(part.text) + "}")
        elif isinstance(part, Link):
            out.append(r"\texttt{" + _escape_chars(part.target) + "}")
        else:
            out.append(latex_text(str(part)))
    return "".join(out)


def _step(b: StepBlock) -> str:
    status = "" if b.status == "proved" else f" ({_STATUS.get(b.status, b.status)})"
    label = "" if b.status == "proved" else f"{certificate_label(b.status)}:\n"
    cert = ("\n" + label + "\\begin{itemize}\n" + "\n".join(r"  \item " + inline(c) for c in b.certified)
            + "\n\\end{itemize}") if b.certified else ""
    return (
        f"\\begin{{lemma}}[\\texttt{{{_escape_chars(b.rule)}}}{status}]\n{inline(b.lemma)}\n\\end{{lemma}}\n"
        f"\\begin{{proof}}[{'Proof' if b.status == 'proved' else 'Status'}]\n{inline(b.why) or 'By the rule ' + inline([Code(b.rule)]) + ' (glossary).'}"
        f"{cert}\n\\end{{proof}}"
    )


def _table(b: Table) -> str:
    """A longtable (it breaks across pages) whose columns share the text width and
    wrap their text, so no table runs off the page; the header repeats on every page.

    Each column gets at least the width of its longest unbreakable piece and a share of
    the rest in proportion to its longest cell (:func:`column_widths`); the first word of
    a cell may be hyphenated (``\\hspace{0pt}``), text breaks after ``.``, ``[``, ``(``
    and ``,``, and long rationals are written ``p/q`` with a break after the slash."""
    n = max(len(b.header), 1)
    cells = [[_plain(h) for h in b.header]] + [[_plain(c) for c in r] for r in b.rows]
    share = 1 - n * (2 * _TABCOLSEP + 0.4) / _LINE_PT
    # the font: by the number of columns, smaller still while the unbreakable pieces do not fit
    first = 0 if n <= 5 else (1 if n <= 8 else 2)
    needed = sum(max(max(_pieces(row[i])) for row in cells if i < len(row)) + 1 for i in range(n))
    k = next((k for k in range(first, len(_SIZES)) if needed * _SIZES[k][1] <= share * _LINE_PT), len(_SIZES) - 1)
    size, em = _SIZES[k]
    widths = column_widths(cells, n, capacity=share * _LINE_PT / em)
    spec = "|" + "".join(f">{{\\raggedright\\arraybackslash\\hspace{{0pt}}}}p{{{share * w:.3f}\\linewidth}}|" for w in widths)
    head = " & ".join(r"\textbf{" + _breakable(latex_text(h)) + "}" for h in b.header) + r" \\ \hline"
    rows = "\n".join(" & ".join(_cell(c) for c in r) + r" \\ \hline" for r in b.rows)
    return (f"{{{size}\\setlength{{\\tabcolsep}}{{{_TABCOLSEP:g}pt}}\n\\begin{{longtable}}{{{spec}}}\\hline\n{head}\n"
            f"\\endhead\n{rows}\n\\end{{longtable}}}}")


#: the text width of the document (a4 paper, 2.2 cm margins) and the table column padding, in pt
_LINE_PT, _TABCOLSEP = 470.0, 3.0
#: the table fonts, largest first, with a generous width of one character (bold header text), in pt
_SIZES = (("\\small", 5.6), ("\\footnotesize", 5.1), ("\\scriptsize", 4.6), ("\\tiny", 3.7))
#: digits from which a rational in a table cell is written p/q (breakable) rather than as \frac
_LONG_FRACTION = 7


def _plain(cell) -> str:
    return cell if isinstance(cell, str) else plain_text(cell)


def _pieces(text: str) -> list[int]:
    """The lengths (in characters) of the pieces of ``text`` that cannot be broken: words
    split at spaces and after ``. [ ( , / -``; a short fraction counts as its longer part."""
    out = []
    for word in re.split(r"\s+|(?<=[.\[(,/-])", text):
        m = FRACTION.fullmatch(word)
        if m and len(m.group(2)) + len(m.group(3)) < _LONG_FRACTION:
            out.append(max(len(m.group(1) + m.group(2)), len(m.group(3))))
        elif word:
            out.append(len(word))
    return out or [0]


def column_widths(cells: list[list[str]], n: int, capacity: float) -> list[float]:
    """Fractions of the table width (summing to 1) for ``n`` columns whose cells are
    ``cells`` (header row first), for a line of ``capacity`` characters.

    A column needs its longest unbreakable piece and wants its longest cell (at most 40
    characters); when all the wants fit they share the line in proportion, otherwise each
    column gets its need plus a common fraction of the rest of its want (or, when even
    the needs do not fit, widths in proportion to the needs). Cost: linear in the text.

    >>> [round(w, 2) for w in column_widths([["#", "counterexample"], ["1", "no"]], 2, 60)]
    [0.12, 0.88]
    """
    need, want = [1.0] * n, [1.0] * n
    for row in cells:
        for i, text in enumerate(row[:n]):
            need[i] = max(need[i], max(_pieces(text)) + 1)
            want[i] = max(want[i], min(len(text), 40) + 1)
    want = [max(w, d) for w, d in zip(want, need)]
    if sum(want) <= capacity or sum(need) >= capacity:
        base = want if sum(want) <= capacity else need
        return [w / sum(base) for w in base]
    t = (capacity - sum(need)) / (sum(want) - sum(need))
    widths = [d + t * (w - d) for d, w in zip(need, want)]
    return [w / sum(widths) for w in widths]


_BREAK_AFTER = re.compile(r"([.\[(,])")


def _breakable(tex: str) -> str:
    """``tex`` with line breaks allowed after ``. [ ( ,`` outside math and commands."""
    parts = re.split(r"(?<!\\)\$", tex)  # a dollar that is not escaped opens or closes math
    for k in range(0, len(parts), 2):  # the even parts are text, the odd ones math
        parts[k] = _BREAK_AFTER.sub(lambda m: m.group(1) + "\\allowbreak{}", parts[k])
    return "$".join(parts)


def _long_fraction(m: re.Match) -> str:
    sign, p, q, power = m.groups()
    if power or len(p) + len(q) < _LONG_FRACTION:
        return m.group(0)
    return f"{sign}{p}/\\allowbreak{{}}{q}"


def _cell(cell) -> str:
    """A table cell: as :func:`inline`, with long rationals ``p/q`` and break points."""
    if isinstance(cell, str):
        cell = [cell]
    parts = []
    for part in cell:
        if isinstance(part, str):
            marked = FRACTION.sub(lambda m: _long_fraction(m).replace("/\\allowbreak{}", "\x00"), part)
            parts.append(_breakable(inline([marked])).replace("\x00", "/\\allowbreak{}"))
        else:
            parts.append(inline([part]))
    return "".join(parts)


_SECTION = {1: "section*", 2: "section", 3: "subsection*", 4: "paragraph*"}


def latex_of(blocks: list, title: str = "symrel report", figure_stem: str = "report") -> str:
    """A complete LaTeX document (article class, amsthm lemmas). Figures are
    included from the files :func:`~symrel.report.document.figure_files` names
    for ``figure_stem`` (written beside the .tex file); a missing file is said,
    not an error."""
    body = []
    names = iter(name for name, _ in figure_files(blocks, figure_stem))
    for b in blocks:
        if isinstance(b, Heading):
            if b.level == 1:
                continue  # the first heading is the title
            body.append(f"\\{_SECTION.get(b.level, 'paragraph*')}{{{inline(b.text)}}}")
        elif isinstance(b, Para):
            body.append(inline(b.text))
        elif isinstance(b, Items):
            if b.items:
                body.append("\\begin{itemize}\n" + "\n".join(r"\item " + inline(it) for it in b.items) + "\n\\end{itemize}")
        elif isinstance(b, Table):
            body.append(_table(b))
        elif isinstance(b, StepBlock):
            body.append(_step(b))
        elif isinstance(b, Pre):
            body.append("\\begin{verbatim}\n" + b.text.encode("ascii", "replace").decode().rstrip("\n") + "\n\\end{verbatim}")
        elif isinstance(b, Figure):
            name = next(names)
            body.append("\\begin{figure}[htbp]\\centering\n"
                        f"\\IfFileExists{{{name}}}{{\\includegraphics[width=0.8\\linewidth]{{{name}}}}}"
                        f"{{\\fbox{{figure file {_escape_chars(name)} not found}}}}\n"
                        f"\\caption{{{latex_text(b.caption)}}}\n\\end{{figure}}")
        else:  # pragma: no cover
            raise TypeError(f"unknown block {b!r}")
    return (
        "\\documentclass[11pt]{article}\n"
        "\\usepackage[utf8]{inputenc}\n"
        "\\usepackage{amsmath,amssymb,amsthm,graphicx,longtable,array}\n\\usepackage[margin=2.2cm]{geometry}\n"
        "\\newtheorem{lemma}{Lemma}[section]\n\\sloppy\n\\setlength{\\parindent}{0pt}\n\\setlength{\\parskip}{0.6ex}\n"
        f"\\title{{{latex_text(title)}}}\n\\author{{checked by symrel}}\n\\date{{}}\n"
        "\\begin{document}\n\\maketitle\n\n" + "\n\n".join(body) + "\n\n\\end{document}\n"
    )
