"""Reports of proofs: Markdown (default), LaTeX, self-contained HTML, JSON certificate.

Every report is built as one document (:mod:`symrel.report.proof_to_document`,
where the words are) and typeset by a back end (:mod:`~symrel.report.markdown`,
:mod:`~symrel.report.latex`, :mod:`~symrel.report.html`). The JSON form of a
proof is its certificate (:func:`symrel.certificates.io.certificate_of`).

>>> from symrel.certificates import Proof, Step, PROVED
>>> p = Proof("for all x in [0,1]: max(x, 0) = x", construction="an example construction")
>>> _ = p.add(Step("x >= 0 on [0,1]", "affine-bound-box", {"lower": 0, "upper": 1}, PROVED))
>>> text = render_proof(p, "md")
>>> "**Lemma 1** (proved, rule `affine-bound-box`). x >= 0 on [0,1]" in text
True
>>> "\\\\begin{lemma}" in render_proof(p, "tex")
True
"""

from __future__ import annotations

from .document import Figure
from .html import html_of
from .latex import latex_of
from .markdown import markdown_of
from .proof_to_document import index_blocks, outcome_blocks, proof_blocks
from .statement import Instance, Outcome, Statement

#: report formats, by file extension
FORMATS = ("md", "tex", "html", "json")


def _typeset(blocks: list, fmt: str, title: str) -> str:
    if fmt == "md":
        return markdown_of(blocks)
    if fmt == "tex":
        return latex_of(blocks, title=title)
    if fmt == "html":
        return html_of(blocks, title=title)
    from ..errors import InputError

    raise InputError(f"expected one of md, tex, html, json, got {fmt!r}", path="--format")


def render_proof(proof, fmt: str = "md", title: str = "") -> str:
    """One proof as a report in ``fmt`` (``json``: its certificate, proved claims only)."""
    if fmt == "json":
        from ..fileformat import canonical_dumps
        from ..certificates.io import certificate_of

        return canonical_dumps(certificate_of(proof))
    from .document import Heading

    title = title or proof.claim
    return _typeset([Heading(1, [title])] + proof_blocks(proof), fmt, title)


def render_outcome(outcome: Outcome, fmt: str = "md") -> str:
    """The report of one statement (all its instances) in ``md``, ``tex`` or ``html``."""
    return _typeset(outcome_blocks(outcome), fmt, outcome.statement.heading)


def render_index(outcomes: list, formats: list, seconds: float, fmt: str = "md") -> str:
    """The index of a run of ``symrel proofs`` in ``md`` or ``html``."""
    return _typeset(index_blocks(outcomes, formats, seconds), fmt, "symrel proofs")


__all__ = ["FORMATS", "Figure", "Instance", "Outcome", "Statement", "render_proof", "render_outcome", "render_index"]
