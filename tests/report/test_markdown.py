from symrel.report import render_proof

from .hand_built_proofs import open_proof, proved, refuted  # noqa: F401  (fixtures)


def test_each_step_says_what_and_shows_its_certificate(proved):
    text = render_proof(proved, "md")
    for n, step in enumerate(proved.steps, 1):
        assert f"**Lemma {n}** (proved, rule `{step.rule}`)." in text
    assert "is $\\le -1/2$ off" in text  # the lemma's relation typeset
    # the rule in words, in the papers' vocabulary, once, in the glossary at the end
    glossary = text.index("## Glossary of rules")
    assert text.index("hardmax head whose value equals its score returns the maximum") > glossary
    assert "token-wise shift" in text[glossary:]
    # the certificate's numbers as mathematics
    assert "$\\mathrm{upper} = -\\frac{1}{2}$" in text
    assert "$\\mathrm{bounds} = (-\\frac{7}{3}, -\\frac{1}{2}, -\\frac{5}{6}, -\\frac{1}{2}, -\\frac{1}{2}, -2)$" in text
    assert "$B = \\frac{4}{3}$" in text
    assert "Construction checked.** symrel construction realising Theorem 3.1." in text
    assert "**Result: proved.**" in text
    assert "ties between the two pieces are harmless" in text


def test_refuted_shows_counterexample(refuted):
    text = render_proof(refuted, "md")
    assert text.split("\n\n")[1] == "**Refuted. Counterexample:** $x = (-\\frac{7}{4})$."
    assert "**Result: refuted.**" in text and "T(-7/4) = -3/4" in text
    assert "rule `relu-fixed-sign`" in text and "B = 1 is too small" in text
    assert "*Recorded:*" in text


def test_open_names_obstacle(open_proof):
    text = render_proof(open_proof, "md")
    assert "**Result: open.**" in text
    assert "the heads' values are not their scores" in text
    assert "**Lemma 2** (**open**, rule `hardmax-max-head`)" in text
    assert "Not established." in text


def test_markdown_escapes_emphasis_marks(proved):
    proved.steps[0].lemma = "2*x and 3*y"
    assert "2\\*x and 3\\*y" in render_proof(proved, "md")
