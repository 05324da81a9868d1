"""The float programs and the exact trace agree with the models' own evaluation."""

import pytest

from symrel.exact import Q, columns
from symrel.interop.exact_trace import exact_trace, first_maximiser
from symrel.interop.float_program import float_program as lower
from symrel.models import CPWL1D, AffineMap, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from symrel.crossval.examples import tied_values_hardmax

PTS = [[Q(-1), Q(1, 3)], [Q(1, 2), Q(-2, 7)], [Q(0), Q(0)]]


def _maxout():
    # units of rank 3 and 1: the rank-1 unit is padded in the program
    return MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [-1, 0], [0, 1]], [0, 0, "1/4"]),
                                      MaxoutUnit([[1, 1]], ["1/2"])])], AffineMap([[1, -2]], [1]))


@pytest.mark.parametrize("model", [
    ReLUNet(2, [DenseLayer([[1, 2], [-1, 1]], [0, "1/3"]), DenseLayer([[1, -1]], [0], "none")]),
    _maxout(),
])
def test_trace_ends_with_the_model_output(model):
    trace = exact_trace(model, PTS)
    assert [name for name, _ in trace] == [s.name for s in lower(model).stages]
    assert trace[-1][1] == model.evaluate_matrix(PTS)


def test_cpwl_lowers_through_maxout():
    f = CPWL1D([0, 1, 2], [0, 1, 0])
    pts = [[Q(-1)], [Q(1, 2)], [Q(3)]]
    assert columns(exact_trace(f, pts)[-1][1]) == [f(p) for p in pts]


def test_cpwl_mesh_lowers_through_its_lattice_form():
    from symrel.models import CPWLMesh

    f = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], ["1/2"]])
    pts = [[Q(0), Q(0)], [Q(3, 4), Q(3, 4)], [Q(1, 3), Q(1, 5)]]
    assert columns(exact_trace(f, pts)[-1][1]) == [f(p) for p in pts]


def test_transformer_trace_and_first_maximiser_rule():
    t = tied_values_hardmax()
    pts = [[Q(0)], [Q(1, 2)], [Q(-1, 2)]]
    avg = exact_trace(t, pts)
    first = exact_trace(t, pts, hardmax_rule="first")
    assert avg[-1][1] == t.evaluate_matrix(pts)
    assert columns(avg[-1][1])[0] == [Q(1, 2)] and columns(first[-1][1])[0] == [Q(1)]
    assert columns(avg[-1][1])[1:] == columns(first[-1][1])[1:]
    assert avg[0][1].shape == (t.width * t.tokens, 3)
    assert first_maximiser([Q(2), Q(5), Q(5)]) == [0, 1, 0]
