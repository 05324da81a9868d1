"""Hostile symrel JSON files (hostile.py, README.md "A fresh round"): each with its command, exit
code and line."""

import pytest

from .hostile import J, rows, run_row, working_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return working_folder(tmp_path_factory.mktemp("hostile-json"))


@pytest.mark.parametrize("row", rows(J), ids=lambda row: row.file)
def test_each_file(row, folder, run_cli, monkeypatch):
    run_row(run_cli, row, folder, monkeypatch)


def test_an_exact_float_is_the_double_python_and_numpy_read(folder):
    """The JSON float 1e-400 with exact floats is the double its text denotes, as json and numpy read it."""
    import json

    from symrel.exact import Q
    from symrel.fileformat import load

    net = load(folder / "json-exact-float-underflow.json", exact_floats=True)
    assert json.loads("1e-400") == 0.0 and net.evaluate_exact([Q(1)]) == [Q(0)]
