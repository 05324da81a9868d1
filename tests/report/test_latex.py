import shutil

import pytest

from symrel.report import render_proof
from symrel.report.latex import latex_text

from .hand_built_proofs import open_proof, proved, refuted  # noqa: F401  (fixtures)
from .pdflatex import compile_tex, overfull


def test_rationals_as_fractions_and_specials_escaped():
    assert latex_text("B = 4/3") == "B = $\\frac{4}{3}$"
    assert latex_text("-7/4 <= x") == "$-\\frac{7}{4}$ $\\le$ x"
    assert latex_text("x_1 & 5% # {a} ~ ^ \\") == "x\\_1 \\& 5\\% \\# \\{a\\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{}"
    assert latex_text("x ∈ [0,1] → λ") == "x $\\in$ [0,1] $\\to$ $\\lambda$"
    assert latex_text("2026/11/30") == "2026/11/30"  # not a fraction


def test_each_step_is_a_numbered_lemma(proved, refuted, open_proof):
    tex = render_proof(proved, "tex")
    assert tex.count("\\begin{lemma}") == 3
    assert "\\begin{lemma}[\\texttt{hardmax\\_max\\_head}]" not in tex  # rule names keep their dashes
    assert "hardmax-\\allowbreak{}max-\\allowbreak{}head" in tex
    assert "$B = \\frac{4}{3}$" in tex and "$\\mathrm{upper} = -\\frac{1}{2}$" in tex
    assert tex.startswith("\\documentclass") and tex.rstrip().endswith("\\end{document}")
    tex = render_proof(refuted, "tex")
    assert "$x = (-\\frac{7}{4})$" in tex and "\\textbf{refuted}" in tex
    assert "\\textbf{open}" in render_proof(open_proof, "tex")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_compiles_with_pdflatex(proved, refuted, open_proof, tmp_path):
    for name, proof in (("proved", proved), ("refuted", refuted), ("open", open_proof)):
        tex = tmp_path / f"{name}.tex"
        tex.write_text(render_proof(proof, "tex"))
        assert overfull(compile_tex(tex)) == [], name
        assert (tmp_path / f"{name}.pdf").stat().st_size > 1000


def test_powers_of_ten_in_denominators():
    assert latex_text("changed by 1/10^6") == "changed by $\\frac{1}{10^{6}}$"
