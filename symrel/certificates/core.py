"""Proof objects: a claim, ordered steps, and a result (docs/theory.md#proofs-and-certificates).

A :class:`Step` states a lemma, names the rule that establishes it, and carries a
certificate: plain JSON data holding only integers and rational strings (a bound,
a Farkas vector, a witness point, a factorisation). A :class:`Proof` is
``proved`` only when it has steps, every step is proved and no counterexample
was found; ``refuted`` when it carries a counterexample; ``open`` otherwise, with
the obstacle said. Certificates are re-verified by :mod:`symrel.checking`, which
shares no code with the provers beyond the exact layer.

>>> p = Proof(claim="for all x in [0,1]: max(x, 0) = x", construction="example")
>>> _ = p.add(Step("x >= 0 on [0,1]", "affine-bound-box", {"lower": 0}, PROVED))
>>> p.result
'proved'
>>> _ = p.add(Step("an unchecked lemma", "none", {}, OPEN, note="not attempted"))
>>> p.result, p.obstacle
('open', 'an unchecked lemma: not attempted')
"""

from __future__ import annotations

from typing import Any

from ..exact.display import Card, short_text
from ..exact.displayed import Displayed

PROVED, REFUTED, OPEN = "proved", "refuted", "open"
STATUSES = (PROVED, REFUTED, OPEN)


class Step:
    """One lemma of a proof: ``lemma`` (what is claimed, in words), ``rule`` (the
    named rule that establishes it), ``certificate`` (JSON data with exact
    rationals as strings), ``status`` and an optional ``note`` (why, or the
    obstacle when open).

    Step and Proof are plain classes, not dataclasses: a dataclass costs a compilation of
    its methods when it is defined, paid by every ``symrel prove`` process
    (docs/benchmarks.md, "The small claims as whole processes")."""

    __slots__ = ("lemma", "rule", "certificate", "status", "note")

    def __init__(self, lemma: str, rule: str, certificate: dict | None = None, status: str = OPEN, note: str = ""):
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {status!r}")
        self.lemma, self.rule, self.status, self.note = lemma, rule, status, note
        self.certificate = {} if certificate is None else certificate

    def _fields(self) -> tuple:
        return self.lemma, self.rule, self.certificate, self.status, self.note

    def __eq__(self, other):
        return type(other) is Step and self._fields() == other._fields()

    __hash__ = None

    def __repr__(self):
        return "Step(" + ", ".join(f"{k}={v!r}" for k, v in zip(self.__slots__, self._fields())) + ")"

    def to_json(self) -> dict:
        out = {"lemma": self.lemma, "rule": self.rule, "status": self.status, "certificate": self.certificate}
        if self.note:
            out["note"] = self.note
        return out

    @classmethod
    def from_json(cls, obj: dict) -> "Step":
        return cls(obj["lemma"], obj["rule"], obj.get("certificate", {}), obj.get("status", OPEN), obj.get("note", ""))


class Proof(Displayed):
    """A claim and its steps.

    ``claim`` is the statement in words; ``claim_data`` its machine form (kind of
    claim and parameters, stored in a certificate); ``construction`` names what is
    checked (e.g. "symrel construction realising Theorem 3.1"); ``inputs`` maps a
    name to a symrel object (model, domain, ...) the claim speaks of;
    ``counterexample`` is an input point (list of rationals) where the claim fails,
    verified by plain exact evaluation before it is set (``exact_counterexample``: the
    same point in symrel's own rationals, as the prover found it).
    """

    _FIELDS = ("claim", "construction", "claim_data", "inputs", "steps", "exact_counterexample",
               "counterexample_note", "extra")

    def __init__(self, claim: str, construction: str = "", claim_data: dict | None = None,
                 inputs: dict[str, Any] | None = None, steps: list[Step] | None = None,
                 exact_counterexample: list | None = None, counterexample_note: str = "", extra: dict | None = None):
        self.claim, self.construction = claim, construction
        self.claim_data = {} if claim_data is None else claim_data
        self.inputs = {} if inputs is None else inputs
        self.steps = [] if steps is None else steps
        self.exact_counterexample, self.counterexample_note = exact_counterexample, counterexample_note
        self.extra = {} if extra is None else extra

    def __eq__(self, other):
        return type(other) is type(self) and all(getattr(self, k) == getattr(other, k) for k in self._FIELDS)

    __hash__ = None

    def add(self, step: Step) -> Step:
        self.steps.append(step)
        return step

    def refute(self, point, note: str = "") -> None:
        """Record a verified counterexample (the caller has checked it exactly); names (a
        preorder's keys) stay strings."""
        self.exact_counterexample = list(point)
        self.counterexample_note = note

    @property
    def counterexample(self) -> list | None:
        """The counterexample with its numbers as sympy ``Rational`` (symrel's public number
        type), names as strings; None when there is none. Converted on first use, so that a
        command that only prints the point does not load sympy."""
        x = self.exact_counterexample
        if x is None:
            return None
        cached = self.__dict__.get("_public_counterexample")
        if cached is None or cached[0] is not x:
            from ..exact import to_sympy

            cached = (x, [v if isinstance(v, str) else to_sympy(v) for v in x])
            self.__dict__["_public_counterexample"] = cached
        return cached[1]

    @counterexample.setter
    def counterexample(self, point) -> None:
        self.exact_counterexample = None if point is None else list(point)

    @property
    def result(self) -> str:
        if self.exact_counterexample is not None or any(s.status == REFUTED for s in self.steps):
            return REFUTED
        if self.steps and all(s.status == PROVED for s in self.steps):
            return PROVED
        return OPEN

    @property
    def proved(self) -> bool:
        return self.result == PROVED

    def __bool__(self) -> bool:
        """True only when the claim is proved, so that ``if prove_equivalence(...):`` takes
        the proved branch alone (a refuted or open proof is falsy).

        >>> bool(Proof("x = x", steps=[Step("x = x", "identity", status=PROVED)])), bool(Proof("open claim"))
        (True, False)
        """
        return self.proved

    @property
    def obstacle(self) -> str | None:
        """The first step that is not proved, said in words (None when proved)."""
        if not self.steps:
            return "no steps"
        for s in self.steps:
            if s.status != PROVED:
                return f"{s.lemma}: {s.note}" if s.note else s.lemma
        return None

    @property
    def exit_code(self) -> int:
        """0 proved, 1 refuted, 3 open (docs/format.md)."""
        return {PROVED: 0, REFUTED: 1, OPEN: 3}[self.result]

    def _summary(self) -> str:
        return f"{self.result}, {len(self.steps)} steps: {short_text(self.claim, 160)}"

    def counterexample_values(self, exact: bool = False) -> dict | None:
        """At the counterexample x of a refuted equivalence (inputs ``a``, ``b``):
        ``{"A(x)", "B(x)", "max |A - B|"}``, exactly (sympy Rationals; with ``exact``,
        symrel's own rationals, without loading sympy); None otherwise."""
        a, b, x = self.inputs.get("a"), self.inputs.get("b"), self.exact_counterexample
        if x is None or not hasattr(a, "evaluate_exact") or not hasattr(b, "evaluate_exact") \
                or any(isinstance(v, str) for v in x):
            return None
        ya, yb = a.evaluate_exact(x), b.evaluate_exact(x)
        values = {"A(x)": list(ya), "B(x)": list(yb), "max |A - B|": max(abs(u - v) for u, v in zip(ya, yb))}
        if exact:
            return values
        from ..exact import to_sympy

        return {"A(x)": [to_sympy(v) for v in ya], "B(x)": [to_sympy(v) for v in yb],
                "max |A - B|": to_sympy(values["max |A - B|"])}

    def _card(self) -> Card:
        fields = [("claim", self.claim)]
        if self.construction:
            fields.append(("construction checked", self.construction))
        if self.counterexample is not None:
            fields.append(("counterexample x", self.counterexample))
            fields += list((self.counterexample_values() or {}).items())
            if self.counterexample_note:
                fields.append(("note", short_text(self.counterexample_note, 300)))
        elif self.result == OPEN:
            fields.append(("open", short_text(self.obstacle or "", 300)))
        limit = 50
        rows = [(i, short_text(s.lemma, 200), s.rule, s.status) for i, s in enumerate(self.steps[:limit], 1)]
        return Card(f"Proof: {self.result} ({len(self.steps)} steps)", fields, ["step", "lemma", "rule", "status"],
                    rows, max(0, len(self.steps) - limit))

    def summary(self) -> str:
        counts = {st: sum(1 for s in self.steps if s.status == st) for st in STATUSES}
        return f"{self.result}: {len(self.steps)} steps ({counts[PROVED]} proved, {counts[OPEN]} open, {counts[REFUTED]} refuted)"

    def to_markdown(self) -> str:
        """A plain Markdown rendering (the full renderers live in :mod:`symrel.report`)."""
        from ..exact import rational_str

        lines = [f"# Claim\n\n{self.claim}\n"]
        if self.construction:
            lines.append(f"Construction checked: {self.construction}.\n")
        lines.append(f"**Result: {self.result}.**\n")
        if self.counterexample is not None:
            pt = ", ".join(rational_str(v) if not isinstance(v, str) else v for v in self.counterexample)
            lines.append(f"Counterexample: x = ({pt}). {self.counterexample_note}\n")
        lines.append("## Steps\n")
        for i, s in enumerate(self.steps, 1):
            lines.append(f"{i}. **{s.lemma}** — rule `{s.rule}`, {s.status}." + (f" {s.note}" if s.note else ""))
        return "\n".join(lines) + "\n"
