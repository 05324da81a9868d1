"""Hostile counterexamples and instance lists (hostile.py, README.md "A fresh round"): each with
its command, exit code and line."""

import csv
import json

import pytest

from .hostile import W, rows, run_row, working_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return working_folder(tmp_path_factory.mktemp("hostile-lists"))


@pytest.mark.parametrize("row", rows(W), ids=lambda row: row.file)
def test_each_file(row, folder, run_cli, monkeypatch):
    run_row(run_cli, row, folder, monkeypatch)


def test_a_path_through_dotdot_is_recorded_by_name(folder, run_cli, monkeypatch):
    row = next(r for r in rows(W) if r.file == "instances-dotdot.csv")
    run_row(run_cli, row, folder, monkeypatch)
    (result,) = list(csv.DictReader((folder / "results.csv").open(encoding="utf-8")))
    assert result["result"] == "unsat" and result["check"] == "checked"
    claim = json.loads((folder / result["certificate"]).read_text())["claim"]
    assert claim["network_file"]["name"] == "helper-net-2.json" and ".." not in json.dumps(claim)


def test_the_float_check_reads_a_value_beyond_the_doubles_as_infinity():
    from symrel.exact import rational
    from symrel.vnnlib.reader import read_vnnlib_text
    from symrel.vnnlib.referee import competition_float, float_check

    prop = read_vnnlib_text("(declare-const X_0 Real)(declare-const Y_0 Real)(assert (>= X_0 0))(assert (<= X_0 1))"
                            "(assert (>= Y_0 1))")
    assert competition_float(rational("-1e400")) == float("-inf")
    check = float_check(prop, [rational("1e400")], None, [float("inf")])
    assert not check["in_region"] and not check["passes"]
