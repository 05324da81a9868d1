"""The ``--executor`` option: where a command's parallel work runs.

``--executor SPEC`` with SPEC one of

* ``serial`` (the default, but for ``symrel verify``: one worker process per usable core,
  :func:`symrel.verification.api.open_executor`): in this process;
* ``processes[:N]``: N local worker processes (default: one per core), restarted
  when one dies (:class:`symrel.parallel.RestartingProcessPool`);
* ``dask://HOST:PORT``: the workers of a running Dask scheduler (``dask scheduler``,
  ``dask worker tcp://HOST:PORT``; see docs/cluster.md);
* ``dask-local[:N]``: a Dask ``LocalCluster`` of N single-threaded worker processes
  started for this command, listening on 127.0.0.1 only, without a dashboard, and
  closed when the command ends.

The Dask ones need the optional extra ``dask`` (``pip install 'symrel[dask]'``);
without it the command exits 2 saying so. Every command gives the same output,
byte for byte, whichever executor runs it (:func:`symrel.parallel.map_ordered`).

>>> parse_executor("processes:3"), parse_executor("dask://10.0.0.5:8786")
(('processes', 3), ('dask', 'tcp://10.0.0.5:8786'))
>>> parse_executor("threads")
Traceback (most recent call last):
...
symrel.errors.InputError: --executor: expected serial, processes[:N], dask://HOST:PORT or dask-local[:N], got 'threads'
"""

from __future__ import annotations

import contextlib
import re

from ..errors import InputError

SPECS = "serial, processes[:N], dask://HOST:PORT or dask-local[:N]"
DASK_INSTALL = "pip install 'symrel[dask]'"


def parse_executor(spec: str):
    """``SPEC`` -> ``(kind, argument)``: ``("serial", None)``, ``("processes", N or None)``,
    ``("dask", "tcp://HOST:PORT")`` or ``("dask-local", N or None)``; errors name the option."""
    text = spec.strip()
    m = re.fullmatch(r"(serial|processes|dask-local)(?::([0-9]+))?", text)
    if m and not (m.group(1) == "serial" and m.group(2)):
        n = int(m.group(2)) if m.group(2) else None
        if n is not None and n < 1:
            raise InputError(f"expected at least 1 worker, got {text!r}", path="--executor")
        return m.group(1), n
    m = re.fullmatch(r"dask://([^\s:/]+|\[[0-9a-fA-F:]+\]):([0-9]{1,5})", text, re.ASCII)
    if m and 0 < int(m.group(2)) < 65536:
        return "dask", f"tcp://{m.group(1)}:{m.group(2)}"
    raise InputError(f"expected {SPECS}, got {spec!r}", path="--executor")


def add_executor_option(parser, what: str = "the tasks", default: str = "serial") -> None:
    """Add ``--executor SPEC`` to a subcommand's parser (``default``: what runs without it, in words)."""
    parser.add_argument("--executor", default=None, metavar="SPEC",
                        help=f"where {what} run: {SPECS} (default {default}; docs/cluster.md)")


def _distributed():
    try:
        import distributed
    except ImportError:
        raise InputError(f"the Dask executors need the optional extra dask ({DASK_INSTALL})", path="--executor") from None
    return distributed


# A LocalCluster we start is ours to tune: symrel's tasks are pure-Python exact arithmetic, so
# the workers' sampling profiler (every 10 ms) and the event loops' 20 ms ticks and 0.5 s system
# monitor only take CPU from the two or so cores the tasks need (measured on an idle 2-worker
# cluster: about 0.11 cores busy with them, 0.03 with these settings).
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


def worker_modules() -> list[str]:
    """The symrel packages this process has imported (but the command line's): what the
    workers will need to import to run its tasks, loaded by :func:`open_executor` before
    the work starts."""
    import sys

    return sorted({".".join(m.split(".")[:2]) for m in list(sys.modules)
                   if m.startswith("symrel.") and not m.startswith("symrel.cli")})


@contextlib.contextmanager
def open_executor(spec: str | None, jobs: int | None = None, *, start_method: str | None = None, preload=None):
    """The executor ``spec`` names, as a context manager (``None`` for serial); it is shut
    down on exit (a ``dask-local`` cluster is closed; a ``dask://`` client disconnects and
    leaves the scheduler and its workers running). ``jobs`` is the older ``--jobs N``,
    the same as ``processes:N`` (``1``: serial); giving both is an error. ``start_method``:
    how local worker processes start (``"spawn"`` when the command runs threads that do not
    survive a fork, e.g. jax's; default: the platform's). ``preload``: modules every worker
    imports before the work starts (:func:`symrel.parallel.preload`; default: the symrel
    packages this process has imported, :func:`worker_modules`), so that the start of the
    cluster, not its first tasks, pays for importing symrel and sympy."""
    if jobs is not None and jobs < 1:
        raise InputError(f"expected at least 1 job, got {jobs}", path="--jobs")
    if spec is not None and jobs not in (None, 1):
        raise InputError("give --executor or --jobs, not both", path="--jobs")
    kind, arg = parse_executor(spec) if spec is not None else (("processes", jobs) if jobs not in (None, 1) else ("serial", None))
    if kind == "serial":
        yield None
    elif kind == "processes":
        from ..parallel import RestartingProcessPool

        import multiprocessing

        pool = RestartingProcessPool(arg, multiprocessing.get_context(start_method) if start_method else None)
        try:
            preload_modules(pool, preload)
            yield pool
        finally:
            pool.shutdown(cancel_futures=True)
    elif kind == "dask":
        distributed = _distributed()
        try:
            client = distributed.Client(arg, timeout=10, set_as_default=False)
        except (OSError, TimeoutError) as err:
            raise InputError(f"cannot reach a Dask scheduler at {arg}: {err}", path="--executor") from None
        with _client_executor(client, preload) as executor:
            yield executor
    else:
        distributed = _distributed()
        import logging
        import os

        import warnings

        import dask

        with warnings.catch_warnings(), dask.config.set(LOCAL_CLUSTER_CONFIG):
            # the scheduler's small HTTP endpoint moves off a busy port 8787 quietly
            warnings.filterwarnings("ignore", message="Port .* is already in use")
            cluster = distributed.LocalCluster(n_workers=arg or os.cpu_count() or 1, threads_per_worker=1,
                                               processes=True, host="127.0.0.1", dashboard_address=None,
                                               silence_logs=logging.ERROR)
        client = distributed.Client(cluster, set_as_default=False)
        with _client_executor(client, preload, cluster) as executor:
            yield executor


@contextlib.contextmanager
def _client_executor(client, preload, cluster=None):
    """The executor of a Dask ``client``, its workers preloaded (:func:`preload_modules`);
    on exit the client disconnects, then ``cluster`` (a ``LocalCluster`` we started) closes."""
    try:
        executor = client.get_executor(pure=False)
        preload_modules(executor, preload)
        yield executor
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def preload_modules(executor, modules=None) -> None:
    """:func:`symrel.parallel.preload` of ``modules`` (default :func:`worker_modules`); a
    worker that cannot import them (symrel missing, another version) is a clear error."""
    from ..parallel import preload

    try:
        preload(executor, worker_modules() if modules is None else modules)
    except ImportError as err:
        raise InputError(f"a worker cannot import symrel ({err}): install the same symrel on every worker",
                         path="--executor") from None
