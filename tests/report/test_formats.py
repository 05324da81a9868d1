"""Reports that typeset: the format follows the extension, mathematics is typeset, counts
stay counts, LaTeX tables fit the page and include their figures, indices are stated."""

from importlib.util import find_spec
import json
import shutil

import pytest

from symrel.errors import InputError
from symrel.report import report_format
from symrel.report.document import Figure, Heading, Math, Para, Table, figure_files
from symrel.report.html import html_of
from symrel.report.latex import latex_of
from symrel.report.markdown import markdown_of

from ..cli.test_compile_prove import files  # noqa: F401  (fixture)
from .pdflatex import compile_tex, overfull


def test_format_by_extension():
    assert [report_format(p) for p in ("a.md", "b.TEX", "c.html", "d.json")] == ["md", "tex", "html", "json"]
    with pytest.raises(InputError, match="--report.*ending in"):
        report_format("r.txt")
    with pytest.raises(InputError, match=r"\.md"):
        report_format("r.tex", allowed=("md",))


def test_notations_are_typeset_in_every_back_end():
    doc = [Para(["x in [-1, 1]^2, Sigma_0 in Q^d; ", Math(r"\lambda_{\min}")])]
    tex, html, md = latex_of(doc), html_of(doc), markdown_of(doc)
    assert r"$[-1,\allowbreak 1]^{2}$" in tex and r"$\Sigma_{0}$" in tex and r"$\mathbb{Q}^{d}$" in tex and r"$\lambda_{\min}$" in tex
    assert "<math" in html and "<mi>Σ</mi>" in html and "mathjax" not in html.lower()
    assert r"$\mathbb{Q}^{d}$" in md


def test_latex_tables_are_longtables_and_figures_are_included():
    doc = [Heading(1, ["t"]), Table([f"c{i}" for i in range(11)], [[[str(i)] for i in range(11)]] * 60),
           Figure("a plot", b"\x89PNG")]
    tex = latex_of(doc, figure_stem="rep")
    assert r"\begin{longtable}" in tex and r"\endhead" in tex and "resizebox" not in tex
    assert figure_files(doc, "rep") == [("rep-figure-1.png", b"\x89PNG")]
    assert r"\includegraphics[width=0.8\linewidth]{rep-figure-1.png}" in tex and "embedded in the HTML" not in tex
    assert "](rep-figure-1.png)" in markdown_of(doc, figure_stem="rep")


def test_compiled_instance_counts_are_not_fractions():
    from symrel.models import Box, MaxoutLayer, MaxoutNet, MaxoutUnit
    from symrel.statements.papers._compiled import compiled_instance

    inst = compiled_instance("relu", MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [0]])])]), Box.cube(1))
    assert isinstance(inst.facts["parameters of T"], int) and isinstance(inst.facts["parameters of the net"], int)


def test_certificate_states_its_index_convention(run_cli, files):  # noqa: F811
    d = files["dir"]
    assert run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t.json")[0] == 0
    assert run_cli("prove", files["net"], d / "t.json", "--domain", files["box"], "--certificate", d / "c.json")[0] == 0
    assert "count from 0" in json.loads((d / "c.json").read_text())["indexing"]


def test_prove_report_follows_the_extension(run_cli, files):  # noqa: F811
    d = files["dir"]
    assert run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t.json")[0] == 0
    for ext in ("md", "tex", "html", "json"):
        code, _, err = run_cli("prove", files["net"], d / "t.json", "--domain", files["box"], "--report", d / f"r.{ext}")
        assert code == 0, err
    assert (d / "r.tex").read_text().startswith(r"\documentclass")
    assert (d / "r.html").read_text().startswith("<!DOCTYPE html>")
    assert json.loads((d / "r.json").read_text())["kind"] == "certificate"
    assert "the inputs $x_{1}$, $x_{2}$ range over it" in (d / "r.md").read_text()
    code, _, err = run_cli("prove", files["net"], d / "t.json", "--domain", files["box"], "--report", d / "r.txt")
    assert code == 2 and "--report" in err and not (d / "r.txt").exists()
    code, _, err = run_cli("crossval", files["net"], "--points", "3", "--report", d / "x.tex")
    if find_spec("numpy") is None:   # crossval runs a float library: symrel's core names the extra
        assert code == 2 and "pip install 'symrel[numeric]'" in err and not (d / "x.tex").exists(), err
    else:
        assert code in (0, 1) and (d / "x.tex").read_text().startswith(r"\documentclass"), err
    code, _, err = run_cli("crossval", files["net"], "--points", "3", "--report", d / "x.txt")
    assert code == 2 and ".md" in err and not (d / "x.txt").exists()


def test_a_proved_report_leads_with_the_claim_the_result_and_the_certificate(run_cli, files):  # noqa: F811
    """The claim, "proved" and the sha256 of the certificate file come first; how to read the
    proof follows them."""
    import hashlib

    d = files["dir"]
    assert run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t.json")[0] == 0
    code, _, err = run_cli("prove", files["net"], d / "t.json", "--domain", files["box"], "--report", d / "r.md",
                           "--certificate", d / "c.json")
    assert code == 0, err
    text = (d / "r.md").read_text()
    digest = hashlib.sha256((d / "c.json").read_bytes()).hexdigest()
    claim, result, cert, how = (text.index(s) for s in ("**Claim.**", "**Result: proved.**", digest,
                                                        "How to read this proof"))
    assert claim < result < cert < how
    assert run_cli("prove", files["net"], d / "t.json", "--domain", files["box"], "--report", d / "r.html")[0] == 0
    page = (d / "r.html").read_text()
    assert page.index("Result: proved.") < page.index(digest) < page.index("How to read this proof")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_prove_report_tex_compiles(run_cli, files):  # noqa: F811
    d = files["dir"]
    assert run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t.json")[0] == 0
    assert run_cli("prove", files["net"], d / "t.json", "--domain", files["box"], "--report", d / "r.tex")[0] == 0
    assert overfull(compile_tex(d / "r.tex")) == []  # no line runs past its box


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_wide_tables_fit_the_page(tmp_path):
    """Narrow columns: long header words, long rationals, dotted parameter names, empty cells."""
    header = ["#", "tokens T", "width", "blocks", "parameters of T", "parameters of the net", "gating B", "changed",
              "T(x) - N(x) at the counterexample", "compiled for", "checked on", "counterexample inside the first box"]
    rows = [[str(i), "3", "7", "3", "170", "4", "26722499/583440", "", "", "", "", ""] for i in range(1, 8)]
    rows += [["8", "", "", "", "", "", "", "readout.b[0] + 1/1000000", "1/1000000", "", "", ""],
             ["9", "", "", "", "", "", "", "", "", "[-1, 1] x [-1, 1]", "[-3, 3] x [-3, 3]", "no"]]
    for cols in (2, 4, 7, 12):
        doc = [Heading(1, ["t"]), Table(header[:cols], [[[c] for c in r[:cols]] for r in rows])]
        tex = tmp_path / f"w{cols}.tex"
        tex.write_text(latex_of(doc))
        assert overfull(compile_tex(tex)) == [], cols


def test_prove_prints_max_abs_difference(run_cli, files):  # noqa: F811
    d = files["dir"]
    assert run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t.json")[0] == 0
    code, _, err = run_cli("prove", files["net"], d / "t.json", "--domain", files["big"])
    assert code == 1 and "max |A - B| at x: " in err
    code, out, _ = run_cli("prove", files["net"], d / "t.json", "--domain", files["big"], "--json")
    assert code == 1 and json.loads(out)["max_abs_difference"]
