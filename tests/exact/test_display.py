"""Short reprs and notebook display (Card, Displayed) of symrel's results."""

import pytest

from symrel.exact import Q
from symrel.exact.display import REPR_LIMIT, Card, decimal_text, exact_text, number_text
from symrel.models import Box, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet


def _net(bias="1/2"):
    return ReLUNet(2, [DenseLayer([[1, -1], [2, "1/3"]], [bias, 0]), DenseLayer([[1, 1]], [0], "none")])


def test_numbers_show_exactly_with_a_decimal_view():
    assert number_text(Q(1, 3)) == "1/3 (0.333333)"
    assert number_text(Q(7)) == "7"
    big = Q(10**60 + 1, 3 * 10**49)
    assert exact_text(big) == "<61 digits>/<50 digits>"
    assert decimal_text(big, 4) == "3.333e+10"


def test_card_renders_in_three_formats():
    c = Card("T", [("a", Q(1, 2)), ("pt", [Q(1), Q(-1, 4)])], ["i", "x"], [(1, "a|b")], 3)
    assert "| 1 | a\\|b |" in c.markdown() and "(3 more rows)" in c.markdown()
    assert "<td>a|b</td>" in c.html() and "1/2 (0.5)" in c.html()
    assert c.latex().startswith("$") and r"\frac{1}{2}" in c.latex()


def test_proof_repr_is_short_and_displays_its_steps():
    from symrel.prover import prove_equivalence

    proof = prove_equivalence(_net(), _net(), Box.cube(2))
    assert proof.result == "proved"
    assert len(repr(proof)) <= REPR_LIMIT and repr(proof).startswith("<Proof: proved")
    html = proof._repr_html_()
    assert "<table>" in html and "Proof: proved" in html and "<td>1</td>" in html  # steps are numbered from 1
    assert proof._repr_markdown_().count("\n| ") >= len(proof.steps)
    assert proof._repr_latex_().startswith("$")


def test_counterexample_display_has_max_abs_difference():
    from symrel.prover import prove_equivalence

    proof = prove_equivalence(_net(), _net("1/2001"), Box.cube(2))
    assert proof.result == "refuted"
    vals = proof.counterexample_values()
    assert vals["max |A - B|"] == max(abs(u - v) for u, v in zip(vals["A(x)"], vals["B(x)"])) > 0
    assert "max |A - B|" in proof._repr_html_() and "max |A - B|" in proof._repr_markdown_()


def test_models_and_domains_show_their_sizes():
    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])])
    assert "MaxoutNet" in net._repr_html_() and "parameters" in net._repr_markdown_()
    assert len(repr(Box.cube(500))) <= REPR_LIMIT


def test_region_count_repr_is_short():
    from symrel.regions import count_regions

    rc = count_regions(_net(), Box.cube(2))
    assert len(repr(rc)) <= REPR_LIMIT and str(rc.count) in repr(rc)
    assert "activation cells" in rc._repr_html_()


def test_a_proof_renders_through_ipython():
    pytest.importorskip("IPython")
    from IPython.core.formatters import DisplayFormatter

    from symrel.prover import prove_equivalence

    data, _ = DisplayFormatter().format(prove_equivalence(_net(), _net(), Box.cube(2)))
    assert "text/html" in data and "Proof: proved" in data["text/html"]
    assert "text/markdown" in data and "text/latex" in data and len(data["text/plain"]) <= REPR_LIMIT
