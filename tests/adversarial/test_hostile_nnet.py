"""Hostile ``.nnet`` files (hostile.py, README.md "A fresh round"): each with its command, exit code
and line."""

import json

import pytest

from .hostile import N, rows, run_row, working_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return working_folder(tmp_path_factory.mktemp("hostile-nnet"))


@pytest.mark.parametrize("row", rows(N), ids=lambda row: row.file)
def test_each_file(row, folder, run_cli, monkeypatch):
    run_row(run_cli, row, folder, monkeypatch)


def test_a_negative_range_reverses_the_box(folder, run_cli, monkeypatch):
    row = next(r for r in rows(N) if r.file == "nnet-negative-range.nnet")
    run_row(run_cli, row, folder, monkeypatch)
    assert json.loads((folder / "box.json").read_text())["bounds"] == [[-1, 0], [-1, 0]]


def test_without_the_cr_the_file_is_the_helper_net(folder):
    """The file with the CR as a line feed is the helper net: only the line break was hostile."""
    from symrel.interop.nnet import load_nnet

    with open(folder / "nnet-cr-in-comment.nnet", encoding="utf-8", newline="") as fh:
        text = fh.read()
    fixed = load_nnet("fixed.nnet", text=text.replace("\r", "\n"))
    assert fixed.net() == load_nnet(folder / "helper-net-2.nnet").net()
