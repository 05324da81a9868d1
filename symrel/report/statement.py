"""What a proof script hands to the reports: the statement, its instances, the outcome.

A script of ``proofs/`` re-checks one statement of a paper on concrete
instances. :class:`Statement` says the paper's claim, the claim as symrel checks
it, and where the two differ; :class:`Instance` is one concrete instance with its
:class:`~symrel.certificates.Proof`; :class:`Outcome` is what the runner measured.

>>> from symrel.certificates import Proof, Step, PROVED
>>> p = Proof("for all x in [0,1]: x >= 0")
>>> _ = p.add(Step("x >= 0 on [0,1]", "affine-bound-box", {"lower": 0}, PROVED))
>>> Instance("unit interval", p).passed
True
>>> Instance("unit interval", p, expect="refuted").passed
False
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..certificates import OPEN, PROVED, REFUTED, Proof


#: verdicts on a written certificate: re-checked and an altered copy rejected (CHECKED),
#: refused by check-certificate (REJECTED), or accepted also after one number was altered
CHECKED, REJECTED, ACCEPTED_ALTERED = "checked", "rejected by check-certificate", "checker accepted an altered copy"


@dataclass(frozen=True)
class Statement:
    """A statement of one of the two papers, as a proof script re-checks it.

    ``key`` names the report file, ``reference`` the statement in the paper
    ("Theorem 3.1"), ``paper`` is "A" or "B" (docs/theory.md), ``paper_claim`` the
    claim in the paper's words, ``symrel_claim`` what symrel proves, and
    ``narrowing`` where the latter differs from or narrows the former.
    """

    key: str
    paper: str
    reference: str
    title: str
    paper_claim: str
    symrel_claim: str
    narrowing: str

    PAPERS = {
        "A": "Gu, Yang, Zhou: On the Expressive Power of Transformers for Maxout Networks and "
        "Continuous Piecewise Linear Functions (arXiv 2603.03084)",
        "B": "Altabaa, Lafferty: Approximation of relation functions and attention mechanisms "
        "(arXiv 2402.08856)",
    }

    @property
    def heading(self) -> str:
        return f"{self.reference} (Paper {self.paper}): {self.title}"

    @property
    def paper_name(self) -> str:
        return self.PAPERS.get(self.paper, self.paper)


@dataclass
class Instance:
    """One concrete instance: a name (sizes, seed, edge case), its proof, and
    facts worth a table column (a region count next to k^(qL), a certified lambda).

    ``expect`` is ``"proved"`` for an instance of the statement; a control is a
    deliberately broken instance that must be ``"refuted"`` (caught with a
    counterexample) or stay ``"open"`` (a bound too weak to show it must not be
    reported as proved). ``figures`` are (caption, PNG bytes) pairs.
    """

    name: str
    proof: Proof
    facts: dict = field(default_factory=dict)
    expect: str = PROVED
    figures: list = field(default_factory=list)
    seconds: float = 0.0

    def __post_init__(self):
        if self.expect not in (PROVED, REFUTED, OPEN):
            raise ValueError(f"expect must be 'proved', 'refuted' or 'open', got {self.expect!r}")

    @property
    def passed(self) -> bool:
        return self.proof.result == self.expect


@dataclass
class Outcome:
    """What running one statement's script gave: its instances, the time, any
    error (a traceback) and, when certificates were written, their re-check."""

    statement: Statement
    instances: list[Instance] = field(default_factory=list)
    seconds: float = 0.0
    error: str = ""
    certificate_checks: dict = field(default_factory=dict)  # instance name -> "checked" or the failure
    files: list = field(default_factory=list)

    @property
    def certificates_ok(self) -> bool:
        return all(v == CHECKED for v in self.certificate_checks.values())

    @property
    def passed(self) -> bool:
        return not self.error and bool(self.instances) and all(i.passed for i in self.instances) and self.certificates_ok

    @property
    def result(self) -> str:
        if self.error:
            return "error"
        if not self.instances:
            return "no instances"
        if not all(i.passed for i in self.instances):
            return "failed"
        if not self.certificates_ok:
            verdicts = list(self.certificate_checks.values())
            if any(v.startswith(REJECTED) for v in verdicts):
                return "certificate rejected"
            return "altered certificate accepted"
        return "proved"

    def summary(self) -> "Summary":
        """The few facts the index and the summary table need (small, picklable)."""
        last_error = self.error.strip().splitlines()[-1] if self.error.strip() else ""
        return Summary(self.statement, len(self.instances), self.result, self.passed, self.seconds,
                       last_error, len(self.certificate_checks), list(self.files))


@dataclass
class Summary:
    """One row of the index: a statement's result without its proofs."""

    statement: Statement
    instances: int
    result: str
    passed: bool
    seconds: float
    error: str = ""
    certificates: int = 0
    files: list = field(default_factory=list)
