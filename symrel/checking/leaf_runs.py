"""Where the leaves of vnnlib-unsat and output-bounds certificates are checked: here, one after
the other, or on an executor's workers (:func:`leaves_checked_on`), with the same verdict.

The leaves of a certificate are independent: :func:`run_leaves` checks them in the trees' order
by the claim's own leaf check (:mod:`symrel.checking.relu_leaves`,
:mod:`symrel.checking.vnnlib_layered`, :mod:`symrel.checking.output_bounds`), or sends runs of
:data:`LEAVES_PER_TASK` of them to the workers, which run that same check (:func:`_check_run`)
on the certificate's data; the first leaf in the trees' order that fails is the one reported.

>>> run_leaves(None, None, iter([(0, "w", [], [], (), True)]), None, None, 1,
...            lambda layers, facts, *rest: facts, None)
True
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from ..exact.sizes import arithmetic_limits, current_arithmetic_limits
from . import CertificateError, at_step


@dataclass(frozen=True)
class LeafRun:
    """How the vnnlib-unsat and output-bounds checks check their leaves (:func:`leaves_checked_on`):
    ``executor``, a ``concurrent.futures``-style executor (``submit``) whose workers check
    runs of :data:`LEAVES_PER_TASK` leaves, or None (here, one after the other);
    ``progress(done, total)`` after each leaf or run of leaves; ``deadline``: wall-clock
    seconds (``time.time()``) past which the check stops with :class:`~symrel.errors.UndecidedError`."""

    executor: object = None
    progress: object = None
    deadline: float | None = None


_RUN: ContextVar = ContextVar("symrel_vnnlib_leaf_run", default=LeafRun())

#: leaves per task on an executor (about a second of work each on ACAS Xu)
LEAVES_PER_TASK = 64


@contextmanager
def leaves_checked_on(executor=None, progress=None, deadline=None):
    """Within this block, vnnlib-unsat certificates have their leaves checked on
    ``executor`` (:class:`LeafRun`). The leaves are independent, so the verdict is the one
    of the serial check, failure included: the first leaf in the trees' order that fails
    is the one reported, and an entry of a tree after it is never blamed first. The
    workers run this module's own code (:func:`_check_run`) on the certificate's data;
    nothing of the caller's is trusted but the executor's ``submit``."""
    token = _RUN.set(LeafRun(executor, progress, deadline))
    try:
        yield
    finally:
        _RUN.reset(token)


def _out_of_time(done, total):
    from ..errors import UndecidedError

    return UndecidedError(f"time: the check of the certificate stopped at its deadline, {done} of {total} leaves "
                          "checked")


def _check_run(net, region, unsafe, leaves, deadline, limits, check, prepare):
    """A worker's task: the leaves ``leaves`` checked in order by ``check`` on ``prepare(net)``;
    per leaf whether it lies outside the region, then ``None`` for the leaves left at
    ``deadline``; a failure ends the list as ``("failed", its step, the error)``. ``limits``:
    the caller's arithmetic limits (:mod:`symrel.exact.sizes`), not inherited by a process."""
    import time

    out = []
    with arithmetic_limits(*(limits or ())):
        layers = prepare(net)
        for d, where, lo, hi, splits, facts in leaves:
            if deadline is not None and time.time() >= deadline:
                out.append(None)
                continue
            try:
                out.append(check(layers, facts, lo, hi, d, region, unsafe, where, splits))
            except Exception as err:  # raised in the parent, where the serial check would raise it
                out.append(("failed", d, _portable(err)))
                break
    return out


def _portable(err):
    """``err`` as it crosses to the parent process: symrel's errors as their class and parts
    (pickling one keeps only its message), any other as it is."""
    from ..errors import InputError

    if isinstance(err, CertificateError):
        return type(err), err.message, err.path, err.rule
    if isinstance(err, InputError) and type(err).__init__ is InputError.__init__:
        return type(err), err.message, err.path, err.file
    return err


def _rebuilt(sent):
    """The error :func:`_portable` sent."""
    return sent[0](*sent[1:]) if type(sent) is tuple else sent


def run_leaves(net, layers, leaves, region, unsafe, total, check, prepare) -> bool:
    """Check every leaf ``(d, where, lo, hi, splits, facts)`` of ``leaves`` (an iterator, in the
    trees' order) by ``check(layers, facts, lo, hi, d, region, unsafe, where, splits)`` as the
    current :class:`LeafRun` says; whether every leaf lies outside the region. ``layers`` is
    ``prepare(net)``, which a worker computes again (both module-level functions of a checker)."""
    import time

    run = _RUN.get()
    done, outside = 0, True
    if run.executor is None:
        for d, where, lo, hi, splits, facts in leaves:
            if run.deadline is not None and time.time() >= run.deadline:
                raise _out_of_time(done, total)
            outside = check(layers, facts, lo, hi, d, region, unsafe, where, splits) and outside
            done += 1
            if run.progress is not None:
                run.progress(done, total)
        return outside
    from collections import deque
    from concurrent.futures.process import BrokenProcessPool

    executor = run.executor
    workers = getattr(executor, "_max_workers", None) or 2
    pending: deque = deque()   # (future or None, the run's leaves), in the trees' order
    limits = tuple(current_arithmetic_limits())

    def settle(future, chunk):
        nonlocal done, outside
        try:
            results = future.result() if future is not None else None
        except BrokenProcessPool:   # a worker died: this run is checked here instead
            results = None
        if results is None:
            results = _check_run(net, region, unsafe, chunk, run.deadline, limits, check, prepare)
        for r in results:
            if r is None:
                raise _out_of_time(done, total)
            if type(r) is tuple:
                at_step(r[1])
                raise _rebuilt(r[2])
            outside = r and outside
            done += 1
        if run.progress is not None:
            run.progress(done, total)

    def submit(chunk):
        try:
            pending.append((executor.submit(_check_run, net, region, unsafe, chunk, run.deadline, limits, check,
                                            prepare), chunk))
        except (BrokenProcessPool, RuntimeError):   # a broken or shut pool: this run is checked here
            pending.append((None, chunk))
        while len(pending) > 2 * workers:
            settle(*pending.popleft())

    chunk, failure, it = [], None, iter(leaves)
    try:
        while True:
            try:
                leaf = next(it)
            except StopIteration:
                break
            except Exception as err:   # the trees' error: reported after the leaves before it
                failure = err
                break
            chunk.append(leaf)
            if len(chunk) == LEAVES_PER_TASK:
                submit(chunk)
                chunk = []
        if chunk:
            submit(chunk)
        while pending:
            settle(*pending.popleft())
    finally:
        for future, _ in pending:   # left by a failure: not run
            if future is not None:
                future.cancel()
    if failure is not None:
        raise failure
    return outside
