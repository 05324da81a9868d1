"""Packages that load their names on first use (PEP 562: symrel, exact, models, constructions,
fileformat, certificates): a name equal to one of the package's submodules would be bound to
the submodule by the first import of that submodule, so such a name must be imported eagerly."""

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

LAZY = ["symrel", "symrel.exact", "symrel.models", "symrel.constructions", "symrel.fileformat", "symrel.certificates"]
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("package", LAZY)
def test_a_lazy_name_is_what_it_names_whatever_was_imported_first(package):
    module = importlib.import_module(package)
    lazy = set(getattr(module, "_FROM", {})) | set(module.__all__)
    submodules = {s.name for s in pkgutil.iter_modules(module.__path__)}
    for name in sorted(lazy & submodules):   # imported eagerly: still the function after the submodule
        code = f"import {package}.{name}\nfrom {package} import {name}\nassert callable({name}), {name}"
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
    for name in sorted(lazy - submodules):
        assert getattr(module, name) is not None


def test_the_constructions_name_the_functions():
    import symrel.constructions.relu_to_maxout  # noqa: F401 (the submodule first)
    from symrel.constructions import relu_to_maxout, to_maxout
    from symrel.models import DenseLayer, ReLUNet

    net = ReLUNet(1, [DenseLayer([[1]], [0])])
    assert relu_to_maxout(net)([2]) == to_maxout(net)([2]) == net([2])
