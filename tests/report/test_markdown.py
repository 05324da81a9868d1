from symrel.report import render_proof

from .hand_built_proofs import open_proof, proved, refuted  # noqa: F401  (fixtures)


def test_each_step_says_what_why_and_certificate(proved):
    text = render_proof(proved, "md")
    for n, step in enumerate(proved.steps, 1):
        assert f"**Lemma {n}** (proved, rule `{step.rule}`). {step.lemma}" in text
    assert text.count("- *Why:*") == 3 and text.count("- *Certified by:*") == 3
    # the rule in words, in the papers' vocabulary
    assert "hardmax head whose value equals its score returns the maximum" in text
    assert "token-wise shift" in text
    # the certificate summarised with its numbers
    assert "upper = -1/2" in text and "vector of 6 rationals (-7/3, -1/2, -5/6, -1/2, -1/2, -2)" in text
    assert "B = 4/3" in text
    assert "Construction checked.** symrel construction realising Theorem 3.1." in text
    assert "**Result: proved.**" in text
    assert "ties between the two pieces are harmless" in text


def test_refuted_shows_counterexample(refuted):
    text = render_proof(refuted, "md")
    assert "**Result: refuted.**" in text
    assert "x = (-7/4)" in text and "T(-7/4) = -3/4" in text
    assert "rule `relu-fixed-sign`" in text and "B = 1 is too small" in text
    assert "*Certified by:*" not in text and "*Recorded:*" in text


def test_open_names_obstacle(open_proof):
    text = render_proof(open_proof, "md")
    assert "**Result: open.**" in text
    assert "the heads' values are not their scores" in text
    assert "**Lemma 2** (**open**, rule `hardmax-max-head`)" in text
    assert "Not established." in text


def test_markdown_escapes_emphasis_marks(proved):
    proved.steps[0].lemma = "2*x and 3*y"
    assert "2\\*x and 3\\*y" in render_proof(proved, "md")
