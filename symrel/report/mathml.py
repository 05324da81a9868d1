"""The TeX of a report as MathML, so an HTML report shows its mathematics offline.

Reports write their mathematics once, as TeX (:class:`~symrel.report.document.Math`).
LaTeX and Markdown keep the TeX; HTML embeds MathML, which browsers render natively
(MathML Core), so the page fetches nothing. This module reads the small part of TeX
that reports write: letters, numbers and operators, groups ``{...}``, sub- and
superscripts, ``\\frac``, ``\\mathbb``, ``\\mathrm``/``\\operatorname``/``\\text``, Greek
letters, relations and a few symbols (:data:`SYMBOLS`), ``\\left``/``\\right`` and
spaces. An unknown command is shown by its name, never dropped. Cost: linear in the
length of the TeX.

>>> mathml_of(r"x_{1} \\le \\frac{3}{4}")
'<math alttext="x_{1} \\\\le \\\\frac{3}{4}"><msub><mi>x</mi><mn>1</mn></msub><mo>≤</mo><mfrac><mn>3</mn><mn>4</mn></mfrac></math>'
>>> mathml_of(r"\\mathbb{Q}^{d}")
'<math alttext="\\\\mathbb{Q}^{d}"><msup><mi>ℚ</mi><mi>d</mi></msup></math>'
"""

from __future__ import annotations

import html as _html
import re

#: Greek letters and symbols: TeX command -> (MathML element, text)
SYMBOLS = {
    **{name: ("mi", ch) for name, ch in zip(
        "alpha beta gamma delta epsilon varepsilon zeta eta theta lambda mu nu xi pi rho sigma tau phi varphi "
        "chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega".split(),
        "αβγδϵεζηθλμνξπρστϕφχψωΓΔΘΛΞΠΣΦΨΩ")},
    "le": ("mo", "≤"), "leq": ("mo", "≤"), "ge": ("mo", "≥"), "geq": ("mo", "≥"), "ne": ("mo", "≠"),
    "neq": ("mo", "≠"), "in": ("mo", "∈"), "notin": ("mo", "∉"), "times": ("mo", "×"), "cdot": ("mo", "⋅"),
    "pm": ("mo", "±"), "mp": ("mo", "∓"), "to": ("mo", "→"), "mapsto": ("mo", "↦"), "ldots": ("mo", "…"),
    "dots": ("mo", "…"), "cdots": ("mo", "⋯"), "infty": ("mi", "∞"), "subseteq": ("mo", "⊆"),
    "subset": ("mo", "⊂"), "cap": ("mo", "∩"), "cup": ("mo", "∪"), "forall": ("mo", "∀"), "exists": ("mo", "∃"),
    "mid": ("mo", "|"), "{": ("mo", "{"), "}": ("mo", "}"), "lvert": ("mo", "|"), "rvert": ("mo", "|"),
    "langle": ("mo", "⟨"), "rangle": ("mo", "⟩"), "approx": ("mo", "≈"), "sum": ("mo", "∑"), "prod": ("mo", "∏"),
    "top": ("mi", "⊤"), "Rightarrow": ("mo", "⇒"), "iff": ("mo", "⟺"), "implies": ("mo", "⟹"),
    "setminus": ("mo", "∖"), "emptyset": ("mi", "∅"), "lfloor": ("mo", "⌊"), "rfloor": ("mo", "⌋"),
    "lceil": ("mo", "⌈"), "rceil": ("mo", "⌉"), "|": ("mo", "‖"), "prec": ("mo", "≺"), "preceq": ("mo", "≼"),
    "sim": ("mo", "∼"), "circ": ("mo", "∘"), "star": ("mo", "⋆"), "ast": ("mo", "∗"),
}
#: operator names set upright
NAMES = {"max", "min", "sup", "inf", "ln", "log", "exp", "sin", "cos", "argmax", "argmin", "deg", "det", "dim"}
#: spacing commands -> width in em
SPACES = {",": 0.17, ":": 0.22, ";": 0.28, " ": 0.33, "quad": 1.0, "qquad": 2.0, "!": 0.0}
_DOUBLE_STRUCK = {"Q": "ℚ", "R": "ℝ", "N": "ℕ", "Z": "ℤ", "C": "ℂ", "P": "ℙ", "E": "𝔼"}
#: tokens after which a minus is a sign, not a subtraction
_OPENS = {"(", "[", "{", ",", "=", "<", ">", "|", ";", ":", "\\le", "\\ge", "\\in", "\\quad", "\\pm", "\\times", "\\cdot", "+"}
_TOKEN = re.compile(r"\\([A-Za-z]+|.)|(\d+(?:\.\d+)?)|([A-Za-z])|(\s+)|(.)", re.S)


def _esc(text: str) -> str:
    return _html.escape(text, quote=False)


class _Reader:
    def __init__(self, tex: str):
        self.tex = tex
        self.previous = ""  # the last token read by row(): a minus after an opening is a sign
        self.tokens = [m for m in _TOKEN.finditer(tex) if not m.group(4)]
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self):
        tok = self.peek()
        self.pos += 1
        return tok

    def group_text(self) -> str:
        """The raw text of the next ``{...}`` group (for ``\\text`` and ``\\mathrm``)."""
        tok = self.take()
        if tok is None or tok.group(0) != "{":
            return tok.group(0) if tok is not None else ""
        depth, end = 1, tok.end()
        while depth and end < len(self.tex):
            depth += (self.tex[end] == "{") - (self.tex[end] == "}")
            end += 1
        while self.peek() is not None and self.peek().start() < end:
            self.pos += 1
        return self.tex[tok.end():end - 1]

    def row(self, stop: str | None = None) -> list[str]:
        """Elements up to ``stop`` (``}``) or the end."""
        items: list[str] = []
        while self.peek() is not None:
            if stop is not None and self.peek().group(0) == stop:
                self.take()
                break
            tok = self.peek().group(0)
            if tok in ("_", "^"):
                self.take()
                base = items.pop() if items else "<mrow></mrow>"
                script = self.atom()
                nxt = self.peek()
                other = "^" if tok == "_" else "_"
                if nxt is not None and nxt.group(0) == other:
                    self.take()
                    second = self.atom()
                    sub, sup = (script, second) if tok == "_" else (second, script)
                    items.append(f"<msubsup>{base}{sub}{sup}</msubsup>")
                else:
                    kind = "msub" if tok == "_" else "msup"
                    items.append(f"<{kind}>{base}{script}</{kind}>")
                continue
            unary = tok == "-" and (not items or self.previous in _OPENS)
            self.previous = tok
            element = self.atom()
            if unary:
                element = '<mo form="prefix" lspace="0" rspace="0">−</mo>'
            if element:
                items.append(element)
        return items

    def atom(self) -> str:
        """One element: a group, a command with its arguments, a number, a letter or an operator."""
        tok = self.take()
        if tok is None:
            return "<mrow></mrow>"
        command, number, letter, _, other = tok.groups()
        if number is not None:
            return f"<mn>{number}</mn>"
        if letter is not None:
            return f"<mi>{letter}</mi>"
        if other is not None:
            if other == "{":
                inner = self.row("}")
                return inner[0] if len(inner) == 1 else "<mrow>" + "".join(inner) + "</mrow>"
            if other == "}":
                return ""
            if other == "-":
                return "<mo>−</mo>"
            if other == "|":
                return '<mo stretchy="false" lspace="0.1em" rspace="0.1em">|</mo>'
            if other == "'":
                return "<mo>′</mo>"
            if other in "()[]":  # brackets sit in a flat row, where they would get an operator's spacing
                return f'<mo stretchy="false" lspace="0" rspace="0">{other}</mo>'
            if other in ",;":
                return f'<mo lspace="0" rspace="0.17em">{other}</mo>'
            return f"<mo>{_esc(other)}</mo>"
        return self.command(command)

    def command(self, name: str) -> str:
        if name == "frac":
            num, den = self.atom(), self.atom()
            return f"<mfrac>{num}{den}</mfrac>"
        if name == "sqrt":
            return f"<msqrt>{self.atom()}</msqrt>"
        if name == "mathbb":
            text = self.group_text()
            return f"<mi>{''.join(_DOUBLE_STRUCK.get(c, c) for c in text)}</mi>"
        if name in ("mathrm", "operatorname", "mathsf", "textrm"):
            return f'<mi mathvariant="normal">{_esc(self.group_text())}</mi>'
        if name in ("text", "mbox", "textit"):  # spaces at the ends are kept (MathML would trim them)
            text = self.group_text()
            stripped = text.strip(" ")
            lead, trail = text[:len(text) - len(text.lstrip(" "))], text[len(stripped) + len(text) - len(text.lstrip(" ")):]
            return f"<mtext>{chr(160) * len(lead)}{_esc(stripped)}{chr(160) * len(trail)}</mtext>"
        if name in ("mathbf", "boldsymbol"):
            return f'<mi mathvariant="bold">{_esc(self.group_text())}</mi>'
        if name in ("left", "right", "big", "Big", "bigl", "bigr", "displaystyle"):
            return ""
        if name in SPACES:
            return f'<mspace width="{SPACES[name]}em"></mspace>'
        if name in NAMES:
            return f'<mi mathvariant="normal">{name}</mi>' if len(name) == 1 else f"<mi>{name}</mi>"
        if name in SYMBOLS:
            kind, ch = SYMBOLS[name]
            return f"<{kind}>{_esc(ch)}</{kind}>"
        return f'<mi mathvariant="normal">{_esc(name)}</mi>'  # unknown: shown by name


def mathml_of(tex: str) -> str:
    """Inline MathML for ``tex`` (the TeX source kept in ``alttext``)."""
    body = "".join(_Reader(tex).row())
    return f'<math alttext="{_html.escape(tex, quote=True)}">{body}</math>'


__all__ = ["mathml_of", "SYMBOLS"]
