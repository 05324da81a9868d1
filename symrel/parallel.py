"""Parallel maps over any :class:`concurrent.futures.Executor`, with the serial run's answer.

Every parallel computation of symrel (cells of a region count, mutants of a campaign,
statements of ``symrel proofs``, queries of a retrieval check, points of an empirical
check) is a list of independent tasks whose results are combined in the list's order.
:func:`map_ordered` runs such a list on an executor and hands the results back in that
order, whatever order they finish in, so the combined answer (a count, a certificate,
a report) is byte-identical to the serial run's. It also:

* sends data every task needs (the models) once per worker instead of once per task
  when the executor is a Dask one (``shared=``, scattered with ``broadcast=True``), and
  has a process pool's workers unpickle it once each, not once per task;
* has every worker import what the tasks need before the work starts (:func:`preload`,
  which the command line's ``--executor`` does), so start-up is not charged to the work;
* reports progress from the driver as tasks finish (``progress=``), so a progress line
  works the same with remote workers;
* resubmits the tasks of a worker that died (a killed Dask worker, a broken process
  pool that :class:`RestartingProcessPool` can replace), up to ``retries`` times, and
  otherwise raises :class:`WorkerLostError`: no result is ever built from part of the
  tasks.

The executor may be ``None`` (in this process, no pickling), a process or thread pool,
:class:`RestartingProcessPool`, a Dask ``Client.get_executor()``, or any other
``concurrent.futures``-style executor (Ray's, for instance: see docs/cluster.md for
what is tested).

>>> map_ordered(pow, [2, 3, 4], shared=(2,))      # pow(2, 2), pow(2, 3), pow(2, 4)
[4, 8, 16]
>>> from concurrent.futures import ThreadPoolExecutor
>>> with ThreadPoolExecutor(2) as pool:
...     map_ordered(abs, [-3, 1, -2], executor=pool)
[3, 1, 2]
"""

from __future__ import annotations

import os
from concurrent.futures import Executor, as_completed
from concurrent.futures.process import BrokenProcessPool

from .errors import UndecidedError


class WorkerLostError(UndecidedError):
    """A worker died and its tasks could not be run again: nothing is reported
    (the claim stays undecided; exit 3 on the command line)."""


def is_dask(executor) -> bool:
    """Whether ``executor`` is a Dask ``distributed`` client executor."""
    return type(executor).__module__.startswith("distributed") and hasattr(executor, "_client")


def worker_count(executor) -> int:
    """How many tasks ``executor`` runs at once (1 for ``None``; Dask: its workers' threads)."""
    if executor is None:
        return 1
    if is_dask(executor):
        return max(1, sum(executor._client.nthreads().values()))
    n = getattr(executor, "_max_workers", None) or getattr(executor, "max_workers", None)
    return int(n) if n else (os.cpu_count() or 1)


class RestartingProcessPool(Executor):
    """A :class:`~concurrent.futures.ProcessPoolExecutor` that :func:`map_ordered` can
    replace when one of its processes dies (a killed process breaks a process pool for
    good; the unfinished tasks then run again on a fresh pool)."""

    def __init__(self, max_workers: int | None = None, mp_context=None):
        from concurrent.futures import ProcessPoolExecutor

        import multiprocessing

        if mp_context is None and not _safe_to_fork() and "forkserver" in multiprocessing.get_all_start_methods():
            mp_context = multiprocessing.get_context("forkserver")
        self._max_workers = max_workers or os.cpu_count() or 1
        self._modules: list = []
        self._make = lambda: ProcessPoolExecutor(max_workers=self._max_workers, mp_context=mp_context,
                                                 initializer=import_modules if self._modules else None,
                                                 initargs=(self._modules,))
        self._pool = self._make()
        self._used = False

    def preload(self, modules) -> None:
        """Start the worker processes now, each importing ``modules`` first (also after a
        :meth:`restart`)."""
        self._modules = list(modules)
        if not self._used:
            self._pool.shutdown()
            self._pool = self._make()
        try:
            for fut in [self.submit(os.getpid) for _ in range(self._max_workers)]:
                fut.result()
        except BrokenProcessPool:  # the import failed in a worker (its traceback is on standard error)
            self._modules = []
            self.restart()
            raise ImportError(f"a worker process could not import {', '.join(modules)}") from None

    def submit(self, fn, *args, **kwargs):
        """Schedule ``fn(*args, **kwargs)`` on the current pool; returns its future."""
        self._used = True
        return self._pool.submit(fn, *args, **kwargs)

    def restart(self) -> None:
        """Drop the broken pool and start a new one."""
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._make()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Shut the current pool down (as :meth:`concurrent.futures.Executor.shutdown`)."""
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def usable_cores() -> int:
    """The cores this process may run on: ``os.sched_getaffinity`` where the platform has it
    (a container or ``taskset`` may allow fewer than the machine has), else ``os.cpu_count()``.

    >>> usable_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def loaded_packages() -> list[str]:
    """The symrel packages this process has imported (but the command line's): what a worker
    needs to import to run the tasks of this process (:func:`preload`)."""
    import sys

    return sorted({".".join(m.split(".")[:2]) for m in list(sys.modules)
                   if m.startswith("symrel.") and m.split(".")[1] != "cli"})


class WarmingProcessPool(RestartingProcessPool):
    """A :class:`RestartingProcessPool` of ``max_workers`` processes that starts only when the
    work outlasts ``warmup`` seconds: until then each task runs here, at once, when it is
    submitted (its future is done on return). A short computation thus pays neither the
    start of the processes nor their import of symrel (about a second each), and a long one
    gets every worker from then on. The results are those of any executor
    (:func:`map_ordered`); only where the tasks ran differs.

    >>> pool = WarmingProcessPool(2, warmup=60)
    >>> map_ordered(divmod, [7, 9], pool, shared=(100,)), pool.started
    ([(14, 2), (11, 1)], False)
    >>> pool.shutdown()
    """

    def __init__(self, max_workers: int | None = None, mp_context=None, warmup: float = 1.0):
        self._max_workers = max_workers or usable_cores()
        self._mp_context, self._warmup = mp_context, warmup
        self._modules: list = []
        self._pool = None
        self._first = None   # when the first task was submitted (time.monotonic())
        self._used = False

    @property
    def started(self) -> bool:
        """Whether the worker processes were started."""
        return self._pool is not None

    def preload(self, modules) -> None:
        """The modules each worker will import when the pool starts (it does not start here)."""
        self._modules = list(modules)

    def submit(self, fn, *args, **kwargs):
        import time

        now = time.monotonic()
        if self._pool is None:
            if self._first is None:
                self._first = now
            if now - self._first < self._warmup:
                return _run_here(fn, args, kwargs)
            RestartingProcessPool.__init__(self, self._max_workers, self._mp_context)
            RestartingProcessPool.preload(self, self._modules or loaded_packages())
        return RestartingProcessPool.submit(self, fn, *args, **kwargs)

    def restart(self) -> None:
        if self._pool is not None:
            RestartingProcessPool.restart(self)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._pool is not None:
            RestartingProcessPool.shutdown(self, wait=wait, cancel_futures=cancel_futures)


def _run_here(fn, args, kwargs):
    """``fn(*args, **kwargs)`` run now, in this process, as a done future (a shared argument
    sent once, :class:`_SentOnce`, is the object it carries)."""
    from concurrent.futures import Future

    args = tuple(a.obj() if isinstance(a, _SentOnce) else a for a in args)
    future: Future = Future()
    try:
        future.set_result(fn(*args, **kwargs))
    except BaseException as err:  # raised again by future.result(), as a worker's would be
        if not isinstance(err, Exception):
            raise
        future.set_exception(err)
    return future


def chunked(items, executor=None, per_worker: int = 4) -> list[list]:
    """``items`` cut into consecutive runs, about ``per_worker`` per worker of ``executor``
    (one run in all when it is ``None``): tasks big enough to pay for their transfer,
    enough of them to keep every worker busy. Concatenated, the runs are ``items``.

    >>> chunked(list(range(5)), None), len(chunked(list(range(100)), _FakePool()))
    ([[0, 1, 2, 3, 4]], 8)
    """
    items = list(items)
    parts = 1 if executor is None else max(1, min(len(items), per_worker * worker_count(executor)))
    n = len(items)
    return [items[k * n // parts:(k + 1) * n // parts] for k in range(parts)]


class _FakePool:  # for the doctest: a pool of two workers
    _max_workers = 2


def _safe_to_fork() -> bool:
    """Whether forking this process is safe: no other Python thread, and none of the libraries
    known to run native threads (jax, torch, tensorflow) loaded; a fork copies a lock held
    by another thread in its held state, and the child can deadlock on it."""
    import sys
    import threading

    return threading.active_count() == 1 and not any(m in sys.modules for m in ("jax", "torch", "tensorflow"))


def _lost_worker(err: BaseException) -> bool:
    """Whether ``err`` says a worker went away (rather than the task itself failing)."""
    if isinstance(err, BrokenProcessPool):
        return True
    names = {c.__name__ for c in type(err).__mro__}
    return bool(names & {"KilledWorker", "CommClosedError", "FutureCancelledError", "CancelledError"})


def _share(executor, shared):
    """The shared arguments as the tasks receive them: scattered once to every Dask
    worker (the tasks then carry only a key); pickled once here and unpickled once per
    worker process for a process pool (:class:`_SentOnce`); as they are for other executors."""
    if not shared:
        return ()
    if isinstance(executor, WarmingProcessPool) and not executor.started:
        return tuple(shared)   # the tasks may run here: nothing to pickle yet
    if is_dask(executor):
        return tuple(executor._client.scatter(list(shared), broadcast=True, hash=False))
    from concurrent.futures import ProcessPoolExecutor

    if isinstance(executor, (ProcessPoolExecutor, RestartingProcessPool)):
        return tuple(_SentOnce(obj) for obj in shared)
    return tuple(shared)


_KEPT = 4  # shared objects a worker keeps: those of the last few maps


class _SentOnce:
    """A shared argument on its way to a process pool's workers, pickled once here and named
    by the sha256 of its bytes; each task carries the bytes, and a worker unpickles them only
    the first time it meets the name, then hands every later task the same object. So a
    search that maps round after round over one large context (``symrel verify``) neither
    unpickles it per task nor rebuilds what the object caches. The name is the content's, not
    the object's: an object changed between two maps is sent anew, never stale."""

    def __init__(self, obj):
        import hashlib
        import pickle

        self.payload = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        self.token = hashlib.sha256(self.payload).hexdigest()

    def __reduce__(self):
        return _received, (self.token, self.payload)

    def obj(self):
        """The object itself, as a worker gets it (unpickled once per name in this process)."""
        return _received(self.token, self.payload)


_RECEIVED: dict = {}  # in a worker: token -> the object, the last few


def _received(token: str, payload: bytes):
    """In a worker: the object of ``token``, unpickled from ``payload`` the first time."""
    obj = _RECEIVED.get(token, _RECEIVED)
    if obj is _RECEIVED:
        import pickle

        obj = pickle.loads(payload)
        _remember(_RECEIVED, token, obj)
    return obj


def _remember(table: dict, key, value) -> None:
    table[key] = value
    while len(table) > _KEPT:
        del table[next(iter(table))]  # the oldest entry: dicts keep their insertion order


def _impure(executor):
    """A Dask executor that submits every task as a new one (``pure=False``): Dask would
    otherwise hash each task's arguments to give equal calls one key (time spent in
    the driver for tasks that are never equal here, and equal calls, such as the
    warm-up of every worker, would run once)."""
    if is_dask(executor) and "pure" not in executor._kwargs:
        return executor._client.get_executor(pure=False, **executor._kwargs)
    return executor


def import_modules(modules) -> int:
    """Import ``modules`` (names) here; returns this process's id (run on each worker
    by :func:`preload`)."""
    import importlib

    for name in modules:
        importlib.import_module(name)
    return os.getpid()


def preload(executor, modules) -> None:
    """Have every worker of ``executor`` import ``modules`` now, before the work starts,
    so that the first tasks do not pay for importing symrel and sympy (about a second
    per worker process), and a worker without symrel fails here, not in mid-run.
    Dask: on each worker (``Client.run``); a process pool: one import per worker
    process started; in this process (``None``, threads): nothing to do.

    >>> preload(None, ["symrel.exact"])
    """
    if executor is None or not modules:
        return
    if is_dask(executor):
        executor._client.run(import_modules, list(modules))
    elif hasattr(executor, "preload"):
        executor.preload(list(modules))


def map_ordered(fn, items, executor=None, *, shared=(), progress=None, retries: int = 2) -> list:
    """``[fn(*shared, item) for item in items]``, computed on ``executor``.

    Definition: the result list of the serial loop; the tasks run in any order and
    on any worker, the results are put back in the order of ``items``.
    ``shared``: leading arguments every task receives (sent once per Dask worker).
    ``progress``: called as ``progress(finished, total, result)`` in this process after
    each task (in the order tasks finish).
    ``retries``: how many times the tasks of a dead worker are submitted again before
    :class:`WorkerLostError` is raised. An exception raised by ``fn`` itself is raised
    here unchanged (after the other tasks are cancelled).
    Cost: one submission per item (plus one scatter per shared argument on Dask).

    >>> map_ordered(divmod, [7, 9], shared=(100,))
    [(14, 2), (11, 1)]
    """
    items = list(items)
    total = len(items)
    if executor is None:
        out = []
        for k, item in enumerate(items, 1):
            out.append(fn(*shared, item))
            if progress is not None:
                progress(k, total, out[-1])
        return out
    executor = _impure(executor)
    results: dict = {}
    pending = list(range(total))
    attempt = 0
    while pending:
        args = _share(executor, shared)  # again after a lost worker: its copy of the data may be the one lost
        futures = {executor.submit(fn, *args, items[i]): i for i in pending}
        lost, reason = [], None
        try:
            for fut in as_completed(futures):
                i = futures[fut]
                try:
                    results[i] = fut.result()
                except Exception as err:
                    if not _lost_worker(err):
                        raise
                    lost.append(i)
                    reason = reason or err
                    continue
                if progress is not None:
                    progress(len(results), total, results[i])
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        pending = sorted(lost)
        if pending:
            attempt += 1
            if attempt > retries:
                raise WorkerLostError(
                    f"a worker died and {len(pending)} of {total} tasks could not be run "
                    f"({type(reason).__name__}: {reason}); nothing was reported")
            if isinstance(reason, BrokenProcessPool):
                if not hasattr(executor, "restart"):
                    raise WorkerLostError(
                        f"a worker process died ({reason}); nothing was reported "
                        "(a plain process pool cannot be restarted: use --executor processes:N)")
                executor.restart()
    return [results[i] for i in range(total)]
