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
                       Strong, Table, figure_files, split_math)

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


def inline(text) -> str:
    out = []
    for part in text:
        if isinstance(part, str):
            out += [f"${p.tex}$" if isinstance(p, Math) else latex_text(p) for p in split_math(part)]
        elif isinstance(part, Math):
            out.append(f"${part.tex}$")
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
    cert = "\n".join(r"  \item " + inline(c) for c in b.certified)
    note = " " + inline(b.note) if b.note else ""
    return (
        f"\\begin{{lemma}}[\\texttt{{{_escape_chars(b.rule)}}}{status}]\n{inline(b.lemma)}\n\\end{{lemma}}\n"
        f"\\begin{{proof}}[{'Proof' if b.status == 'proved' else 'Status'}]\n{inline(b.why)}{note}\n"
        f"{certificate_label(b.status)}:\n\\begin{{itemize}}\n{cert}\n\\end{{itemize}}\n\\end{{proof}}"
    )


def _table(b: Table) -> str:
    """A longtable (it breaks across pages) whose columns share the text width and
    wrap their text, so no table runs off the page; the header repeats on every page."""
    n = max(len(b.header), 1)
    width = f"{(1 - 0.02 * n) / n:.3f}\\linewidth"
    spec = "|" + f">{{\\raggedright\\arraybackslash}}p{{{width}}}|" * n
    head = " & ".join(r"\textbf{" + latex_text(h) + "}" for h in b.header) + r" \\ \hline"
    rows = "\n".join(" & ".join(inline(c) for c in r) + r" \\ \hline" for r in b.rows)
    size = "\\small" if n <= 5 else ("\\footnotesize" if n <= 8 else "\\scriptsize")
    return (f"{{{size}\\setlength{{\\tabcolsep}}{{3pt}}\n\\begin{{longtable}}{{{spec}}}\\hline\n{head}\n\\endhead\n"
            f"{rows}\n\\end{{longtable}}}}")


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
