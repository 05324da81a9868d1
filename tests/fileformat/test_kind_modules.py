"""The registry is written out (KIND_MODULES), and reading one kind loads its module only."""

import subprocess
import sys
from pathlib import Path

import pytest

from symrel.fileformat.registry import KIND_MODULES, READERS, _load_plugins

ROOT = Path(__file__).resolve().parents[2]


def test_every_registered_reader_is_listed_with_its_module():
    _load_plugins()
    assert {kind: fn.__module__ for kind, fn in READERS.items()} == KIND_MODULES


def test_reading_a_model_imports_no_algorithm_package():
    code = ("import sys; from symrel.fileformat import from_json; "
            "from_json({'symrel': 1, 'kind': 'box', 'bounds': [[0, 1]]}); "
            "print(sorted(m for m in sys.modules if m.startswith(('symrel.preorders', 'symrel.relations'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"


def test_a_package_above_registers_its_kinds_by_name_and_cannot_take_over_one():
    """The preorder and relation kinds are named by the package root (symrel/__init__.py),
    the file format never names them; their modules load on the first read."""
    from symrel.fileformat.registry import register_kind_module

    assert KIND_MODULES["preorder"] == "symrel.preorders.io"
    assert KIND_MODULES["relation-features"] == "symrel.relations.io"
    source = (ROOT / "symrel" / "fileformat" / "registry.py").read_text()
    assert "symrel.preorders" not in source and "symrel.relations" not in source
    register_kind_module("preorder", "symrel.preorders.io")   # the same again: fine
    with pytest.raises(ValueError):
        register_kind_module("box", "symrel.preorders.io")


def test_reading_a_preorder_loads_its_module_on_first_use():
    code = ("import sys; from symrel.fileformat import from_json; "
            "assert 'symrel.preorders' not in sys.modules; "
            "p = from_json({'symrel': 1, 'kind': 'preorder', 'elements': ['a', 'b'], 'leq': [['a', 'b']]}); "
            "print(type(p).__module__, 'symrel.preorders.io' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["symrel.preorders.preorder", "True"]
