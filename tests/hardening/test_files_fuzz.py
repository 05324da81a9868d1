"""Fuzzed files of every kind in FORMAT.md, read through :func:`symrel.fileformat.load`.

A file is either refused with an :class:`~symrel.errors.InputError` whose one-line message
names the file (and, for a bad field, its path), or accepted; an accepted file round-trips
exactly: load -> save -> load gives an equal object and saving again gives the same bytes.
Anything else (another exception, a traceback) fails the test.
"""

from __future__ import annotations

import json
import os
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symrel.errors import InputError
from symrel.fileformat import load, save, write_json_atomic

from .corrupt import broken_file, broken_text, broken_tree
from .kinds import SAMPLES, certificate
from .valid import VALID

FUZZ = settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ALL = {**SAMPLES, "certificate": None}


def _read(data: bytes):
    """load() a file holding ``data``: ('ok', obj, folder) or ('error', InputError, name)."""
    folder = tempfile.mkdtemp(prefix="symrel-fuzz-")
    path = os.path.join(folder, "in.json")
    with open(path, "wb") as fh:
        fh.write(data)
    try:
        return "ok", load(path), folder
    except InputError as err:
        return "error", err, path


def assert_refused_well(err: InputError, path: str, field_error: bool) -> None:
    line = err.one_line()
    assert "\n" not in line and line.strip() == line
    assert line.startswith(path + ": "), line
    if field_error:   # valid JSON with a wrong field: the message names where
        assert err.path or "expected" in line, line


def _save(obj, path):
    if isinstance(obj, dict):
        write_json_atomic(path, obj)
    else:
        save(obj, path)


def assert_round_trip(obj, folder: str) -> None:
    """Certificates are kept as JSON objects (written with write_json_atomic); every
    other kind is a symrel object written with save()."""
    first, second = os.path.join(folder, "a.json"), os.path.join(folder, "b.json")
    _save(obj, first)
    again = load(first)
    assert again == obj
    _save(again, second)
    with open(first, "rb") as a, open(second, "rb") as b:
        assert a.read() == b.read()
    assert sorted(os.listdir(folder)) == ["a.json", "b.json", "in.json"]   # no temporary left


def _check(data: bytes, field_error: bool):
    outcome, value, where = _read(data)
    if outcome == "error":
        assert_refused_well(value, where, field_error)
    else:
        assert_round_trip(value, where)


@pytest.mark.parametrize("kind", sorted(VALID))
def test_random_valid_files_round_trip(kind):
    @FUZZ
    @given(VALID[kind])
    def run(obj):
        outcome, value, where = _read(json.dumps(obj).encode())
        assert outcome == "ok", value
        assert_round_trip(value, where)

    run()


@pytest.mark.parametrize("kind", sorted(ALL))
def test_broken_fields_are_refused_with_their_path_or_round_trip(kind):
    sample = SAMPLES.get(kind) or certificate()

    @FUZZ
    @given(broken_tree(sample))
    def run(tree):
        _check(json.dumps(tree, allow_nan=True).encode(), field_error=True)

    run()


@pytest.mark.parametrize("kind", sorted(ALL))
def test_broken_text_is_refused_in_one_line(kind):
    sample = SAMPLES.get(kind) or certificate()

    @settings(FUZZ, max_examples=40)
    @given(broken_text(sample))
    def run(data):
        _check(data, field_error=False)

    run()


@FUZZ
@given(st.sampled_from(sorted(SAMPLES)).flatmap(lambda k: broken_file(SAMPLES[k])))
def test_any_broken_file(data):
    _check(data, field_error=False)


@pytest.mark.parametrize("text, fragment", [
    ('{"symrel": 1, "kind": "points", "x": [[NaN]]}', "NaN"),
    ('{"symrel": 1, "kind": "points", "x": [[-Infinity]]}', "Infinity"),
    ('{"symrel": 1, "kind": "points", "x": [[1]], "x": [[2]]}', "duplicate key"),
    ('{"symrel": 1, "kind": "points", "x": [["1e10001"]]}', "exponent"),
    ('{"symrel": 1, "kind": "points", "x": [["1' + "0" * 10_001 + '"]]}', "digits"),
    ('{"symrel": 1, "kind": "points", "x": ' + "[" * 100 + "]" * 100 + "}", "nested"),
    ('{"symrel": 1, "kind": "relu", "input_dim": -2, "layers": []}', "input_dim"),
    ('{"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [{"W": [], "b": [], "activation": "relu"}]}', "layers[0].W"),
    ('{"symrel": 1, "kind": "maxout", "input_dim": 1, "layers": [{"units": []}]}', "layers[0].units"),
    ('{"symrel": 1, "kind": "transformer", "input_dim": 1, "width": 0, "tokens": 1}', "width"),
    ('{"symrel": 1, "kind": "transformer", "input_dim": 1, "width": 1, "tokens": 0}', "tokens"),
    ('{"symrel": 1, "kind": "relation", "x": [], "r": []}', "x"),
    ('{"symrel": 1, "kind": "preorder", "elements": [], "leq": []}', "elements"),
    ('{"symrel": 1, "kind": "retrieval", "keys": {}, "queries": {}, "preorders": {}}', "keys"),
])
def test_named_malformations(text, fragment):
    outcome, err, path = _read(text.encode())
    assert outcome == "error"
    assert_refused_well(err, path, field_error=True)
    assert fragment in err.one_line()


def test_bad_utf8_names_the_offset():
    outcome, err, path = _read(b'{"symrel": 1, "kind": "points", "x": [["\xff"]]}')
    assert outcome == "error" and "offset" in err.one_line() and err.one_line().startswith(path)
