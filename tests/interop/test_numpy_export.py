"""numpy evaluation in every dtype, with the weight rounding reported exactly."""

import pytest

from symrel.exact import Q
from symrel.interop.floats import FORMATS, round_to_format
from symrel.models import DenseLayer, ReLUNet
from symrel.crossval.examples import tied_values_hardmax

np = pytest.importorskip("numpy")
from symrel.interop.numpy_export import NumpyModel  # noqa: E402


def _net():
    return ReLUNet(2, [DenseLayer([["1/3", 2], [-1, "1/7"]], [0, "1/10"]), DenseLayer([[1, -1]], [0], "none")])


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_outputs_close_and_rounding_exact(dtype):
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    net = _net()
    f = NumpyModel(net, dtype)
    fmt = FORMATS[dtype]
    worst = max(abs(round_to_format(w, fmt) - w) for w in (Q(1, 3), Q(1, 7), Q(1, 10)))
    assert f.rounding.max_error == worst and f.rounding.overflows == 0
    X = np.array([[0.5, -0.25], [1.0, 1.0]])
    y = f(X).astype(np.float64)
    exact = [float(net([Q(1, 2), Q(-1, 4)])[0]), float(net([1, 1])[0])]
    assert np.allclose(y[:, 0], exact, rtol=0, atol=4 * float(fmt.unit_roundoff) * 10)
    assert f(X).dtype.name == dtype


def test_transformer_in_numpy_agrees_away_from_ties():
    t = tied_values_hardmax()
    f = NumpyModel(t, "float64")
    X = np.array([[0.5], [-0.5], [0.0]])
    assert f(X)[:, 0].tolist() == [1.5, -0.5, 0.5]  # at the tie numpy averages as symrel does
