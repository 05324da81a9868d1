"""symrel.parallel: the serial order whatever the executor, shared data, progress, lost workers."""

import os
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from symrel.parallel import RestartingProcessPool, WorkerLostError, chunked, map_ordered, worker_count


def slow_square(delay, x):
    import time

    time.sleep(delay * (5 - x % 5))  # later items finish first
    return x * x


def die_once(marker, x):
    """Kills its own process the first time it runs for x == 2 (a worker lost mid-run)."""
    if x == 2 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return -x


def worker_pid(_):
    return os.getpid()


def always_die(x):
    os._exit(1)


def test_results_in_input_order_whatever_finishes_first():
    with ThreadPoolExecutor(3) as pool:
        assert map_ordered(slow_square, range(10), pool, shared=(0.01,)) == [x * x for x in range(10)]


def test_serial_and_progress():
    seen = []
    assert map_ordered(slow_square, [1, 2], shared=(0,), progress=lambda d, t, r: seen.append((d, t, r))) == [1, 4]
    assert seen == [(1, 2, 1), (2, 2, 4)]


def test_a_task_error_is_raised_unchanged():
    with ThreadPoolExecutor(2) as pool, pytest.raises(ZeroDivisionError):
        map_ordered(divmod, [1, 0, 2], pool, shared=(1,))


def test_chunks_concatenate_to_the_items():
    with ThreadPoolExecutor(3) as pool:
        parts = chunked(range(50), pool)
        assert worker_count(pool) == 3 and len(parts) == 12 and sum(parts, []) == list(range(50))
    assert chunked([], None) == [[]]


def test_a_killed_process_is_replaced_and_its_tasks_run_again(tmp_path):
    pool = RestartingProcessPool(2)
    try:
        assert map_ordered(die_once, range(6), pool, shared=(str(tmp_path / "died"),)) == [0, -1, -2, -3, -4, -5]
    finally:
        pool.shutdown()
    assert (tmp_path / "died").exists()


def test_a_plain_process_pool_that_breaks_is_a_clear_error(tmp_path):
    with ProcessPoolExecutor(2) as pool, pytest.raises(WorkerLostError, match="nothing was reported"):
        map_ordered(die_once, range(4), pool, shared=(str(tmp_path / "died"),))


def test_workers_that_keep_dying_give_up_after_the_retries():
    pool = RestartingProcessPool(1)
    try:
        with pytest.raises(WorkerLostError, match="could not be run"):
            map_ordered(always_die, [1], pool, retries=1)
    finally:
        pool.shutdown()


def loaded(name):
    import sys

    return name in sys.modules


def test_preload_imports_in_every_worker_before_the_work():
    from symrel.parallel import preload

    pool = RestartingProcessPool(2, __import__("multiprocessing").get_context("spawn"))
    try:
        preload(pool, ["symrel.exact"])
        assert map_ordered(loaded, ["symrel.exact"] * 4, pool) == [True] * 4
    finally:
        pool.shutdown()


def test_a_worker_that_cannot_import_is_a_clear_error():
    from symrel.cli.executors import preload_modules
    from symrel.errors import InputError

    pool = RestartingProcessPool(1)
    try:
        with pytest.raises(InputError, match="install the same symrel on every worker"):
            preload_modules(pool, ["symrel.no_such_module"])
    finally:
        pool.shutdown()


class Unpickled:
    """A shared argument that counts, in each process, how often it was unpickled."""

    count = 0

    def __init__(self, value):
        self.value = value

    def __setstate__(self, state):
        Unpickled.count += 1
        self.__dict__.update(state)


def _seen(shared, item):
    time.sleep(0.01)  # long enough for both workers to take tasks
    return os.getpid(), Unpickled.count, id(shared), shared.value + item


def test_a_process_pool_unpickles_a_shared_argument_once_per_worker():
    """Two maps over one shared object on two processes: each worker unpickles it once and
    hands every later task the same object. An object whose content changed between two maps
    is sent anew (never a worker's stale copy), and so is another object."""
    shared = Unpickled(100)
    with ProcessPoolExecutor(2) as pool:
        first = map_ordered(_seen, range(20), pool, shared=(shared,))
        again = map_ordered(_seen, range(20), pool, shared=(shared,))
        shared.value = 200
        changed = map_ordered(_seen, range(4), pool, shared=(shared,))
        other = map_ordered(_seen, range(4), pool, shared=(Unpickled(7),))
    assert [r[3] for r in first + again] == [100 + i for i in range(20)] * 2
    assert [r[3] for r in changed] == [200 + i for i in range(4)]
    assert [r[3] for r in other] == [7 + i for i in range(4)]
    per_worker = {}
    for pid, count, ident, _ in first + again:
        per_worker.setdefault(pid, set()).add((count, ident))
    assert all(seen == {next(iter(seen))} and next(iter(seen))[0] == 1 for seen in per_worker.values())
    assert all(count >= 2 for pid, count, _, _ in changed + other if pid in per_worker)
    assert map_ordered(_seen, [1], shared=(shared,))[0][1:3] == (Unpickled.count, id(shared))  # serial: no copy


def test_a_warming_pool_runs_short_work_here_and_starts_for_long_work():
    """Until its warm-up has passed, a WarmingProcessPool runs each task here (no process is
    started); after it, its workers run them; the results are the serial ones either way."""
    from symrel.parallel import WarmingProcessPool

    pool = WarmingProcessPool(2, warmup=3600)
    try:
        assert map_ordered(slow_square, range(6), pool, shared=(0,)) == [x * x for x in range(6)]
        assert not pool.started and worker_count(pool) == 2
        with pytest.raises(ZeroDivisionError):   # a task's error, raised as a worker's would be
            map_ordered(divmod, [1, 0], pool, shared=(1,))
    finally:
        pool.shutdown()
    pool = WarmingProcessPool(2, warmup=0)
    try:
        assert map_ordered(slow_square, range(6), pool, shared=(0,)) == [x * x for x in range(6)]
        assert pool.started
        assert os.getpid() not in set(map_ordered(worker_pid, range(4), pool))
    finally:
        pool.shutdown()


def test_usable_cores_follow_the_affinity(monkeypatch):
    from symrel.parallel import usable_cores

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 3}, raising=False)
    assert usable_cores() == 2
