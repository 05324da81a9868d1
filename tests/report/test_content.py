"""Reports show the mathematics: offline HTML (MathML), TeX in Markdown, each lemma's
forms and bounds, the rules' words once, and a refuted claim led by its counterexample."""

import re

import pytest

from symrel.certificates.rules import RULES
from symrel.models import Box, MaxoutLayer, MaxoutNet, MaxoutUnit
from symrel.report import render_proof
from symrel.report.content import content_lines, form_tex
from symrel.report.document import Math
from symrel.report.equivalence import equivalence_report


def _nets():
    net = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [0, -1], ["1/3", 1]], [0, 0, "-1/2"])])])
    other = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [0, -1], ["1/3", 1]], [0, 0, "1/2"])])])
    return net, other


@pytest.fixture(scope="module")
def proved():
    from symrel.compiler import compile_maxout
    from symrel.prover import prove_equivalence

    net, _ = _nets()
    return prove_equivalence(net, compile_maxout(net, Box.cube(2)).transformer, Box.cube(2))


@pytest.fixture(scope="module")
def refuted():
    from symrel.prover import prove_equivalence

    net, other = _nets()
    return prove_equivalence(net, other, Box.cube(2))


def test_html_fetches_nothing_and_embeds_mathml(proved, refuted):
    for proof in (proved, refuted):
        page = equivalence_report(proof, "html")
        assert "<math" in page and "<mfrac>" in page
        assert not re.search(r"""src\s*=\s*["']?\s*(https?:)?//""", page, re.I)
        assert not re.search(r"<script[^>]*\bsrc", page, re.I) and "<link" not in page
        assert "http" not in " ".join(re.findall(r"""src\s*=\s*["'][^"']*""", page))
        assert r"\(" not in page  # no TeX left for a script to typeset


def test_markdown_and_latex_typeset_the_maths(proved):
    md = equivalence_report(proved, "md")
    tex = equivalence_report(proved, "tex")
    assert "$x \\in D$" in md and "\\max(" in md
    outside_md, outside_tex = (re.sub(r"\$[^$]*\$", "", t) for t in (md, tex))
    for ascii_formula in ("A^T y", "+-e_i", "O(1/eps)", "ReLU(u) - ReLU(-u) = u", "max(0, z)", " <= ", " >= "):
        assert ascii_formula not in outside_md, ascii_formula
        assert ascii_formula not in outside_tex, ascii_formula


def test_a_lemma_shows_its_forms_bounds_and_signs(proved):
    md = equivalence_report(proved, "md")
    # the max node of the unit, with its terms as affine forms and its exact range
    assert "$y_{2} = \\max(-\\frac{1}{2} + \\frac{1}{3} y_{0} + y_{1}, y_{0}, -y_{1}) \\in [-1, 1]$" in md
    assert "$D = [-1, 1] \\times [-1, 1]$" in md
    assert re.search(r"h_\{1\}:\\ z \\(le|ge) ", md)  # a hidden unit's sign with its bound
    assert "\\max_{s} \\text{score}_{s} = " in md  # a head's max, with what it drops
    assert "list of" not in md and "numbers from" not in md


def test_long_records_point_into_the_certificate():
    lines = content_lines({"nodes": [{"id": k, "terms": [[k, [[0, 1]]]], "range": [k, k]} for k in range(9)]},
                          "steps[3].certificate")
    assert len(lines) == 5 and lines[-1][-1].text == "steps[3].certificate.nodes"
    assert form_tex([0, [[v, 1] for v in range(20)]], limit=3) == "y_{0} + y_{1} + y_{2} + \\ldots"
    assert content_lines({"farkas": [[0, "1/2"], [3, "1/2"]]}, "p") == [[Math("\\lambda = \\frac{1}{2}\\, r_{1} + \\frac{1}{2}\\, r_{4}")]]


def test_the_rules_are_explained_once_in_a_glossary(proved):
    md = equivalence_report(proved, "md")
    glossary = md.index("## Glossary of rules")
    used = {r for s in proved.steps for r in s.rule.split("+")}
    for rule in used:
        opening = RULES[rule].wording[1:]
        assert md.count(opening) == 1 and md.index(opening) > glossary, rule
        assert md.count(f"- `{rule}`: ") == 1


def test_a_refuted_report_leads_with_the_counterexample_and_both_outputs(refuted):
    md = equivalence_report(refuted, "md")
    paras = md.split("\n\n")
    assert paras[1].startswith("**Refuted. Counterexample:** $x = (")
    assert paras[2].startswith("- $A(x) = (") and "- $B(x) = (" in paras[2] and "|A_{j}(x) - B_{j}(x)|" in paras[2]
    assert md.index("Counterexample") < md.index("**Claim.**")
    html = equivalence_report(refuted, "html")
    assert html.index("Counterexample") < html.index("Claim.")


def test_matrices_tables_and_names_are_shown_as_maths():
    zero = content_lines({"errors": [["0", "0"], ["0", "0"]]}, "p")
    assert zero == [[Math("\\mathrm{errors} = 0 \\in \\mathbb{Q}^{2 \\times 2}")]]
    rows = content_lines({"L": [[1, 0], ["-1/2", 1]]}, "p")
    assert rows[0][0] == Math("L \\in \\mathbb{Q}^{2 \\times 2}") and "3 nonzero" in rows[0][1]
    assert rows[2] == [Math("L_{2, \\cdot} = (-\\frac{1}{2}, 1)")]
    long = content_lines({"L": [[k] for k in range(9)]}, "steps[0].certificate")
    assert long[-1][-1].text == "steps[0].certificate.L"
    assert content_lines({"log_upper": {"4": "3/2"}}, "p") == [
        [Math("\\mathrm{log\\_upper}:\\ \\mathrm{4} \\mapsto \\frac{3}{2}")]]
    assert content_lines({"query": "q0"}, "p") == [[Math("\\mathrm{query} = \\mathrm{q0}")]]


def test_the_provers_phrases_are_typeset_in_reports_and_plain_on_the_command_line():
    from symrel.report.document import split_math

    for text, tex in [
        ("the realised scores <phi_q(x), phi_k(y)> for 3 queries", "\\langle \\varphi_q(x), \\varphi_k(y) \\rangle"),
        ("y <= z iff score(y) <= score(z)", "\\mathrm{score}(y) \\le \\mathrm{score}(z)"),
        ("the table is positive semidefinite: R = L diag(D) L^T, D >= 0", "R = L \\operatorname{diag}(D) L^{\\top}"),
        ("bounded by |ReLU a - ReLU b| <= |a-b|", "|\\mathrm{ReLU}(a) - \\mathrm{ReLU}(b)| \\le |a - b|"),
        ("its lattice form max_t min_(j in S_t) l_j (a two-layer", "\\max_t \\min_{j \\in S_t} l_j"),
    ]:
        assert Math(tex) in split_math(text), (text, split_math(text))
    net, _ = _nets()
    from symrel.compiler import compile_maxout
    from symrel.prover import prove_equivalence

    box = Box([["-1/2", 1], [-1, 1]])
    lemma = prove_equivalence(net, compile_maxout(net, box).transformer, box).steps[0].lemma
    assert "$" not in lemma and Math("[-1/2, 1] \\times [-1, 1]") in split_math(lemma), lemma
