import pytest

from symrel.exact import Q
from symrel.models import Box, MaxoutLayer, MaxoutNet, MaxoutUnit
from symrel.compiler import compile_maxout
from symrel.softmax.empirical import _signature, empirical_check, float_softmax_output, head_scores, near_tie_points
from symrel.softmax.examples import selection_transformer


def two_piece():
    net = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [0, 1]], [0, 0])])])  # max(x1, x2)
    D = Box([[-1, 1], [-1, 1]])
    return compile_maxout(net, D).transformer, D


def test_near_tie_points_lie_in_the_box_close_to_a_tie():
    T, D = two_piece()
    lam = Q(1000)
    pts = near_tie_points(T, D, lam, 30, seed=2)
    assert len(pts) >= 20
    assert all(D.contains(p) for p in pts)
    close = [p for p in pts if abs(p[0] - p[1]) <= 10 / lam]
    assert len(close) == len(pts)  # every point sits within a few 1/lambda of the tie x1 = x2


def test_signature_changes_across_a_tie():
    T, D = two_piece()
    assert _signature(T, [Q(1, 2), Q(0)]) != _signature(T, [Q(0), Q(1, 2)])
    ((key, S),) = head_scores(T, [Q(1, 2), Q(0)])
    assert key == (1, 0) and len(S) == T.tokens


def test_check_reports_worst_point_and_ratio():
    T, D = two_piece()
    chk = empirical_check(T, D, Q(100), Q(1, 100), points=16, seed=1)
    js = chk.to_json()
    assert js["violations"] == 0 and js["points"] >= 16 and float(js["ratio"]) >= 1
    bad = empirical_check(T, D, Q(100), Q(1, 10**6), points=16, seed=1)
    assert not bad.holds


def test_float_path_without_shift_overflows():
    S, D = selection_transformer()
    assert float_softmax_output(S, [Q(0)], Q(10))  # fine at small lambda
    with pytest.raises(OverflowError):
        float_softmax_output(S, [Q(0)], Q(10**4), shift=False)  # exp(10^4 * 1)


def test_executor_gives_the_same_result(capsys):
    from concurrent.futures import ProcessPoolExecutor

    S, D = selection_transformer()
    serial = empirical_check(S, D, Q(5), Q(1, 10), points=8, seed=3, progress=True)
    assert "8/8 points" in capsys.readouterr().err
    with ProcessPoolExecutor(max_workers=2) as pool:
        parallel = empirical_check(S, D, Q(5), Q(1, 10), points=8, seed=3, executor=pool)
    assert (parallel.worst, parallel.worst_point) == (serial.worst, serial.worst_point)
