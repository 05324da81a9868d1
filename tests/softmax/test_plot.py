import pytest

from symrel.exact import Q
from symrel.softmax.examples import selection_transformer
from symrel.softmax.plot import bound_vs_lambda_rows, plot_bound_vs_lambda


def test_rows_bound_above_observed_and_decreasing():
    T, D = selection_transformer(delta=Q(1, 2))
    rows = bound_vs_lambda_rows(T, D, Q(20), points=6, factors=(Q(1, 2), Q(1), Q(2)))
    assert [r[0] for r in rows] == [10.0, 20.0, 40.0]
    assert all(w <= b for _, b, w in rows)
    assert rows[0][1] > rows[1][1] > rows[2][1]


def test_png_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    T, D = selection_transformer()
    path = tmp_path / "plot.png"
    plot_bound_vs_lambda(T, D, Q(10), path, points=4)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
