"""ONNX's first-maximiser Hardmax against symrel's average, on compiled and hand-built Transformers."""

import pytest

from symrel.exact import Q
from symrel.models import AffineMap, Box, MaxoutLayer, MaxoutNet, MaxoutUnit
from symrel.crossval.examples import tied_values_hardmax
from symrel.crossval.ties import hardmax_rule_report

np = pytest.importorskip("numpy")
pytest.importorskip("onnxruntime")
from symrel.crossval.compare import crossvalidate  # noqa: E402


def test_tie_where_the_rules_differ_is_found_and_reported():
    rep = crossvalidate(tied_values_hardmax(), "onnxruntime", "float32", 30, seed=1)
    h = rep.hardmax_rule
    assert h["applies"] and h["points_where_rules_differ"] == 1
    assert h["disagreements"] == [{"input": [0], "symrel": ["1/2"], "first_maximiser": [1]}]
    assert not rep.ok
    # away from the tie onnxruntime agrees with the exact value to float accuracy
    assert rep.output_stat.max_abs_error == Q(1, 2) and rep.worst_input == [0]
    others = [i for i, p in enumerate(rep.points.points) if p != [0]]
    X = np.array([[float(rep.points.points[i][0])] for i in others])
    from symrel.interop.onnx_export import OnnxRuntimeRunner

    y = OnnxRuntimeRunner(tied_values_hardmax()).trace(X)[-1][1][:, 0]
    exact = [float(tied_values_hardmax()(rep.points.points[i])[0]) for i in others]
    assert np.allclose(y, exact, rtol=0, atol=1e-6)
    assert "first maximiser [1]" in rep.to_markdown()


def test_numpy_averages_so_the_rule_does_not_apply():
    rep = crossvalidate(tied_values_hardmax(), "numpy", "float32", 30, seed=1)
    assert rep.hardmax_rule["points_where_rules_differ"] == 1 and not rep.hardmax_rule["applies"] and rep.ok


def test_compiled_transformer_in_onnxruntime():
    compiler = pytest.importorskip("symrel.compiler")
    net = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [-1, 0], [0, 1]], [0, 0, "1/4"]),
                                     MaxoutUnit([[1, 1], [0, -1]], [0, "1/2"])])], AffineMap([[1, -2]], [1]))
    D = Box([[-1, 1], [-1, 1]])
    T = compiler.compile_model(net, D).transformer
    rep = crossvalidate(T, "onnxruntime", "float32", 60, domain=D, seed=2)
    assert not rep.nonfinite and rep.output_stat.max_abs_error < Q(1, 10**4)  # agreement
    h = rep.hardmax_rule
    assert h["points_with_score_ties"] > 0  # the grid hits exact score ties
    # at every tie found the two rules give the same output on this compilation
    grid = [[Q(a, 4), Q(b, 4)] for a in range(-4, 5) for b in range(-4, 5)]
    full = hardmax_rule_report(T, grid)
    assert full["points_with_score_ties"] > 0
    assert full["points_where_rules_differ"] == h["points_where_rules_differ"] == 0
