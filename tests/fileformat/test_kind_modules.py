"""The registry is written out (KIND_MODULES), and reading one kind loads its module only."""

import subprocess
import sys
from pathlib import Path

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
