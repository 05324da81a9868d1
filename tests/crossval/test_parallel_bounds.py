"""crossvalidate's rigorous error-bound step on an executor (issue 20): the bounds are computed
in runs of consecutive points, put back in order, and the report is the serial run's."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from symrel.models import DenseLayer, ReLUNet
from symrel.parallel import RestartingProcessPool

np = pytest.importorskip("numpy")
from symrel.crossval import compare  # noqa: E402


def _net():
    return ReLUNet(2, [DenseLayer([["1/3", -1], [2, "1/7"], [-1, "5/3"]], ["1/5", 0, "-1/9"]),
                       DenseLayer([[1, "1/3", -1], ["2/3", 1, 1]], [0, "1/11"], "none")])


def _json(rep):
    return {k: v for k, v in rep.to_json().items() if k not in ("seconds", "time")}


def test_error_bounds_on_an_executor_are_the_serial_ones(monkeypatch):
    calls = []
    part = compare._bound_part
    monkeypatch.setattr(compare, "_bound_part", lambda *a: calls.append(len(a[-1][0])) or part(*a))
    serial = compare.crossvalidate(_net(), "numpy", "float32", 30, seed=3)
    assert serial.error_bound is not None and calls == [len(serial.points.points)]  # one run, serially
    calls.clear()
    with ThreadPoolExecutor(3) as pool:
        threaded = compare.crossvalidate(_net(), "numpy", "float32", 30, seed=3, executor=pool)
    assert len(calls) > 1 and sum(calls) == len(serial.points.points)  # the points really were split
    assert _json(threaded) == _json(serial) and threaded.error_bound == serial.error_bound


@pytest.mark.slow
def test_error_bounds_on_a_process_pool():
    serial = compare.crossvalidate(_net(), "numpy", "float32", 20, seed=5)
    with RestartingProcessPool(2) as pool:
        pooled = compare.crossvalidate(_net(), "numpy", "float32", 20, seed=5, executor=pool)
    assert _json(pooled) == _json(serial)
