"""The trusted checker of certificates (``symrel check-certificate``).

A certificate (docs/format.md, "Certificates") embeds its inputs with their
sha256 and lists steps, each naming a rule and recording the exact numbers it
asserts. Checking it means, in this order:

1. the header: ``symrel: 1``, ``kind: certificate``, a claim with a known ``kind``;
2. every input: its sha256 is that of the embedded object, which is read with the
   checker's own readers into its own semantics (:mod:`symrel.checking.inputs`);
3. every step: an object with a ``rule`` whose parts (``a+b`` names two rules used
   together) are rules of the claim kind (and, when registered in
   :mod:`symrel.certificates.rules`, rules that can prove a step), ``status: "proved"``
   and a ``certificate`` object;
4. the steps the argument needs, in the order it needs them: each claim kind
   knows its step sequence (from the claim and the inputs), and a missing, extra,
   unknown or misplaced step is refused;
5. every recorded number, recomputed from the inputs and the earlier steps with
   exact rational arithmetic, by the claim kind's checker.

The checker is a small kernel apart from the provers: it imports the exact
layer's rationals, the canonical text of the file format and the registry of rule
names, nothing else of symrel (docs/trust.md lists the modules). A failure raises
:class:`CertificateError` naming the JSON path of the failing field.

>>> cert = {"symrel": True, "kind": "certificate", "claim": {"kind": "utility"}, "inputs": {}, "steps": []}
>>> try:
...     check_certificate(cert)
... except CertificateError as err:
...     print(err.path, "|", err)
symrel | symrel: expected 1 (the format version, a JSON integer), got the boolean true
"""

from __future__ import annotations

import importlib
import threading
from dataclasses import dataclass
from typing import Callable

from ..errors import InputError, SymrelError

#: the module of this package holding each claim kind's checker (an explicit list: nothing is
#: discovered); a check loads the one module its claim needs
CHECKER_OF = {"equivalence": "equivalence", "utility": "preorders", "richter-peleg-utility": "preorders",
              "multi-utility": "preorders", "retrieval": "preorders", "equivalence-cells": "regions",
              "regions": "regions", "relation": "relations", "softmax-bound": "softmax",
              "tracr-audit": "tracr_audit", "vnnlib-unsat": "vnnlib", "output-bounds": "output_bounds"}
CHECKER_MODULES = tuple(dict.fromkeys(CHECKER_OF.values()))


class CertificateError(SymrelError):
    """A certificate failed its check. ``path`` is the JSON path of the first failing
    field (``steps[3].certificate.bound``) when known; the message says what differs."""

    def __init__(self, message: str, path: str | None = None, rule: str | None = None):
        self.message = message
        self.path = path
        self.rule = rule
        head = f"{path} ({rule})" if path and rule else path
        super().__init__(f"{head}: {message}" if head else message)

    def step(self) -> str | None:
        """The JSON path of the failing step (``steps[3]``), if the failure is in a step."""
        if self.path and self.path.startswith("steps["):
            return self.path[: self.path.index("]") + 1]
        return None


class MalformedCertificate(CertificateError):
    """The file does not have the shape of a certificate (docs/format.md): a header,
    a claim object with a string ``kind``, inputs ``{name: {object, sha256}}``, and a
    non-empty list of steps, each an object with a string ``rule``, a string
    ``status`` and a ``certificate`` object. ``symrel check-certificate`` exits 2."""


class CheckLimit(MalformedCertificate):
    """The certificate asks the checker for more work than one of its limits allows
    (docs/format.md, "Limits of the checker"). Raised before the work is done, with the
    limit's name in the message (:func:`beyond_limit`); ``symrel check-certificate`` exits 2."""


def beyond_limit(name: str, got, most, path: str | None = None) -> CheckLimit:
    """The error for ``got`` beyond the limit ``name`` of at most ``most``.

    >>> print(beyond_limit("preorder elements", 5000, 4096, "inputs.preorder.object.elements"))
    inputs.preorder.object.elements: limit 'preorder elements': 5000, more than the 4096 the checker allows
    """
    return CheckLimit(f"limit {name!r}: {got}, more than the {most} the checker allows", path=path)


@dataclass(frozen=True)
class ClaimKind:
    """What the checker knows of one claim kind: its checker ``check(cert, inputs)``,
    the rules its steps may use, and ``order(claim, inputs)``: the step sequence the
    argument needs, as rule names (a trailing ``?`` marks an optional step), or None
    when the checker itself walks the steps in order."""

    check: Callable
    rules: frozenset
    order: Callable | None = None


CLAIM_KINDS: dict[str, ClaimKind] = {}

#: the step a checker is reading (for errors in malformed step data); see :func:`at_step`.
#: Per thread, so that checks running side by side in threads name their own steps.
_AT = threading.local()


def at_step(i: int) -> None:
    """Note that the checker now reads ``steps[i]`` (named if its data turns out malformed)."""
    _AT.step = i


def claim_checker(kind: str, rules, order=None):
    """Register ``fn(certificate, inputs) -> None`` as the checker of ``claim.kind == kind``."""

    def deco(fn):
        CLAIM_KINDS[kind] = ClaimKind(fn, frozenset(rules), order)
        return fn

    return deco


def model_class(model) -> str:
    """The kind of an input the checker read (``"maxout"``, ``"box"``, ...: the ``kind`` its
    file names, :mod:`symrel.checking.inputs`), or its type's name when it has none. The
    checkers dispatch on it, so that a check imports the module of a model kind only when its
    certificate embeds a model of that kind (docs/trust.md).

    >>> from symrel.checking.domains import Box
    >>> model_class(Box([[0, 1]]))
    'box'
    """
    return getattr(type(model), "kind", None) or type(model).__name__


def _part(name: str):
    """The module ``symrel.checking.<name>``, imported by name on first use: ``read`` and
    ``claims`` import this package's errors, so importing them from here by name keeps the
    import graph free of circles (tests/test_layers.py)."""
    return importlib.import_module(f"{__name__}.{name}")


def _load_checkers(kind: str | None = None):
    """Import the checker of claims of ``kind`` (all of them when ``kind`` is None or unknown)."""
    for name in (CHECKER_OF[kind],) if kind in CHECKER_OF else CHECKER_MODULES:
        importlib.import_module(f"{__name__}.{name}")


#: the keys of a certificate, of an input entry and of a step (docs/format.md, "Certificates")
FRAME_KEYS, FRAME_OPTIONAL = ("symrel", "kind", "claim", "inputs", "steps"), ("indexing",)
STEP_KEYS, STEP_OPTIONAL = ("rule", "status", "certificate"), ("lemma", "note")


def _check_header(cert):
    """The frame: every field of its one type, no unknown key at any level (the claim's own
    keys are its kind's: :func:`symrel.checking.claims.check_claim_frame`)."""
    read = _part("read")

    if type(cert) is not dict:
        raise MalformedCertificate(f"expected a symrel certificate (a JSON object), got {read.describe(cert)}")
    if "symrel" not in cert or type(cert["symrel"]) is not int or cert["symrel"] != 1:
        raise read.refuse("symrel", "1 (the format version, a JSON integer)", cert.get("symrel"))
    if cert.get("kind") != "certificate" or type(cert["kind"]) is not str:
        raise read.refuse("kind", "the string 'certificate'", cert.get("kind"))
    read.record(cert, "", FRAME_KEYS, FRAME_OPTIONAL)
    if "indexing" in cert:
        read.string(cert["indexing"], "indexing")
    claim = cert["claim"]
    if type(claim) is not dict:
        raise read.refuse("claim", "an object", claim)
    read.string(claim.get("kind"), "claim.kind")
    raw = cert["inputs"]
    if type(raw) is not dict:
        raise read.refuse("inputs", "an object of named inputs", raw)
    for name, entry in raw.items():
        read.record(entry, f"inputs.{name}", ("object", "sha256"))
        read.string(entry["sha256"], f"inputs.{name}.sha256")
    steps = read.array(cert["steps"], "steps")
    if not steps:
        raise MalformedCertificate("expected a non-empty list of steps, got an empty list", path="steps")
    for i, step in enumerate(steps):
        where = f"steps[{i}]"
        read.record(step, where, STEP_KEYS, STEP_OPTIONAL)
        read.string(step["rule"], f"{where}.rule")
        read.string(step["status"], f"{where}.status")
        for key in STEP_OPTIONAL:
            if key in step:
                read.string(step[key], f"{where}.{key}")
        if type(step["certificate"]) is not dict:
            raise read.refuse(f"{where}.certificate", "an object of recorded numbers", step["certificate"])
    _load_checkers(claim["kind"])
    if claim["kind"] not in CLAIM_KINDS:
        raise CertificateError(f"no checker for claims of kind {claim['kind']!r} (known: {sorted(CLAIM_KINDS)})",
                               path="claim.kind")
    _part("claims").check_claim_frame(cert)
    return claim


def _read_inputs(cert, hashed: bool = True):
    """The inputs, read by the checker's reader; with ``hashed``, their sha256 compared."""
    from ..fileformat.canonical import sha256_of

    read_input = _part("inputs").read_input   # the checker's own reader (symrel.checking.inputs)

    inputs = {}
    for name, entry in cert["inputs"].items():
        where = f"inputs.{name}"
        if hashed and sha256_of(entry["object"]) != entry["sha256"]:
            raise CertificateError("does not match the embedded object", path=f"{where}.sha256")
        try:
            inputs[name] = read_input(entry["object"], path=f"{where}.object")
        except CertificateError:  # refused by the checker's reader, with its path and class
            raise
        except InputError as err:  # the embedded object is not a file of its kind: malformed
            raise MalformedCertificate(_part("refusals").no_option_hints(err.message), path=err.path or f"{where}.object") from None
        except SymrelError as err:
            raise CertificateError(str(err), path=f"{where}.object") from None
    return inputs


def _check_steps(cert, kind: ClaimKind):
    from ..certificates.rules import RULES  # the registry of rule names (symrel.certificates.rules)

    steps = cert["steps"]
    for i, step in enumerate(steps):
        where = f"steps[{i}]"
        for part in step["rule"].split("+"):
            if part in RULES and not RULES[part].certifies:
                raise CertificateError(f"rule {part!r} never proves a step", path=f"{where}.rule", rule=step["rule"])
            if part not in kind.rules:
                what = "not a rule of this claim kind" if part in RULES else "unknown rule"
                raise CertificateError(f"{what} {part!r} (the claim kind's rules: {sorted(kind.rules)})",
                                       path=f"{where}.rule", rule=step["rule"])
        if step["status"] != "proved":
            raise CertificateError(f'expected "proved", got {step["status"]!r}', path=f"{where}.status",
                                   rule=step["rule"])
        parts = step["rule"].split("+")
        if all(part in RULES for part in parts):  # a step holds its rules' recorded keys and no others
            allowed = {key for part in parts for key in RULES[part].records + RULES[part].optional}
            for key in step["certificate"]:
                if key not in allowed:
                    raise MalformedCertificate(
                        f"expected no key {key[:40]!r} in a step of rule {step['rule']!r} (its keys: "
                        f"{', '.join(sorted(allowed)) or 'none'})", path=f"{where}.certificate.{key[:40]}",
                        rule=step["rule"])
    return steps


def check_order(steps, expected) -> None:
    """The steps' rules follow ``expected`` (rule names; ``name?`` optional), one to one.

    >>> steps = [{"rule": "a"}, {"rule": "c"}]
    >>> check_order(steps, ["a", "b?", "c"])
    >>> try:
    ...     check_order(steps, ["a", "b", "c"])
    ... except CertificateError as err:
    ...     print(err)
    steps[1].rule: expected 'b' here (the argument needs it before 'c'), got 'c'
    """
    pos = 0
    for k, want in enumerate(expected):
        optional = want.endswith("?")
        name = want.rstrip("?")
        got = steps[pos]["rule"] if pos < len(steps) else None
        if got == name:
            pos += 1
            continue
        if optional:
            continue
        if got is None:
            raise CertificateError(f"ends after {len(steps)} steps; the argument needs a step {name!r} next",
                                   path="steps")
        later = next((w.rstrip("?") for w in expected[k + 1:] if not w.endswith("?")), None)
        need = f" (the argument needs it before {later!r})" if later else ""
        raise CertificateError(f"expected {name!r} here{need}, got {got!r}", path=f"steps[{pos}].rule")
    if pos < len(steps):
        raise CertificateError(f"unexpected step {steps[pos]['rule']!r} after the last one the argument needs",
                               path=f"steps[{pos}]")


def check_certificate(cert: dict) -> dict:
    """Check a certificate (module docstring); returns a summary, raises :class:`CertificateError`.

    The summary: ``{"claim": kind, "statement": what is proved (derived from the data,
    :mod:`symrel.checking.claims`), "steps": n, "rules": {rule: steps checked}, "result":
    "checked"}``; ``"result": "vacuous"`` and ``"vacuous": why`` when the claim's checker finds
    that the claim speaks of no point (an empty domain): true, and saying nothing.
    """
    claim = _check_header(cert)
    kind = CLAIM_KINDS[claim["kind"]]
    inputs = _read_inputs(cert)
    steps = _check_steps(cert, kind)
    _AT.step = None
    try:
        if kind.order is not None:
            check_order(steps, kind.order(claim, inputs))
        outcome = kind.check(cert, inputs)
    except CertificateError as err:  # a rejection, or malformed data (a limit among them): kept as it is
        raise _part("refusals").in_step(err, steps, type(err)) from None
    except InputError as err:  # a reader or a number refused inside a step: the data is malformed
        words = _part("refusals")   # the wording of a refusal (symrel.checking.refusals)
        rooted = err.path if err.path and words.rooted(err.path) else None
        raise words.in_step(CertificateError(words.no_option_hints(err.message), rooted), steps,
                            MalformedCertificate) from None
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError, AttributeError) as err:
        i = getattr(_AT, "step", None)
        where = f"steps[{i}].certificate" if i is not None else None
        raise MalformedCertificate(_part("refusals").shape_words(err), where,
                                   steps[i]["rule"] if i is not None else None) from None
    claims = _part("claims")
    statement = claims.derived_statement(cert, inputs)
    claims.check_statement(cert, statement)
    rules: dict[str, int] = {}
    for step in steps:
        rules[step["rule"]] = rules.get(step["rule"], 0) + 1
    summary = {"claim": claim["kind"], "statement": statement, "steps": len(steps), "rules": rules,
               "result": "checked"}
    if isinstance(outcome, dict) and outcome.get("vacuous"):
        summary.update(result="vacuous", vacuous=str(outcome["vacuous"]))
    return summary


def stated(cert: dict) -> dict:
    """``cert`` (a certificate as :func:`symrel.certificates.io.certificate_of` writes it) with
    its ``claim.statement`` set to what the checker derives from its data
    (:mod:`symrel.checking.claims`): the provers write every certificate through this
    function, so an honest certificate states exactly what its check proves. The inputs'
    sha256, which the writer has just computed, are compared by a check, not here."""
    claims = _part("claims")
    kind = cert["claim"].get("kind")
    _load_checkers(kind)
    if kind in claims.SPECS:
        cert["claim"]["statement"] = claims.derived_statement(cert, _read_inputs(cert, hashed=False))
    return cert
