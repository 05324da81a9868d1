"""What a certificate proves, derived from its data: the claim's keys, inputs and statement.

A certificate's ``claim.statement`` is free text, so the checker never prints it as it is.
Each claim kind's checker module registers, with :func:`claim_statement`, the function that
says in words what a checked certificate of that kind proves, read from the claim's data
(its numbers) and the inputs (the models, the domain); the keys its claim holds; and the
names of the inputs it speaks of. :func:`derived_statement` then adds the inputs' sha256,
so the sentence names exactly the objects that were checked. ``symrel check-certificate``
prints that sentence; a ``claim.statement`` that says anything else is refused (the provers
write the derived sentence, :func:`symrel.checking.stated`).

A claim holds ``kind``, optionally ``statement`` and ``construction`` (free text), and the
keys its kind registers, no others; the inputs are exactly those the claim speaks of.

>>> from fractions import Fraction
>>> from symrel.models import Box
>>> domain_words(Box([[0, 1], ["-1/2", 2]]))
'[0, 1] x [-1/2, 2]'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import CertificateError, MalformedCertificate
from . import read

#: the claim keys every kind may hold besides its own: free text, never used by a check
FREE_TEXT = ("statement", "construction")
#: hex digits of each input's sha256 quoted in a derived statement
SHA_SHOWN = 16
#: a box of more dimensions than this is named by its dimension only in a statement
BOX_DIMS_SHOWN = 8


@dataclass(frozen=True)
class ClaimSpec:
    """What a claim kind's claim holds: ``keys`` (always), ``optional`` (sometimes), the
    names of its inputs (``inputs(claim) -> tuple``), and ``statement(claim, inputs) -> str``."""

    statement: Callable
    keys: tuple
    optional: tuple
    inputs: Callable


SPECS: dict[str, ClaimSpec] = {}


def claim_statement(kind: str, keys=(), optional=(), inputs=()):
    """Register ``fn(claim, inputs) -> str``, what a checked claim of ``kind`` proves, in words;
    ``keys``/``optional``: the claim's own keys; ``inputs``: the input names, a tuple or a
    function of the claim."""

    def deco(fn):
        names = inputs if callable(inputs) else (lambda claim, fixed=tuple(inputs): fixed)
        SPECS[kind] = ClaimSpec(fn, tuple(keys), tuple(optional), names)
        return fn

    return deco


def check_claim_frame(cert: dict) -> ClaimSpec | None:
    """The claim holds its kind's keys and no others, its free text is text, and the inputs
    are exactly the ones it names (MalformedCertificate otherwise, naming the path)."""
    claim = cert["claim"]
    spec = SPECS.get(claim["kind"])
    if spec is None:
        return None
    read.record(claim, "claim", ("kind",) + spec.keys, FREE_TEXT + spec.optional)
    for key in FREE_TEXT:
        if key in claim:
            read.string(claim[key], f"claim.{key}")
    names = spec.inputs(claim)
    for name in names:
        if name not in cert["inputs"]:
            raise MalformedCertificate(f"expected an input {name!r} (the claim speaks of it), missing",
                                       path=f"inputs.{name}")
    for name in cert["inputs"]:
        if name not in names:
            raise MalformedCertificate(f"expected no input {name!r} (the claim speaks of {', '.join(names)})",
                                       path=f"inputs.{name}")
    return spec


def derived_statement(cert: dict, inputs: dict) -> str:
    """What the certificate proves, in words: its kind's sentence, then each input's sha256
    (a kind registered without a sentence, such as a test's toy kind, is named only)."""
    spec = SPECS.get(cert["claim"]["kind"])
    if spec is None:
        sentence = f"the claim of kind {cert['claim']['kind']!r} (its checker derives no statement)"
    else:
        sentence = spec.statement(cert["claim"], inputs)
    shas = ", ".join(f"{name} {cert['inputs'][name]['sha256'][:SHA_SHOWN]}" for name in sorted(cert["inputs"]))
    return f"{sentence} (inputs by sha256: {shas})" if shas else sentence


def check_statement(cert: dict, statement: str) -> None:
    """A recorded ``claim.statement`` says exactly ``statement`` (CertificateError otherwise)."""
    recorded = cert["claim"].get("statement")
    if recorded is not None and recorded != statement and cert["claim"]["kind"] in SPECS:
        raise CertificateError(f"the statement differs from what the certificate's data proves: {statement!r}",
                               path="claim.statement")


# -- words for the inputs, used by the kinds' sentences ------------------------------------

_MODEL_WORDS = {"maxout": "a maxout net", "relu": "a ReLU net", "cpwl1d": "a CPWL function of one variable",
                "cpwl": "a CPWL function on a mesh", "transformer": "a hardmax Transformer", "layered": "a layered net"}


def number_words(q) -> str:
    """An exact rational as written in a certificate (``-1/2``)."""
    from ..exact import format_rational

    return str(format_rational(q))


def model_words(model) -> str:
    """``a ReLU net R^2 -> R^1``: the model's kind and dimensions."""
    words = _MODEL_WORDS.get(getattr(model, "kind", None) or "", "a model")
    return f"{words} R^{model.input_dim} -> R^{model.output_dim}"


def domain_words(domain) -> str:
    """The domain: a box's intervals (up to :data:`BOX_DIMS_SHOWN` of them), or a polytope's
    size (its inequalities are the input's, named by its sha256)."""
    if getattr(domain, "kind", None) == "box":
        bounds = domain.exact_bounds
        if len(bounds) > BOX_DIMS_SHOWN:
            return f"a box in R^{len(bounds)}"
        return " x ".join(f"[{number_words(lo)}, {number_words(hi)}]" for lo, hi in bounds)
    A, _ = domain.exact_halfspaces()
    return f"the polytope {{x in R^{domain.dim} : A x <= b}} of {len(A)} inequalities"
