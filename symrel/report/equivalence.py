"""The report of an equivalence proof, for a mathematician reading it next to Paper A.

The claim and its result come first (a proved claim with the sha256 of its certificate),
then a short preamble says what the variables ``y_v`` and the states ``Sigma_b`` are, then
the proof follows, in any report format (:func:`equivalence_report`).

>>> from symrel.models import MaxoutNet, MaxoutLayer, MaxoutUnit, Box
>>> from symrel.compiler import compile_maxout
>>> from symrel.prover import prove_equivalence
>>> net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
>>> proof = prove_equivalence(net, compile_maxout(net, Box([[-1, 1]])).transformer, Box([[-1, 1]]))
>>> text = equivalence_markdown(proof)
>>> "hardmax" in text and "gating bound $B$" in text
True
>>> "$\\\\Sigma_{b}$" in equivalence_report(proof, "tex")
True
"""

from __future__ import annotations

from . import _typeset
from .document import Code, Heading, Items, Para, Strong
from .proof_to_document import glossary_blocks, proof_blocks

PREAMBLE = """\
## How to read this proof

The claim is checked layer by layer ({construction}). Both models are executed
symbolically over the domain $D$. The variables are the inputs {inputs}
and max nodes $y_{{v}} = \\max(t_{{1}}, \\ldots, t_{{k}})$ of affine forms in earlier variables, kept in
normal form: equal terms merged, and a term dropped when another term is at least as
large on all of $D$ (an exact lower bound over the box of the variables' ranges). A maxout
unit of rank $k$ is such a max of its $k$ pieces; a ReLU is $\\max(0, z)$.

For the Transformer, $\\Sigma_{{b}}$ is the state after $b$ blocks: every token's column as
affine forms in the variables ($\\Sigma[s]$ is slot $s$, one form for every token or one per token).
The embedding writes $x$ and the token-wise shift (the one-hot position $P$ and the constant $C$).
Each block is one lemma: a feed-forward hidden unit $h$ is settled by the sign of its argument $z$ on $D$
(an exact bound; in the construction this is the gating bound $B$ at work:
$\\mathrm{{ReLU}}(l + 2B P_{{j}} - B)$ is $l + B$ on token $j$ and 0 elsewhere exactly when
$|l| \\le B$ on $D$), or by $\\mathrm{{ReLU}}(u) - \\mathrm{{ReLU}}(-u) = u$; a hardmax head whose value
equals its score returns the maximum of the scores over the tokens whatever the ties, and
$\\max(-B, l_{{1}}, \\ldots, l_{{k}})$ drops $-B$ on $D$. When the layers correspond, the outputs of
both models are the same affine forms in the same variables, compared coefficient by
coefficient. Every number recorded in the steps is re-computed by `symrel check-certificate`.

"""


def _with_code(text: str) -> list:
    """A paragraph's text with its `backticked` spans as :class:`Code`."""
    parts = text.replace("\n", " ").split("`")
    return [Code(p) if k % 2 else p for k, p in enumerate(parts) if p]


def preamble_blocks(proof) -> list:
    """The "how to read this proof" section as document blocks."""
    d = proof.inputs["a"].input_dim if "a" in proof.inputs else 1
    inputs = "$y_{0} = x_{1}$" if d == 1 else f"$y_{{0}}, \\ldots, y_{{{d - 1}}}$ (that is, $x_{{1}}, \\ldots, x_{{{d}}}$)"
    text = PREAMBLE.format(construction=proof.construction or "symrel construction realising Theorem 3.1",
                           inputs=inputs)
    paras = [p for p in text.split("\n\n") if p.strip()]
    return [Heading(2, [paras[0].lstrip("# ").strip()])] + [Para(_with_code(p)) for p in paras[1:]]


def equivalence_report(proof, fmt: str = "md", title: str = "", certificate_sha256: str | None = None) -> str:
    """An equivalence proof (:func:`symrel.prover.prove_equivalence`) as a report in
    ``fmt`` (``md``, ``tex``, ``html``): the claim and the result first (with the sha256 of the
    certificate file, ``certificate_sha256``, for a proved claim), then the construction and
    the inputs, the preamble on how to read the proof, then the steps in words."""
    title = title or proof.claim
    body = proof_blocks(proof)
    k = next(i for i, b in enumerate(body) if isinstance(b, Para) and b.text[:1] == [Strong("Claim. ")]) + 1
    r = next((i for i, b in enumerate(body) if i >= k and isinstance(b, Para) and b.text
              and isinstance(b.text[0], Strong) and b.text[0].text.startswith("Result:")), None)
    lead = [] if r is None else [body[r]]
    if certificate_sha256 and proof.result == "proved":
        lead.append(Para([Strong("Certificate. "), "sha256 ", Code(certificate_sha256), " (of the file ",
                          Code("--certificate"), " writes; ", Code("symrel check-certificate"), " checks it)."]))
    rest = body[k:] if r is None else body[k:r] + body[r + 1:]
    steps = next((i for i, b in enumerate(rest) if not isinstance(b, (Para, Items))), len(rest))
    blocks = [Heading(1, [title])] + body[:k] + lead + rest[:steps] + preamble_blocks(proof) + rest[steps:]
    return _typeset(blocks + glossary_blocks(body), fmt, title)


def equivalence_markdown(proof) -> str:
    """:func:`equivalence_report` in Markdown."""
    return equivalence_report(proof, "md")
