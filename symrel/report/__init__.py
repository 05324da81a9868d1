"""Reports of proofs: Markdown (default), LaTeX, self-contained HTML, JSON certificate.

Every report is built as one document (:mod:`symrel.report.proof_to_document`,
where the words are) and typeset by a back end (:mod:`~symrel.report.markdown`,
:mod:`~symrel.report.latex`, :mod:`~symrel.report.html`). The JSON form of a
proof is its certificate (:func:`symrel.certificates.io.certificate_of`).

>>> from symrel.certificates import Proof, Step, PROVED
>>> p = Proof("for all x in [0,1]: max(x, 0) = x", construction="an example construction")
>>> _ = p.add(Step("x >= 0 on [0,1]", "affine-bound-box", {"lower": 0, "upper": 1}, PROVED))
>>> text = render_proof(p, "md")
>>> "**Lemma 1** (proved, rule `affine-bound-box`). $x \\\\ge 0$ on [0,1]" in text
True
>>> "- $\\\\mathrm{lower} = 0$" in text
True
>>> "\\\\begin{lemma}" in render_proof(p, "tex")
True
"""

from __future__ import annotations

from .document import Figure
from .html import html_of
from .latex import latex_of
from .markdown import markdown_of
from .proof_to_document import glossary_blocks, index_blocks, outcome_blocks, proof_blocks
from .statement import Instance, Outcome, Statement

#: report formats, by file extension
FORMATS = ("md", "tex", "html", "json")


#: file extensions of the report formats
EXTENSIONS = {".md": "md", ".markdown": "md", ".tex": "tex", ".html": "html", ".htm": "html", ".json": "json"}


def report_format(path, option: str = "--report", allowed=FORMATS) -> str:
    """The report format a file name asks for, by its extension (``r.tex`` -> ``tex``);
    an unknown or disallowed extension is an :class:`~symrel.errors.InputError`.

    >>> report_format("proof.tex"), report_format("out/R.HTML")
    ('tex', 'html')
    """
    import os

    from ..errors import InputError

    ext = os.path.splitext(os.fspath(path))[1].lower()
    fmt = EXTENSIONS.get(ext)
    if fmt is None or fmt not in allowed:
        names = ", ".join(e for e, f in EXTENSIONS.items() if f in allowed)
        raise InputError(f"expected a report file ending in {names}, got {os.fspath(path)!r}", path=option)
    return fmt


def _typeset(blocks: list, fmt: str, title: str, figure_stem: str = "report") -> str:
    if fmt == "md":
        return markdown_of(blocks, figure_stem=figure_stem)
    if fmt == "tex":
        return latex_of(blocks, title=title, figure_stem=figure_stem)
    if fmt == "html":
        return html_of(blocks, title=title)
    from ..errors import InputError

    raise InputError(f"expected one of md, tex, html, json, got {fmt!r}", path="--format")


def render_proof(proof, fmt: str = "md", title: str = "") -> str:
    """One proof as a report in ``fmt`` (``json``: its certificate, proved claims only)."""
    if fmt == "json":
        from ..fileformat import canonical_dumps
        from ..certificates.io import certificate_of
        from ..checking import stated

        return canonical_dumps(stated(certificate_of(proof)))
    from .document import Heading

    title = title or proof.claim
    body = proof_blocks(proof)
    return _typeset([Heading(1, [title])] + body + glossary_blocks(body), fmt, title)


def write_markdown_report(path, markdown: str, title: str, proof=None, data=None) -> str:
    """Write a command's report, written as Markdown text, in the format the extension of
    ``path`` names (:func:`report_format`): ``.md`` the text, ``.tex`` and ``.html`` typeset from
    it (:mod:`~symrel.report.markdown_in`), ``.json`` the certificate of ``proof`` (a proved
    claim only; nothing is written otherwise) or, without a proof, ``data``. Returns what was
    done, in words, for standard error."""
    from ..fileformat.jsonio import write_text_atomic

    fmt = report_format(path)
    if fmt != "json":
        from .markdown_in import blocks_of_markdown

        write_text_atomic(path, markdown if fmt == "md" else _typeset(blocks_of_markdown(markdown), fmt, title))
        return f"report written to {path}"
    if proof is None:
        from ..fileformat import canonical_dumps

        write_text_atomic(path, canonical_dumps(data))
        return f"report (the JSON summary) written to {path}"
    if proof.result != "proved":
        return f"no report written to {path}: a {proof.result} claim has no certificate; ask for .md, .tex or .html"
    write_text_atomic(path, render_proof(proof, "json"))
    return f"report (the certificate) written to {path}"


def render_outcome(outcome: Outcome, fmt: str = "md", figure_stem: str = "") -> str:
    """The report of one statement (all its instances) in ``md``, ``tex`` or ``html``;
    LaTeX and Markdown include their figures from ``outcome_figures`` files."""
    return _typeset(outcome_blocks(outcome), fmt, outcome.statement.heading, figure_stem or outcome.statement.key)


def outcome_figures(outcome: Outcome) -> list:
    """``(file name, PNG bytes)`` of the figures a LaTeX or Markdown report of
    ``outcome`` includes (write them beside it)."""
    from .document import figure_files

    return figure_files(outcome_blocks(outcome), outcome.statement.key)


def render_index(outcomes: list, formats: list, seconds: float, fmt: str = "md") -> str:
    """The index of a run of ``symrel proofs`` in ``md`` or ``html``."""
    return _typeset(index_blocks(outcomes, formats, seconds), fmt, "symrel proofs")


__all__ = ["EXTENSIONS", "FORMATS", "Figure", "Instance", "Outcome", "Statement", "outcome_figures", "render_proof",
           "render_outcome", "render_index", "report_format", "write_markdown_report"]
