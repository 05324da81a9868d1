"""numpy's OpenBLAS on one thread while the engine's float proposals run.

Definition. :func:`one_thread` is a context manager: within it, the OpenBLAS library numpy
loaded (found among the process's mapped libraries, Linux only) runs on one thread; on leaving,
its former thread count is restored. Where no OpenBLAS is found (another BLAS, another system)
it does nothing.

Why: the float bounds, slopes and attacks are many small products (a few rows by a layer's
weights). OpenBLAS runs each on all its threads, which on a shared machine spin while they
wait: on 2 cores at load 6, 8 steps of :func:`symrel.vnnlib.slopes.optimise` on an MNIST net
took 589 ms of CPU on two threads and 6 ms on one. The worker processes of a search are the
parallelism; a product's threads only compete with them.

Cost: two calls into the library per block (the first block also reads ``/proc/self/maps``).

>>> with one_thread():
...     pass
"""

from __future__ import annotations

import ctypes
from contextlib import contextmanager

_NAMES = (("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
          ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
          ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
          ("openblas_set_num_threads", "openblas_get_num_threads"))
_FOUND: list = []  # [(set, get)] once looked up


def _functions():
    if _FOUND:
        return _FOUND[0]
    found = None
    try:
        import numpy  # noqa: F401  (loads its OpenBLAS)

        with open("/proc/self/maps", encoding="utf-8") as fh:
            paths = sorted({line.split()[-1] for line in fh if "openblas" in line.lower() and ".so" in line})
        for path in paths:
            lib = ctypes.CDLL(path)
            for set_name, get_name in _NAMES:
                if hasattr(lib, set_name) and hasattr(lib, get_name):
                    found = (getattr(lib, set_name), getattr(lib, get_name))
                    break
            if found:
                break
    except (OSError, ImportError):  # pragma: no cover - not Linux, or no numpy
        found = None
    _FOUND.append(found)
    return found


@contextmanager
def one_thread():
    """OpenBLAS on one thread within the block (module docstring)."""
    fns = _functions()
    if fns is None:
        yield
        return
    set_threads, get_threads = fns
    before = int(get_threads())
    if before != 1:
        set_threads(1)
    try:
        yield
    finally:
        if before != 1:
            set_threads(before)
