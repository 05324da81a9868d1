"""Documents as one self-contained HTML file: inline style, mathematics as MathML
(:mod:`~symrel.report.mathml`), plots as base64 PNG; the page fetches nothing.

>>> from symrel.report.document import Para
>>> "<sup>3</sup>&frasl;<sub>4</sub>" in html_of([Para(["x is at most 3/4"])], title="t")
True
>>> "<mfrac><mn>3</mn><mn>4</mn></mfrac>" in html_of([Para(["$x \\\\le \\\\frac{3}{4}$"])], title="t")
True
"""

from __future__ import annotations

import base64
import html as _html

from .mathml import mathml_of
from .document import FRACTION, Code, certificate_label, Figure, Heading, Items, Link, Math, Para, Pre, StepBlock, Strong, Table, split_math



_STYLE = """
body { font-family: Georgia, 'Times New Roman', serif; max-width: 58em; margin: 2em auto; padding: 0 1em;
       line-height: 1.45; color: #111; }
h1 { font-size: 1.6em; } h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
code { font-family: Menlo, Consolas, monospace; font-size: 0.88em; background: #f3f3f3; padding: 0 0.2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; display: block; max-width: 100%; overflow-x: auto; }
td, th { border: 1px solid #bbb; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #eee; }
.frac sup, .frac sub { font-size: 0.75em; }
.step { border-left: 4px solid #3a7; padding: 0.3em 0.8em; margin: 0.8em 0; background: #fafafa; }
.step.open { border-color: #d90; } .step.refuted { border-color: #c33; }
.step .head { font-weight: bold; } .step ul { margin: 0.2em 0; }
.status-proved { color: #286; } .status-open { color: #a60; } .status-refuted { color: #b22; }
pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; }
figure img { max-width: 100%; }
math { font-size: 1.12em; } .step li { margin: 0.15em 0; }
"""


def html_text(text: str) -> str:
    """Escape ``text``; rationals ``p/q`` become small stacked fractions."""
    out, pos = [], 0
    for m in FRACTION.finditer(text):
        sign, p, q, power = m.groups()
        q = f"{q}<sup>{power}</sup>" if power else q
        out.append(_html.escape(text[pos:m.start()]))
        out.append(f'<span class="frac">{"&minus;" if sign else ""}<sup>{p}</sup>&frasl;<sub>{q}</sub></span>')
        pos = m.end()
    out.append(_html.escape(text[pos:]))
    return "".join(out)


def inline(text) -> str:
    out = []
    for part in text:
        if isinstance(part, str):
            out += [_math(p) if isinstance(p, Math) else html_text(p) for p in split_math(part)]
        elif isinstance(part, Math):
            out.append(_math(part))
        elif isinstance(part, Code):
            out.append(f"<code>{_html.escape(part.text)}</code>")
        elif isinstance(part, Strong):
            out.append(f"<strong>{html_text(part.text)}</strong>")
        elif isinstance(part, Link):
            out.append(f'<a href="{_html.escape(part.target, quote=True)}">{_html.escape(part.text)}</a>')
        else:
            out.append(html_text(str(part)))
    return "".join(out)


def _math(m: Math) -> str:
    return mathml_of(m.tex)


def _step(b: StepBlock) -> str:
    label = "" if b.status == "proved" else f"<em>{certificate_label(b.status)}:</em>"
    cert = f"<div>{label}<ul>" + "".join(f"<li>{inline(c)}</li>" for c in b.certified) + "</ul></div>" if b.certified else ""
    why = f"<p>{inline(b.why)}</p>" if b.why else ""
    return (
        f'<div class="step {b.status}"><div class="head">Lemma {b.number} '
        f'<span class="status-{b.status}">({b.status})</span>, rule <a href="#glossary"><code>{_html.escape(b.rule)}</code></a>.</div>'
        f"<p>{inline(b.lemma)}</p>{why}{cert}</div>"
    )


def html_of(blocks: list, title: str = "symrel report") -> str:
    """A complete HTML page; figures are embedded, so the file stands alone."""
    body = []
    for b in blocks:
        if isinstance(b, Heading):
            anchor = f' id="{_html.escape(b.anchor, quote=True)}"' if b.anchor else ""
            body.append(f"<h{b.level}{anchor}>{inline(b.text)}</h{b.level}>")
        elif isinstance(b, Para):
            body.append(f"<p>{inline(b.text)}</p>")
        elif isinstance(b, Items):
            body.append("<ul>" + "".join(f"<li>{inline(it)}</li>" for it in b.items) + "</ul>")
        elif isinstance(b, Table):
            head = "".join(f"<th>{_html.escape(h)}</th>" for h in b.header)
            rows = "".join("<tr>" + "".join(f"<td>{inline(c)}</td>" for c in r) + "</tr>" for r in b.rows)
            body.append(f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>")
        elif isinstance(b, StepBlock):
            body.append(_step(b))
        elif isinstance(b, Pre):
            body.append(f"<pre>{_html.escape(b.text)}</pre>")
        elif isinstance(b, Figure):
            data = base64.b64encode(b.png).decode("ascii")
            body.append(f'<figure><img alt="{_html.escape(b.caption, quote=True)}" src="data:image/png;base64,{data}">'
                        f"<figcaption>{html_text(b.caption)}</figcaption></figure>")
        else:  # pragma: no cover
            raise TypeError(f"unknown block {b!r}")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_html.escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body) + "\n</body>\n</html>\n"
    )
