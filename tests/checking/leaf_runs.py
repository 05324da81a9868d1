"""What the tests of a vnnlib-unsat certificate's leaves checked on an executor share
(test_vnnlib_leaves.py for ReLU nets, test_vnnlib_layered_leaves.py for layered nets): the
outcome of a check, the executors, the leaves' places, a broken copy of a certificate, a pool
whose workers all died, and the checks of a deadline and of progress on every executor."""

import copy
import multiprocessing
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.checking.vnnlib import leaves_checked_on
from symrel.errors import UndecidedError


def outcome(cert, executor=None, **kw):
    """What the check says: the summary, or the error's class, path and message."""
    try:
        with leaves_checked_on(executor, **kw):
            return check_certificate(copy.deepcopy(cert))
    except CertificateError as err:
        return type(err).__name__, err.path, str(err)


@pytest.fixture(scope="module")
def executors():
    """A pool of two threads and one of two processes."""
    threads = ThreadPoolExecutor(2)
    processes = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("forkserver"))
    yield [threads, processes]
    threads.shutdown()
    processes.shutdown()


def leaf_paths(cert):
    """``(step, index in its tree)`` of every leaf, in the trees' order."""
    return [(d, k) for d, step in enumerate(cert["steps"]) for k, entry in enumerate(step["certificate"]["tree"])
            if "leaf" in entry]


def broken(cert, *edits):
    """A copy of ``cert`` (without its statement) with each of ``edits`` applied in turn."""
    bad = copy.deepcopy(cert)
    bad["claim"].pop("statement", None)
    for edit in edits:
        edit(bad)
    return bad


class BrokenPool:
    """An executor whose every submit finds a worker dead."""

    _max_workers = 2

    def submit(self, *args, **kwargs):
        from concurrent.futures.process import BrokenProcessPool

        raise BrokenProcessPool("a worker died")


def assert_a_deadline_past_stops_the_check(cert, executors):
    """Here and on every executor: a deadline already past, undecided with no leaf checked."""
    for executor in [None] + executors:
        with pytest.raises(UndecidedError, match=r"time: .* 0 of \d+ leaves checked"):
            with leaves_checked_on(executor, deadline=0.0):
                check_certificate(copy.deepcopy(cert))


def assert_progress_counts_the_leaves(cert, executors):
    """Here and on every executor: the certificate checked, progress rising to all its leaves."""
    total = len(leaf_paths(cert))
    for executor in [None] + executors:
        seen = []
        assert outcome(cert, executor, progress=lambda done, n: seen.append((done, n)))["result"] == "checked"
        assert seen[-1] == (total, total) and [d for d, _ in seen] == sorted(d for d, _ in seen)
        assert all(n == total for _, n in seen)


def assert_every_executor_gives_the_serial_outcome(target, executors, where=None):
    """The serial check of ``target``: accepted (``where`` None), or refused at a path that
    starts with ``where``; and every executor's outcome the same, message included."""
    serial = outcome(target)
    if where is None:
        assert serial["result"] == "checked"
    else:
        assert serial[0] in ("CertificateError", "MalformedCertificate")
        assert serial[1].startswith(where), serial
    for executor in executors:
        assert outcome(target, executor) == serial
