"""What the symbolic executions of models share: the context, ReLU facts, obstacles.

A ReLU of an affine form ``z`` (a hidden unit of a feed-forward sublayer, or of a
ReLU net) is settled on the domain by one of the rules

* ``relu-fixed-sign``: an exact bound over the variables' box, ``lo(z) >= 0`` (then
  ``ReLU(z) = z``, recorded as ``["+", lo]``) or ``hi(z) <= 0`` (then 0, ``["-", hi]``);
* ``relu-as-max-node``: otherwise ``ReLU(z) = max(0, z)`` is a max node
  (``["node", facts]``) — the ReLU unit as a rank-2 maxout unit.

>>> from symrel.prover.nodes import Registry
>>> from symrel.exact import Q
>>> ctx = Context(Registry([(Q(-1), Q(1))]), None, "a")
>>> x = AffineForm.var(0)
>>> [r[0] for r in relu_records([linear_combination([(Q(1), x)], Q(2)), -x], ctx)[1]]
['+', 'node']
"""

from __future__ import annotations

from typing import Sequence

from ..exact import format_rational
from ..certificates import Step
from ..exact.forms import AffineForm, linear_combination
from .nodes import Registry

ZERO_FORM = AffineForm()


class Obstacle(Exception):
    """A lemma that no rule establishes; the proof ends open with this message."""


class Context:
    """One model's execution: the shared registry, the proof steps are added to, the
    model's name (``"a"`` or ``"b"``) and the hints collected for counterexample search
    (forms whose sign was not fixed where a construction would need it)."""

    def __init__(self, registry: Registry, proof: object, name: str, hints: list | None = None):
        self.registry, self.proof, self.name = registry, proof, name
        self.hints = [] if hints is None else hints

    def add_step(self, lemma: str, rule: str, certificate: dict, status: str, note: str = "") -> Step:
        certificate = {"model": self.name, **certificate}
        step = Step(lemma, rule, certificate, status, note)
        if self.proof is not None:
            self.proof.add(step)
        return step


def relu_records(pre: Sequence[AffineForm], ctx: Context) -> tuple[list[AffineForm], list[list]]:
    """``ReLU`` of each form: its value on the domain and the record of the rule used."""
    reg = ctx.registry
    values, records = [], []
    for z in pre:
        lo, hi = z.range_on_box(reg.ranges)
        if lo >= 0:
            values.append(z)
            records.append(["+", format_rational(lo)])
        elif hi <= 0:
            values.append(ZERO_FORM)
            records.append(["-", format_rational(hi)])
        else:
            ctx.hints.append(z)
            y, facts = reg.max_of([ZERO_FORM, z])
            values.append(y)
            records.append(["node", facts])
    return values, records


def count_rules(records) -> dict[str, int]:
    """How often each record kind occurs (for notes)."""
    counts: dict[str, int] = {}
    for r in records:
        counts[r[0]] = counts.get(r[0], 0) + 1
    return counts

