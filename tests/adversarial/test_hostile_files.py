"""The hostile files of hostile_files.py are the ones kept in files/, every one has its row in
hostile.py, README.md and docs/checker.md list them as hostile.py says, and the rows hold
through real ``python -m symrel`` processes (a sample, and every row in the slow test)."""

import os
import subprocess
import sys

import pytest

from .hostile import (CHECKER_PAGE, FILES, KIND_TITLES, PAGE_BEGIN, PAGE_END, README, README_BEGIN, README_END, ROOT,
                      ROWS, check_row, page_section, readme_section, rows, updated, working_folder)
from .hostile_files import DEVICES, GENERATED, WRITTEN_BY_SYMREL, needs_onnx, onnx_installed, small_files


def test_the_kept_files_are_the_ones_the_module_writes(tmp_path):
    written = small_files(tmp_path)
    for name, data in written.items():
        assert (FILES / name).exists(), f"{name}: python -m tests.adversarial.hostile_files writes it"
        if name not in WRITTEN_BY_SYMREL:
            assert (FILES / name).read_bytes() == data, name


def test_every_hostile_file_has_a_row_and_every_row_a_file(tmp_path):
    written = set(small_files(tmp_path)) | set(GENERATED) | set(DEVICES)
    named = {row.file for row in ROWS}
    if not onnx_installed():   # symrel's core writes no ONNX file: the others are compared
        named = {name for name in named if name in DEVICES or not needs_onnx(name)}
    helpers = {name for name in written if name.startswith("helper-") or name.endswith(".bin")}
    assert named <= written and written - helpers <= named, (named ^ (written - helpers))
    assert len(named) >= 30


def test_the_listings_are_current():
    for path, begin, end, section in ((README, README_BEGIN, README_END, readme_section()),
                                      (CHECKER_PAGE, PAGE_BEGIN, PAGE_END, page_section())):
        text = path.read_text(encoding="utf-8")
        assert updated(text, begin, end, section) == text, f"{path.name}: python -m tests.adversarial.hostile"


def _run_process(row, folder):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    run = subprocess.run([sys.executable, "-m", "symrel", *row.argv], capture_output=True, text=True,
                         encoding="utf-8", cwd=folder, env=env, timeout=300)
    check_row(row, run.returncode, run.stdout, run.stderr, folder)


SAMPLE = [rows(kind)[0] for kind in KIND_TITLES]


@pytest.mark.parametrize("row", SAMPLE, ids=lambda row: row.file)
def test_a_row_of_each_format_through_a_real_process(row, tmp_path):
    _run_process(row, working_folder(tmp_path))


@pytest.mark.slow
def test_every_row_through_a_real_process(tmp_path):
    folder = working_folder(tmp_path)
    for row in ROWS:
        for name in ("out.json", "box.json", "results.csv"):
            if (folder / name).exists():
                (folder / name).unlink()
        _run_process(row, folder)
