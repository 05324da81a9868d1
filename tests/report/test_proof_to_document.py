from symrel.certificates import PROVED, Proof, Step
from symrel.report import Instance, Outcome, Statement, render_index, render_outcome
from symrel.report.document import StepBlock
from symrel.report.proof_to_document import MAX_STEPS_SHOWN, proof_blocks

from .hand_built_proofs import proved, refuted  # noqa: F401  (fixtures)

ST = Statement("a-thm-3-1", "A", "Theorem 3.1", "a maxout layer is three Transformer blocks",
               "a maxout layer is realised by a 3-layer Transformer", "on a box D, T(x) = N(x) exactly",
               "finite boxes; the symrel construction")


def test_statement_report_has_claims_and_instances(proved, refuted):
    out = Outcome(ST, [Instance("d=2", proved, facts={"B": "4/3"}), Instance("broken", refuted, expect="refuted")],
                  seconds=1.5)
    assert out.passed
    text = render_outcome(out, "md")
    assert text.startswith("# Theorem 3.1 (Paper A): a maxout layer is three Transformer blocks")
    for part in ("**The paper's claim.**", "**What symrel checks.**", "**Where this differs from the paper.**",
                 "## Instance 1: d=2", "## Instance 2: broken", "**A control.**", "| d=2 | proved | 3 |",
                 "refuted (a control: expected refuted)", "| 4/3 |"):
        assert part in text, part


def test_long_proofs_are_abridged_but_counted():
    p = Proof("many steps")
    for i in range(200):
        p.add(Step(f"lemma {i}", "affine-bound-box" if i % 2 else "relu-fixed-sign", {"i": i}, PROVED))
    blocks = proof_blocks(p)
    steps = [b for b in blocks if isinstance(b, StepBlock)]
    assert len(steps) < MAX_STEPS_SHOWN and steps[-1].number == 200
    md = render_outcome(Outcome(ST, [Instance("big", p)]), "md")
    assert "| `affine-bound-box` | 100 | 100 |" in md and "are listed in the certificate" in md


def test_index_links_every_report(proved):
    good = Outcome(ST, [Instance("x", proved)]).summary()
    bad = Outcome(Statement("b-x", "B", "Thm", "t", "", "", ""), error="Traceback\nValueError: nope").summary()
    md = render_index([good, bad], ["md", "html"], 2.0, "md")
    assert "[md](a-thm-3-1.md) [html](a-thm-3-1.html)" in md
    assert "1 of 2 statements proved" in md and "error (ValueError: nope)" in md
