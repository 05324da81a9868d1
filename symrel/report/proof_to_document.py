"""Proofs, statements and the index as documents: the words of every report.

A proof reads as a referee would want it: the claim, the construction checked,
the inputs, the result (with the counterexample or the obstacle), then one
numbered lemma per step saying what is claimed, why it holds (the rule in words)
and what certifies it (the certificate's numbers, summarised).

>>> from symrel.certificates import Proof, Step, PROVED
>>> p = Proof("for all x in [0,1]: max(x, 0) = x", construction="example")
>>> _ = p.add(Step("x >= 0 on [0,1]", "affine-bound-box", {"lower": 0}, PROVED))
>>> blocks = proof_blocks(p)
>>> [type(b).__name__ for b in blocks][:3]
['Para', 'Para', 'Para']
>>> blocks[-1].lemma, blocks[-1].certified
(['x >= 0 on [0,1]'], [[Math(tex='\\\\mathrm{lower} = 0')]])
"""

from __future__ import annotations

from collections import Counter

from ..certificates import OPEN, PROVED, REFUTED, Proof
from ..exact import is_rational_text
from .document import Code, Figure, Math, Heading, Items, Link, Para, Pre, StepBlock, Strong, Table, slug
from .statement import CHECKED, Instance, Outcome, Statement
from .content import content_lines
from .wording import rule_in_words

#: proofs with more steps than this show the first and last steps in full and
#: count the rest by rule (every step is in the certificate)
MAX_STEPS_SHOWN = 60


def _number_text(v) -> str:
    if isinstance(v, str):
        return v
    from ..exact import rational_str

    try:
        return rational_str(v)
    except Exception:  # an int, a Fraction: their str is already exact
        return str(v)


def _fact_text(v) -> str:
    """A fact for a table: exact when short, else its decimal value marked as rounded
    (the exact number is in the certificate)."""
    text = _number_text(v)
    if len(text) > 24 and is_rational_text(text) and "/" in text:   # ASCII digits: "²".isdigit() is true
        p, q = (int(t) for t in text.split("/"))
        from fractions import Fraction

        return f"≈ {float(Fraction(p, q)):.7g}"
    return text


def _point(values) -> str:
    return "(" + ", ".join(_number_text(v) for v in values) + ")"


def _input_line(name: str, thing) -> list:
    kind = thing.get("kind") if isinstance(thing, dict) else getattr(thing, "kind", type(thing).__name__)
    sizes = getattr(thing, "sizes", None)
    text = [Code(name), f": {kind}"]
    if callable(sizes):
        try:
            s = sizes()
            text.append(" (" + ", ".join(f"{k} {v}" for k, v in s.items()) + ")")
        except Exception:  # sizes are a courtesy, never a reason to fail a report
            pass
    elif kind in ("box",) and hasattr(thing, "bounds"):
        text.append(" " + " x ".join(f"[{_number_text(lo)}, {_number_text(hi)}]" for lo, hi in thing.exact_bounds))
    return text


def _tuple_tex(values) -> str:
    from .content import number_tex

    return "(" + ", ".join(number_tex(_number_text(v)) for v in values) + ")"


def counterexample_blocks(proof: Proof) -> list:
    """A refuted claim's lead: the counterexample and, for an equivalence, both exact
    outputs there and their largest difference."""
    if proof.counterexample is None:
        return [Para([Strong("Refuted."), " The claim fails; no counterexample point was recorded."])]
    x = proof.counterexample
    point = _tuple_tex(x) if not any(isinstance(v, str) and not is_rational_text(v) for v in x) else None
    lead = [Strong("Refuted. Counterexample: "), Math(f"x = {point}") if point else "x = " + _point(x), "."]
    out = [Para(lead)]
    try:
        values = proof.counterexample_values()
    except Exception:  # the outputs are a courtesy; the note below still says what fails
        values = None
    if values:
        from .content import number_tex

        out.append(Items([[Math(f"A(x) = {_tuple_tex(values['A(x)'])}")],
                          [Math(f"B(x) = {_tuple_tex(values['B(x)'])}")],
                          [Math(f"\\max_{{j}} |A_{{j}}(x) - B_{{j}}(x)| = {number_tex(_number_text(values['max |A - B|']))}")]]))
    note = proof.counterexample_note or "Confirmed by plain exact evaluation."
    if not (values and note.startswith("exact evaluation")):  # else the outputs above say it
        out.append(Para([note]))
    return out


def _result_paragraph(proof: Proof) -> list:
    n = len(proof.steps)
    if proof.result == PROVED:
        return [Para([Strong("Result: proved."), (f" All {n} steps are" if n > 1 else " Its single step is") + " established; the certificate records the numbers "
                      "each step asserts, for symrel check-certificate to recompute with rational arithmetic."])]
    if proof.result == REFUTED:
        return [Para([Strong("Result: refuted."), " The claim fails at the counterexample above; the steps below "
                      "show how far the proof got."])]
    return [Para([Strong("Result: open."), " Not every step could be established, so nothing is claimed. ",
                  Strong("Obstacle: "), proof.obstacle or "none recorded"])]


def step_block(number: int, step) -> StepBlock:
    """One lemma: what it claims, the prover's note, and what it proved as lines of
    mathematics read from its certificate (:mod:`~symrel.report.content`). Why the rule
    holds is said once, in the glossary (:func:`glossary_blocks`)."""
    words = rule_in_words(step.rule)
    why = [step.note] if step.note else []
    if step.status != PROVED:
        why = [Strong("Not established. "), (step.note or "No reason recorded.") + " "]
        why += (["(The rule ", Code(step.rule), " would need: " + words + ".)"] if words else [])
    path = f"steps[{number - 1}].certificate"
    certified = content_lines(step.certificate, path) if isinstance(step.certificate, dict) else []
    if not certified and step.status == PROVED:
        certified = [["no numbers recorded"]]
    return StepBlock(number, [step.lemma], step.rule, why, certified, step.status)


def glossary_blocks(blocks: list, level: int = 2) -> list:
    """The rules the lemmas of ``blocks`` use, each said once in words (empty when none)."""
    rules: list = []
    for b in blocks:
        if isinstance(b, StepBlock):
            rules += [r for r in b.rule.split("+") if r not in rules]
    if not rules:
        return []
    items = []
    for r in rules:
        words = rule_in_words(r)
        items.append([Code(r), ": " + (words[0].upper() + words[1:] + "." if words else "a rule outside symrel's list.")])
    return [Heading(level, ["Glossary of rules"], anchor="glossary"),
            Para(["Why a step established by each rule holds. A step naming several rules joined by ",
                  Code("+"), " uses each of them."]),
            Items(items)]


#: a statement's report lists the lemmas of its first instances and of every instance
#: not proved; the others show their result and rules (their lemmas are in their certificates)
INSTANCES_IN_FULL = 2


def proof_blocks(proof: Proof, level: int = 2, lemmas: bool = True) -> list:
    """The blocks of one proof (its headings start at ``level``); without ``lemmas``,
    the claim, inputs, result and the rules used, not the lemmas."""
    blocks: list = counterexample_blocks(proof) if proof.result == REFUTED else []
    blocks.append(Para([Strong("Claim. "), proof.claim]))
    if proof.construction:
        blocks.append(Para([Strong("Construction checked. "), proof.construction + "."]))
    if proof.inputs:
        blocks.append(Para([Strong("Inputs.")]))
        blocks.append(Items([_input_line(k, v) for k, v in proof.inputs.items()]))
    blocks += _result_paragraph(proof)
    steps = proof.steps
    by_rule = Counter(s.rule for s in steps)
    if len(by_rule) > 1 or len(steps) > MAX_STEPS_SHOWN:
        blocks.append(Table(["rule", "steps", "proved"],
                            [[[Code(r)], [str(c)], [str(sum(1 for s in steps if s.rule == r and s.status == PROVED))]]
                             for r, c in by_rule.items()]))
    if not lemmas:
        if len(by_rule) == 1:
            blocks.append(Para([f"All {len(steps)} steps use the rule ", Code(steps[0].rule), "."]))
        blocks.append(Para([f"Its {len(steps)} lemmas are of the same kinds as those listed for the first instances; "
                            "each is in the certificate of this instance, with every number."]))
        return blocks
    shown = list(enumerate(steps, 1))
    if len(steps) > MAX_STEPS_SHOWN:
        keep = {i for i, s in shown if s.status != PROVED}
        keep |= set(range(1, MAX_STEPS_SHOWN - 9)) | set(range(len(steps) - 4, len(steps) + 1))
        shown = [(i, s) for i, s in shown if i in keep]
    if steps:
        blocks.append(Heading(level + 1, ["Steps"]))
    previous = 0
    for i, s in shown:
        if i != previous + 1:
            blocks.append(Para([f"(Steps {previous + 1} to {i - 1}, proved by the rules counted above, "
                                "are listed in the certificate.)"]))
        blocks.append(step_block(i, s))
        previous = i
    return blocks


def _status_cell(inst: Instance) -> list:
    if inst.expect == PROVED:
        return [inst.proof.result]
    return [f"{inst.proof.result} (a control: expected {inst.expect})"]


def _instance_tables(instances: list[Instance]) -> list:
    """Two tables: every instance with its result, then the facts by instance number."""
    results = Table(["#", "instance", "result", "steps", "time"],
                    [[[str(n)], [inst.name], _status_cell(inst), [str(len(inst.proof.steps))],
                      [f"{inst.seconds:.2f}\u00a0s"]] for n, inst in enumerate(instances, 1)])
    keys: list = []
    for inst in instances:
        keys += [k for k in inst.facts if k not in keys]
    if not keys:
        return [results]
    facts = Table(["#"] + [str(k) for k in keys],
                  [[[str(n)]] + [[_fact_text(inst.facts.get(k, ""))] for k in keys]
                   for n, inst in enumerate(instances, 1)])
    return [results, facts]


def outcome_blocks(outcome: Outcome) -> list:
    """The report of one statement: the claims, then every instance's proof."""
    st = outcome.statement
    blocks: list = [
        Heading(1, [st.heading]),
        Para([Strong("Source. "), st.paper_name + "."]),
        Para([Strong("The paper's claim. "), st.paper_claim]),
        Para([Strong("What symrel checks. "), st.symrel_claim]),
        Para([Strong("Where this differs from the paper. "), st.narrowing]),
    ]
    n_ok = sum(1 for i in outcome.instances if i.passed)
    summary = [Strong(f"Result: {outcome.result}."),
               f" {n_ok} of {len(outcome.instances)} instances as expected, "
               f"{sum(len(i.proof.steps) for i in outcome.instances)} steps, {outcome.seconds:.1f} s."]
    if outcome.certificate_checks:
        good = sum(1 for v in outcome.certificate_checks.values() if v == CHECKED)
        summary.append(f" {good} of {len(outcome.certificate_checks)} certificates re-checked by "
                       "symrel check-certificate, each also rejected once one of its numbers was altered "
                       "by 1/10^6.")
    blocks.append(Para(summary))
    bad = {k: v for k, v in outcome.certificate_checks.items() if v != CHECKED}
    if bad:
        blocks.append(Items([[Code(k), ": " + v] for k, v in bad.items()]))
    if outcome.error:
        blocks += [Para([Strong("The script stopped with an error:")]), Pre(outcome.error)]
    if outcome.instances:
        blocks += _instance_tables(outcome.instances)
    for n, inst in enumerate(outcome.instances, 1):
        blocks.append(Heading(2, [f"Instance {n}: {inst.name}"], anchor=slug(inst.name)))
        if inst.expect == REFUTED:
            blocks.append(Para([Strong("A control. "), "This instance is deliberately broken; the statement "
                                "requires that symrel refutes it with a counterexample rather than prove it."]))
        elif inst.expect == OPEN:
            blocks.append(Para([Strong("A control. "), "Here the certified bound is too weak to show the claim; "
                                "the statement requires that symrel leaves it open rather than prove it."]))
        if inst.facts:
            blocks.append(Items([[f"{k}: ", _number_text(v)] for k, v in inst.facts.items()]))  # exact here
        for caption, png in inst.figures:
            blocks.append(Figure(caption, png))
        full = n <= INSTANCES_IN_FULL or inst.proof.result != PROVED or not inst.passed
        blocks += proof_blocks(inst.proof, level=2, lemmas=full)
    return blocks + glossary_blocks(blocks)


def index_blocks(summaries: list, formats: list, seconds: float) -> list:
    """The index of a run: one row per statement (a :class:`Summary`) with links to its reports."""
    ok = sum(1 for o in summaries if o.passed)
    blocks: list = [
        Heading(1, ["symrel proofs: the statements of Papers A and B, re-checked"]),
        Para([f"{ok} of {len(summaries)} statements proved on all their instances, in {seconds:.1f} s. "
              "Each report states the paper's claim, the claim as symrel checks it (finite domains, boxes, "
              "the symrel construction) and, for every instance, every lemma with its certificate."]),
        Items([[Strong(f"Paper {k}: "), v] for k, v in Statement.PAPERS.items()]),
    ]
    rows = []
    for o in summaries:
        links: list = []
        for fmt in formats:
            if fmt != "json":
                links += [Link(fmt, f"{o.statement.key}.{fmt}"), " "]
            elif o.certificates:
                links += [Link(f"{o.certificates} certificate{'s' if o.certificates > 1 else ''}",
                               f"{o.statement.key}/"), " "]
        rows.append([[o.statement.heading], [str(o.instances)], [o.result], [f"{o.seconds:.1f}\u00a0s"], links])
    blocks.append(Table(["statement", "instances", "result", "time", "reports"], rows))
    failing = [o for o in summaries if not o.passed]
    if failing:
        blocks.append(Heading(2, ["Not proved"]))
        blocks.append(Items([[o.statement.heading + ": " + o.result + (f" ({o.error})" if o.error else "")]
                             for o in failing]))
    return blocks


__all__ = ["proof_blocks", "outcome_blocks", "index_blocks", "step_block", "glossary_blocks", "OPEN"]
