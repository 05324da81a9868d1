"""``--digits N``: every command that prints rationals also shows them as decimals
(one helper, symrel.cli.common.shown); the exact value comes first, and JSON output
is the same with and without it."""

import json
import re

import pytest

from symrel.cli.common import DISPLAY_DIGITS, shown, shown_point
from symrel.compiler import compile_maxout
from symrel.exact import Q
from symrel.fileformat import save
from symrel.models import Box, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet

_DECIMAL = re.compile(r"\(~-?[0-9.]+(e[-+]?\d+)?\)")


@pytest.fixture
def files(tmp_path):
    net = ReLUNet(1, [DenseLayer([["1/3"]], ["1/7"], "relu"), DenseLayer([[1]], [0], "none")])
    other = ReLUNet(1, [DenseLayer([["1/3"]], ["1/6"], "relu"), DenseLayer([[1]], [0], "none")])
    save(net, tmp_path / "a.json")
    save(other, tmp_path / "b.json")
    save(Box([[-1, 1]]), tmp_path / "D.json")
    maxout = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, "1/3"])])])
    save(maxout, tmp_path / "m.json")
    save(compile_maxout(maxout, Box([[-1, 1]])).transformer, tmp_path / "T.json")
    return tmp_path


def test_the_helper():
    token = DISPLAY_DIGITS.set(None)
    try:
        assert shown(Q(1, 3)) == "1/3"
        DISPLAY_DIGITS.set(4)
        assert shown(Q(1, 3)) == "1/3 (~0.3333)" and shown(Q(5)) == "5" and shown(Q(-1, 8)) == "-1/8 (~-0.125)"
        assert shown_point([Q(1, 2), Q(2)]) == "(1/2 (~0.5), 2)"
    finally:
        DISPLAY_DIGITS.reset(token)


def test_prove_counterexample(run_cli, files):
    argv = ("prove", files / "a.json", files / "b.json", "--domain", files / "D.json")
    code, _, err = run_cli(*argv)
    # without --digits only the headline max |A - B| gets a decimal (6 digits)
    assert code == 1 and [l for l in err.splitlines() if "(~" in l] == ["max |A - B| at x: 1/42 (~0.0238095)"]
    code, _, err = run_cli(*argv, "--digits", "5")
    line = next(l for l in err.splitlines() if l.startswith("max |A - B|"))
    assert code == 1 and line == "max |A - B| at x: 1/42 (~0.02381)"
    assert "at x: A(x) = (1/7 (~0.14286)), B(x) = (1/6 (~0.16667))" in err
    # before the subcommand too; the JSON keeps the exact values alone
    assert json.loads(run_cli("--digits", "5", *argv, "--json")[1]) == json.loads(run_cli(*argv, "--json")[1])


def test_softmax_bound_and_compile(run_cli, files):
    code, out, _ = run_cli("softmax-bound", files / "T.json", "--domain", files / "D.json", "--eps", "1/1000",
                           "--digits", "3")
    assert code == 0 and re.fullmatch(r"\d+/\d+ \(~[0-9.]+\)", out.strip().splitlines()[-1])
    assert "eps = 1/1000 (~0.001)" in out
    code, out, _ = run_cli("compile", files / "m.json", "--domain", files / "D.json", "-o", files / "T2.json",
                           "--digits", "4")
    assert code == 0 and "gating bounds B: 4/3 (~1.333)" in out


def test_eval_regions_crossval(run_cli, files):
    code, out, _ = run_cli("eval", files / "a.json", "--input", "1", "--digits", "2")
    assert code == 0 and out.strip() == "10/21 (~0.48)"
    code, _, err = run_cli("regions", files / "m.json", "--domain", files / "D.json", "--slice", "1", "--at", "1/3",
                           "--digits", "3")
    assert code == 0 and "through x = (1/3 (~0.333))" in err
    pytest.importorskip("numpy")
    code, out, _ = run_cli("crossval", files / "a.json", "--points", "10", "--digits", "3")
    assert code == 0 and _DECIMAL.search(out.strip().splitlines()[-1])
    plain = json.loads(run_cli("crossval", files / "a.json", "--points", "10", "--json")[1])
    with_digits = json.loads(run_cli("crossval", files / "a.json", "--points", "10", "--json", "--digits", "3")[1])
    for d in (plain, with_digits):
        d.pop("seconds", None)
    assert plain == with_digits


def test_relation_witness(run_cli, tmp_path):
    rel = {"symrel": 1, "kind": "relation", "x": [[0], [1]], "r": [["1/3", 1], [1, "1/3"]]}
    (tmp_path / "r.json").write_text(json.dumps(rel))
    code, _, err = run_cli("relation", tmp_path / "r.json", "--symmetric", "-o", tmp_path / "f.json", "--digits", "3")
    assert code == 1 and "with z^T R z = -8/3 (~-2.67) < 0" in err


@pytest.mark.parametrize("bad", ["0", "1001", "-3"])
def test_bad_digits_exit_2(run_cli, files, bad):
    code, out, err = run_cli("prove", files / "a.json", files / "b.json", "--domain", files / "D.json", "--digits", bad)
    assert code == 2 and "--digits" in err and out == ""
