"""Collection rules shared by ``tests/`` and the doctests of ``symrel/``.

pytest runs with ``--doctest-modules``, so it imports every module of ``symrel/`` and every helper
module under ``tests/``. Some of them need an optional extra (numpy, scipy, onnx, ...) at import
time. Without that extra the module's doctests, like the tests that use it, are *skipped*, and
say which extra they wait for. Any other import error stays an error: only a missing module that
is one of the extras listed in setup.cfg is excused.
"""

from __future__ import annotations

import re

import pytest

# Top-level names of the optional libraries (setup.cfg's extras); the core needs none of them.
OPTIONAL_MODULES = frozenset({
    "numpy", "scipy", "onnx", "onnxruntime", "torch", "tracr", "jax", "jaxlib", "haiku",
    "flint", "gmpy2", "z3", "distributed", "dask", "matplotlib", "tqdm", "hypothesis",
})

_MISSING = (
    re.compile(r"No module named '([A-Za-z0-9_.]+)'"),
    re.compile(r"MissingExtra: ([A-Za-z0-9_.]+) is not installed"),
)


def missing_optional_module(text: str) -> str | None:
    """The optional module an import failure's report names, or None.

    >>> missing_optional_module("E   ModuleNotFoundError: No module named 'numpy'")
    'numpy'
    >>> missing_optional_module("E   ModuleNotFoundError: No module named 'symrel.nowhere'") is None
    True
    """
    for pattern in _MISSING:
        match = pattern.search(text)
        if match and match.group(1).split(".")[0] in OPTIONAL_MODULES:
            return match.group(1)
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or not isinstance(collector, pytest.Module):
        return
    module = missing_optional_module(str(report.longrepr))
    if module is not None:
        report.outcome = "skipped"
        report.longrepr = (str(collector.path), 0, f"Skipped: needs the optional module {module}")
