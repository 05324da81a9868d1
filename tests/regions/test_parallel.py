"""symrel.regions.parallel: cells, empty branches, statistics and certificates are the serial
run's on any executor, whatever order the subtrees finish in."""

import json
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from symrel.certificates.io import certificate_of
from symrel.models import Box, Polytope
from symrel.constructions.random import random_relu_net
from symrel.regions import certify_regions, count_regions, enumerate_cells
from symrel.regions import parallel


STOPS_EARLY = {"test_a_differing_cell_stops_the_other_subtrees"}    # may run a single subtree


@pytest.fixture(autouse=True)
def small_frontier(monkeypatch, request):
    """Subtrees from the second level on, so these small nets are split into several tasks."""
    monkeypatch.setattr(parallel, "SUBTREES_PER_WORKER", 1)
    tasks = []
    real = parallel.subtree_task
    monkeypatch.setattr(parallel, "subtree_task", lambda *a: tasks.append(a) or real(*a))
    yield
    assert len(tasks) >= (1 if request.node.name in STOPS_EARLY else 2)


def _net(seed, d=2, widths=(4, 3)):
    return random_relu_net(random.Random(seed), d, list(widths), max_num=5, max_den=3)


def _same(a, b):
    assert [c.path for c in a.cells] == [c.path for c in b.cells]
    assert [(c.rows, c.witness, c.outputs) for c in a.cells] == [(c.rows, c.witness, c.outputs) for c in b.cells]
    assert [(e.path, e.farkas) for e in a.empty] == [(e.path, e.farkas) for e in b.empty]
    assert {k: v for k, v in a.stats.items() if k != "seconds"} == {k: v for k, v in b.stats.items() if k != "seconds"}
    assert a.complete == b.complete


class Reversed(ThreadPoolExecutor):
    """Finishes later submissions first (each task waits for the one submitted after it)."""

    def __init__(self):
        super().__init__(max_workers=2)

    def submit(self, fn, *args, **kwargs):
        import time

        k = getattr(self, "_k", 0)
        self._k = k + 1
        return super().submit(lambda: (time.sleep(0.002 * max(0, 20 - k)), fn(*args, **kwargs))[1])


@pytest.mark.parametrize("mode, record_empty", [("open", True), ("exact", True), ("open", False)])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_list_is_the_serial_one(seed, mode, record_empty):
    net, D = _net(seed), Box.cube(2)
    serial = enumerate_cells([net], D, mode=mode, record_empty=record_empty)
    with Reversed() as ex:
        _same(enumerate_cells([net], D, mode=mode, record_empty=record_empty, executor=ex), serial)


def test_polygon_geometry_and_polytopes():
    net = _net(5)
    P = Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])
    for D, geometry in ((Box.cube(2), "polygon"), (P, "lp")):
        serial = enumerate_cells([net], D, geometry=geometry)
        with ThreadPoolExecutor(2) as ex:
            _same(enumerate_cells([net], D, geometry=geometry, executor=ex), serial)


def test_certificates_are_byte_identical():
    net, D = _net(3, widths=(5, 3)), Box.cube(2)
    text = lambda p: json.dumps(certificate_of(p), sort_keys=True)  # noqa: E731
    with Reversed() as ex:
        assert text(certify_regions(net, D, executor=ex)) == text(certify_regions(net, D))


def test_the_cell_limit_keeps_the_first_cells():
    net, D = _net(4, widths=(6, 4)), Box.cube(2)
    serial = enumerate_cells([net], D, max_cells=3, on_limit="return")
    with ThreadPoolExecutor(2) as ex:
        par = enumerate_cells([net], D, max_cells=3, on_limit="return", executor=ex)
    assert not serial.complete and not par.complete
    assert [c.path for c in par.cells] == [c.path for c in serial.cells]
    with ThreadPoolExecutor(2) as ex:
        assert count_regions(net, D, executor=ex).to_json() | {"time": 0} == count_regions(net, D).to_json() | {"time": 0}


def _mutant(net, seed):
    """net with one weight of its first layer changed by 1/10^6 (a function-changing mutant)."""
    from symrel.exact import Q
    from symrel.fileformat import from_json, to_json

    obj = to_json(net)
    rng = random.Random(seed)
    W = obj["layers"][0]["W"]
    i, j = rng.randrange(len(W)), rng.randrange(len(W[0]))
    from symrel.exact import rational

    W[i][j] = str(rational(W[i][j]) + Q(1, 10 ** 6))
    return from_json(obj)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_complete_decision_checks_cells_in_the_workers_with_the_serial_answer(seed):
    """Refuted: the same first differing cell and counterexample; proved: the same certificate."""
    from symrel.regions import decide_equivalence

    net, D = _net(seed), Box.cube(2)
    for b in (net, _mutant(net, seed)):
        serial = decide_equivalence(net, b, D)
        with Reversed() as ex:
            par = decide_equivalence(net, b, D, executor=ex)
        assert par.result == serial.result
        assert par.counterexample == serial.counterexample
        assert [s.certificate for s in par.steps] == [s.certificate for s in serial.steps]
        if par.result == "proved":
            assert json.dumps(certificate_of(par), sort_keys=True) == json.dumps(certificate_of(serial), sort_keys=True)


def test_a_differing_cell_stops_the_other_subtrees(monkeypatch):
    """Subtrees run one at a time in order: once the first differing cell is in, the later
    subtrees are cancelled, and the answer is the serial one."""
    from symrel.regions import decide_equivalence

    monkeypatch.setattr(parallel, "SUBTREES_PER_WORKER", 8)
    sizes, calls = [], []
    frontier, task = parallel._frontier, parallel.subtree_task
    monkeypatch.setattr(parallel, "_frontier", lambda *a: (lambda out: sizes.append(len(out[0])) or out)(frontier(*a)))
    monkeypatch.setattr(parallel, "subtree_task", lambda *a: calls.append(a) or task(*a))
    net, D = _net(6, widths=(6, 4)), Box.cube(2)       # 49 cells
    b = _mutant(net, 6)
    with ThreadPoolExecutor(1) as ex:
        par = decide_equivalence(net, b, D, executor=ex)
    serial = decide_equivalence(net, b, D)
    assert par.result == serial.result == "refuted" and par.counterexample == serial.counterexample
    assert sizes[0] >= 8 and 1 <= len(calls) < sizes[0]
