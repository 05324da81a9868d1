"""Softmax attention at large lambda in float16 / bfloat16: overflow and wrong answers found."""

import pytest

from symrel.exact import Q, rational
from symrel.crossval.examples import near_tie_softmax

np = pytest.importorskip("numpy")
from symrel.crossval.compare import crossvalidate  # noqa: E402


def test_float16_overflows_with_the_exact_input():
    t, D = near_tie_softmax()
    rep = crossvalidate(t, "numpy", "float16", 20, domain=D, seed=1)
    assert rep.nonfinite and not rep.ok
    wrong = rep.softmax["wrong"][0]
    assert wrong["reason"].startswith("overflow")
    x = [rational(v) for v in wrong["input"]]
    assert D.contains(x)
    assert "overflow" in rep.to_markdown()


def test_bfloat16_merges_the_scores_and_answers_wrongly():
    torch = pytest.importorskip("torch")
    t, D = near_tie_softmax()
    rep = crossvalidate(t, "torch", "bfloat16", 20, domain=D, seed=1)
    assert rep.softmax["wrong_count"] > 0 and not rep.nonfinite
    w = rep.softmax["wrong"][0]
    x = [rational(v) for v in w["input"]]
    # the hardmax answer (the softmax limit) is x itself; bfloat16 averaged the three values
    assert [rational(v) for v in w["hardmax"]] == x
    assert abs(w["float_outputs"][0] - float(x[0]) - 1 / 3) < 0.02
    del torch


def test_float32_is_fine_and_inside_the_certified_bound():
    t, D = near_tie_softmax()
    rep = crossvalidate(t, "numpy", "float32", 20, domain=D, seed=1)
    assert rep.ok and rep.softmax["wrong_count"] == 0
    bound = rational(rep.softmax["rigorous_bound"])
    assert 0 < bound < Q(1, 10**10)
