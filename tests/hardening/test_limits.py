"""Resource limits and the known defects the fuzz found.

The tests at the end once were strict xfails documenting defects found by the fuzz; the defects
are fixed and the tests stay as regression tests.
"""

from __future__ import annotations

import json

import pytest

from symrel.errors import InputError
from symrel.fileformat import dumps, load, loads_object

from .kinds import MAXOUT, POLYTOPE, certificate


def _points_text(number: str) -> str:
    return '{"symrel": 1, "kind": "points", "x": [[' + number + "]]}"


@pytest.mark.parametrize("number", ['"1' + "0" * 10_000 + '"', '"1/' + "3" * 10_001 + '"', '"1e10001"', '"1e-10001"',
                                    '"1e' + "9" * 50 + '"'])
def test_numbers_beyond_the_limits_are_refused_not_expanded(number):
    with pytest.raises(InputError, match=r"x\[0\]\[0\]: expected (at most 10000 digits|a decimal exponent)"):
        loads_object(_points_text(number))


def test_number_limits_are_configurable(run_cli, tmp_path):
    f = tmp_path / "p.json"
    f.write_text('{"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [{"W": [["123456"]], "activation": "none"}]}')
    code, _, err = run_cli("--max-digits", "5", "info", f)
    assert code == 2 and "layers[0].W[0][0]: expected at most 5 digits" in err and str(f) in err
    code, _, err = run_cli("--max-exponent", "3", "eval", f, "--input", "1e4")
    assert code == 2 and "--input[0]" in err


def test_deep_nesting_is_refused_before_parsing(tmp_path):
    f = tmp_path / "deep.json"
    f.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError, match="nested at most"):
        load(f)


# -- limits that once were defects, fixed since (kept as regression tests) ------------------------
def test_long_json_integers_are_read_or_refused_with_their_path():
    try:
        loads_object(_points_text("1" * 5000))
    except InputError as err:
        assert "x[0][0]" in err.one_line()


def test_numbers_within_the_limits_round_trip():
    obj = loads_object(_points_text('"1e5000"'))
    assert loads_object(dumps(obj)) == obj


def test_regions_with_integers_beyond_float_range(run_cli, tmp_path):
    net = json.loads(json.dumps(MAXOUT))
    net["layers"][0]["units"][0]["pieces"][0]["b"] = 10**400
    (tmp_path / "m.json").write_text(json.dumps(net))
    (tmp_path / "p.json").write_text(json.dumps(POLYTOPE))
    code, _, err = run_cli("regions", tmp_path / "m.json", "--domain", tmp_path / "p.json",
                           "--certificate", tmp_path / "c.json")
    assert code == 0


@pytest.mark.parametrize("step", [None, True, 3])
def test_check_certificate_with_a_step_that_is_not_an_object(run_cli, tmp_path, step):
    cert = certificate()
    cert["steps"][2] = step
    (tmp_path / "c.json").write_text(json.dumps(cert))
    code, _, err = run_cli("check-certificate", tmp_path / "c.json")
    assert code in (1, 2) and len(err.strip().splitlines()) == 1


def test_check_certificate_with_a_list_claim_kind(run_cli, tmp_path):
    cert = certificate()
    cert["claim"]["kind"] = []
    (tmp_path / "c.json").write_text(json.dumps(cert))
    code, _, err = run_cli("check-certificate", tmp_path / "c.json")
    assert code in (1, 2) and len(err.strip().splitlines()) == 1


def test_softmax_bound_with_a_long_box_bound(run_cli, tmp_path):
    from .kinds import TRANSFORMER

    (tmp_path / "t.json").write_text(json.dumps(TRANSFORMER))
    (tmp_path / "d.json").write_text(json.dumps({"symrel": 1, "kind": "box", "bounds": [[-1, "7" * 3900]]}))
    code, _, err = run_cli("softmax-bound", tmp_path / "t.json", "--domain", tmp_path / "d.json", "--eps", "1/10")
    assert code in (2, 3) and len(err.strip().splitlines()) == 1


def test_a_key_with_a_line_break_keeps_the_error_on_one_line():
    text = ('{"symrel": 1, "kind": "retrieval", "keys": {"k": [1]}, "queries": {"q": [1]}, '
            '"preorders": {"\\r\\nq": 0}}')
    with pytest.raises(InputError) as err:
        loads_object(text)
    assert len(err.value.one_line().splitlines()) == 1
