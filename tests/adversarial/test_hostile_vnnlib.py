"""Hostile VNN-LIB files (hostile.py, README.md "A fresh round"): each with its command, exit code
and line; and the readers that disagree on the file with a CR alone in a comment, shown disagreeing."""


import pytest

from .hostile import V, rows, run_row, working_folder


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return working_folder(tmp_path_factory.mktemp("hostile-vnnlib"))


@pytest.mark.parametrize("row", rows(V), ids=lambda row: row.file)
def test_each_file(row, folder, run_cli, monkeypatch):
    run_row(run_cli, row, folder, monkeypatch)


def test_the_readers_disagree_on_a_cr_alone_in_a_comment(folder):
    """z3 (SMT-LIB) reads one unsafe assert fewer than Python's universal newlines (the
    competition's reader): the file has two meanings, and symrel refuses it."""
    z3 = pytest.importorskip("z3")
    path = folder / "vnnlib-cr-in-comment.vnnlib"
    by_z3 = len(z3.parse_smt2_file(str(path)))
    with open(path, encoding="utf-8") as fh:   # universal newlines, as the competition's scripts read it
        by_lines = sum(1 for line in fh if "(assert" in line.split(";")[0])
    assert (by_z3, by_lines) == (5, 6)


def test_the_witnesses_meet_the_property(folder):
    """The sat answers hold exactly: each witness is in the region and meets the unsafe condition.
    Where only the input-only disjunct (X_0 <= 1/4) is met, any point of it is a right answer, and
    which one the float search proposes is its own affair (sampling without numpy, climbs with it)."""
    from symrel.exact import Rational
    from symrel.verification import verify
    from symrel.vnnlib.reader import read_vnnlib

    for name, x in (("vnnlib-or-of-boxes.vnnlib", "7/8"), ("vnnlib-negative-zero.vnnlib", "0"),
                    ("vnnlib-input-only-disjunct.vnnlib", "0")):
        prop = read_vnnlib(folder / name, 2, 2)
        verdict = verify(folder / "helper-net-2.json", prop, executor="serial")
        wx, wy = verdict.witness.exact_x, verdict.witness.exact_y
        assert verdict.result == "sat" and prop.in_region(wx) and prop.holds(wx, wy)
        if name == "vnnlib-input-only-disjunct.vnnlib":
            assert 0 <= wx[0] <= Rational(1, 4), wx
        else:
            assert str(wx[0]) == x
