"""The documentation's own Sphinx extension (docs/_ext/symrel_docs.py), fast parts."""

import sys
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))

import symrel_docs  # noqa: E402


def test_bars_escaped_in_prose_only():
    lines = [
        "The bound max |l_ij| over ``|x|``.",
        "",
        ">>> abs(-1) == 1 | 0",
        "True",
        "",
        "A literal block::",
        "",
        "    |a| stays",
        "",
        "and |b| again.",
    ]
    symrel_docs.escape_docstring_bars(None, "function", "f", None, {}, lines)
    assert lines[0] == r"The bound max \|l_ij\| over ``|x|``."
    assert lines[2] == ">>> abs(-1) == 1 | 0"
    assert lines[7] == "    |a| stays"
    assert lines[9] == r"and \|b\| again."


def test_inline_keeps_literals_and_nothing_else():
    from docutils import nodes

    parts = symrel_docs._inline("run ``symrel prove`` on *all* x_")
    assert [type(p) for p in parts] == [nodes.Text, nodes.literal, nodes.Text]
    assert parts[1].astext() == "symrel prove" and parts[2].astext() == " on *all* x_"


def test_expected_output_marks_blank_lines():
    assert symrel_docs._expected(["a  ", "", "b"]) == ["a", "<BLANKLINE>", "b"]


def test_lone_product_sign_escaped_but_emphasis_kept():
    lines = ["Supports +, *, integer powers; a *proved* claim, **bold**, ``a*b`` and 2*B."]
    symrel_docs.escape_docstring_bars(None, "function", "f", None, {}, lines)
    assert lines == [r"Supports +, \*, integer powers; a *proved* claim, **bold**, ``a*b`` and 2*B."]


def test_bullet_items_keep_their_star():
    lines = ["* :mod:`.taylor`: exact |x| enclosures", "  * nested, +, *, item"]
    symrel_docs.escape_docstring_bars(None, "module", "m", None, {}, lines)
    assert lines == [r"* :mod:`.taylor`: exact \|x\| enclosures", r"  * nested, +, \*, item"]


def test_loose_numbers_keep_the_words():
    line = "rigorous error bound: max 2.319e-06, violations 0 (torch 2.13.0+cpu, float32)"
    assert symrel_docs._NUMBER.sub("...", line) == "rigorous error bound: max ..., violations ... (torch ..., float...)"
