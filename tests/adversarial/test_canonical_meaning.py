"""One exact meaning per text (issue 39, item 3): two inputs get the same canonical sha256 only
if symrel reads them as the same exact object.

The canonical text used to write a JSON float (``0.1``, which symrel refuses or, with exact
floats, reads as 3602879701896397/36028797018963968) as the string ``"0.1"`` (1/10), so a
certificate about one was "bound" to a file holding the other. The property test below draws
pairs of JSON files spelling numbers every way (JSON integers and floats, decimal strings,
fractions, exponents, signs, leading zeros, escapes, blanks, key orders, nested lists and
objects) and checks that equal hashes imply equal exact readings, with and without exact
floats; the hostile pair of files/ goes through ``check-certificate --input``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symrel.errors import InputError
from symrel.exact import FloatLiteral, rational
from symrel.fileformat import canonical_dumps, loads, read_json, sha256_of, write_json_atomic

HERE = Path(__file__).resolve().parent
FILES = HERE / "files"
ROOT = HERE.parents[1]


def reading(obj, exact_floats: bool):
    """What symrel reads ``obj`` as: objects and lists entry by entry, each number (a JSON
    integer, a number string, a JSON float) as its exact rational, a JSON float without exact
    floats as refused, any other string as its text."""
    if type(obj) is dict:
        return "object", tuple(sorted((key, reading(value, exact_floats)) for key, value in obj.items()))
    if type(obj) is list:
        return "list", tuple(reading(value, exact_floats) for value in obj)
    if obj is None or type(obj) is bool:
        return "literal", obj
    try:
        return "number", rational(obj, exact_floats=exact_floats)
    except InputError:
        return ("refused",) if isinstance(obj, FloatLiteral) else ("text", obj)


def same_json(a, b) -> bool:
    """``a == b`` telling a JSON float from the string of its text and a bool from an int."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


# -- JSON text spelling numbers every way ---------------------------------------------------------

JSON_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


@st.composite
def numerals(draw) -> str:
    """The text of a number: a sign (or none, or +), digits with leading zeros, a point, an
    exponent, or a fraction."""
    sign = draw(st.sampled_from(["", "", "-", "+"]))
    whole = draw(st.sampled_from(["0", "1", "3", "10", "007", "12345678901234567890", ""]))
    frac = draw(st.sampled_from([None, None, "", "1", "10", "5", "000", "3333333333333333"]))
    exp = draw(st.sampled_from([None, None, "0", "1", "-1", "+2", "-20", "308", "400"]))
    if draw(st.booleans()) and whole:
        return f"{sign}{whole}/{draw(st.sampled_from(['1', '2', '3', '10', '007', '-4']))}"
    text = sign + whole + ("" if frac is None else "." + frac)
    if exp is not None:
        text += draw(st.sampled_from("eE")) + exp
    return text if any(ch.isdigit() for ch in text) else "0"


def spellings(numeral: str) -> list[str]:
    """JSON tokens for ``numeral``: the string of its text, an escaped spelling of that string
    (the same JSON value), and when JSON allows it the bare number (a JSON integer or float)."""
    out = [json.dumps(numeral), '"' + "".join(f"\\u{ord(ch):04x}" for ch in numeral) + '"']
    if JSON_NUMBER.fullmatch(numeral):
        out.append(numeral)
        if "." not in numeral and "e" not in numeral.lower():
            out += [numeral + ".0", numeral + "e0"]   # a JSON float of an integer's value
    return out


leaves = st.one_of(
    numerals().map(lambda n: ("numeral", n)),
    st.sampled_from(["true", "false", "null", '"abc"', '"x"', '""']).map(lambda t: ("token", t)),
)
trees = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=4).map(lambda items: ("list", items)),
        st.dictionaries(st.sampled_from(["a", "b", "w", "b ", "\u00e9"]), children, max_size=4)
        .map(lambda d: ("object", sorted(d.items()))),
    ),
    max_leaves=12,
)


def render(tree, draw) -> str:
    """JSON text of ``tree``: each numeral spelled one of its ways, blanks and key order drawn."""
    kind, body = tree
    blank = draw(st.sampled_from(["", " ", "\n  ", "\t"]))
    if kind == "numeral":
        return draw(st.sampled_from(spellings(body)))
    if kind == "token":
        return body
    if kind == "list":
        return "[" + blank + ("," + blank).join(render(item, draw) for item in body) + blank + "]"
    items = list(body)
    items = draw(st.permutations(items)) if items else items
    return "{" + blank + ("," + blank).join(json.dumps(k) + ":" + blank + render(v, draw) for k, v in items) + "}"


@st.composite
def file_pairs(draw):
    """Two JSON texts: the same tree spelled twice (often the same value, often not: a float
    against the string of its text, an integer against its string), or two trees."""
    first = draw(trees)
    second = first if draw(st.integers(0, 3)) else draw(trees)
    return render(first, draw), render(second, draw)


def _hash_or_none(text: str):
    try:
        obj = loads(text)
    except InputError:   # beyond a limit: not a file symrel reads
        return None, None
    return obj, sha256_of(obj)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file_pairs())
def test_equal_hashes_imply_equal_exact_readings(pair):
    (a, ha), (b, hb) = map(_hash_or_none, pair)
    if ha is None or hb is None:
        return
    for exact_floats in (False, True):
        if ha == hb:
            assert reading(a, exact_floats) == reading(b, exact_floats), pair
        elif same_json(a, b):
            raise AssertionError(f"one JSON value, two hashes: {pair}")


@settings(max_examples=500, deadline=None)
@given(trees, st.data())
def test_the_canonical_text_reads_back_as_the_same_object(tree, data):
    try:
        obj = loads(render(tree, data.draw))
    except InputError:
        return
    text = canonical_dumps(obj)
    assert same_json(loads(text), obj)      # a JSON float stays one, a string stays one
    assert canonical_dumps(loads(text)) == text


def test_a_json_float_and_the_string_of_its_text_never_share_a_hash():
    for token in ("0.1", "0.5", "1e-1", "1.0", "-0.0", "1E400", "123456789012345678901234567890.5"):
        as_float, as_string = loads(f"[{token}]"), loads(f"[{json.dumps(token)}]")
        assert type(as_float[0]) is FloatLiteral and type(as_string[0]) is str
        assert sha256_of(as_float) != sha256_of(as_string), token
        assert canonical_dumps(as_float).split() == ["[", token, "]"]
    assert rational(loads("[0.1]")[0], exact_floats=True) != rational("0.1")   # why: two meanings


def test_a_rewritten_file_keeps_its_json_floats(tmp_path):
    obj = loads('{"w": [0.1, "0.1", 3, 2.5e-3]}')
    write_json_atomic(tmp_path / "f.json", obj)
    back = read_json(tmp_path / "f.json")
    assert same_json(back, obj) and sha256_of(back) == sha256_of(obj)


def test_a_hand_made_float_literal_that_is_no_json_float_has_no_canonical_text():
    for text in ("1", "0x10", "1.", "\u0661.5", "nan"):
        with pytest.raises(ValueError):
            canonical_dumps([FloatLiteral(text)])


def test_a_lone_surrogate_hashes_one_to_one():
    one, other = loads('["\\ud800"]'), loads('["\\udc00"]')
    assert sha256_of(one) != sha256_of(other) and len(sha256_of(one)) == 64


def _check(*argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "symrel", "check-certificate", *argv], capture_output=True,
                          text=True, encoding="utf-8", cwd=FILES, env=env, timeout=120)


def test_a_certificate_binds_the_decimal_string_file_and_not_the_json_float_file():
    cert = read_json(FILES / "certificate-decimal-string-0.1.json")
    string_file, float_file = read_json(FILES / "model-decimal-string-0.1.json"), read_json(FILES / "model-json-float-0.1.json")
    assert cert["inputs"]["a"]["sha256"] == sha256_of(string_file) != sha256_of(float_file)
    bound = _check("certificate-decimal-string-0.1.json", "--input", "a=model-decimal-string-0.1.json")
    assert bound.returncode == 0 and "bound: input 'a' is the file model-decimal-string-0.1.json" in bound.stdout
    refused = _check("certificate-decimal-string-0.1.json", "--input", "a=model-json-float-0.1.json")
    assert refused.returncode == 1 and refused.stdout.strip() == "rejected", refused
    lines = refused.stderr.strip().splitlines()
    assert len(lines) == 1 and "inputs.a.sha256" in lines[0] and "not the same object" in lines[0]
    assert "JSON float 0.1 at layers[0].units[0].pieces[0].w[0]" in lines[0]
