"""Hypothesis strategies that break a valid symrel file: a field replaced by a value of
the wrong type or size, a key dropped, or the text itself cut, corrupted or duplicated; and
the text formats (VNN-LIB, ``.nnet``, instance lists, counterexamples) broken by their tokens
(a format's words, hostile numbers and characters put in, tokens dropped, repeated or
swapped) or by their bytes (cut, flipped, CR or CRLF line ends, a BOM, a NUL). ONNX models are
broken in corrupt_onnx.py.

Every strategy draws a complete file (bytes); the tests only ask what symrel does with it.
"""

from __future__ import annotations

import json
import re

from hypothesis import strategies as st

# JSON integers stay below Python's 4,300-digit str->int limit here; the larger ones are
# the subject of an xfail test in test_limits.py.
HUGE_TEXTS = ["1" + "0" * 10_001, "1/" + "7" * 10_001, "1e10001", "-1e-99999999", "1e+1" + "0" * 30,
              "0." + "0" * 10_001 + "1", "1" * 10_001 + "/3"]
ODD_TEXTS = ["NaN", "Infinity", "-inf", "1/0", "0/0", "", " ", "1//2", "--1", "0x10", "1_000", "½",
             "\u0661", "1e", "e3", ".", "1/2/3", "+1/-2", "\ud800"]


# object keys of any text (line breaks and control characters included: a path naming one
# shows it escaped, so the error stays on one line); no lone surrogates, which UTF-8 cannot hold
KEY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=3)


def _deep(depth: int):
    v: object = 0
    for _ in range(depth):
        v = [v]
    return v


scalars = st.one_of(
    st.booleans(),
    st.integers(-10**6, 10**6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(HUGE_TEXTS + ODD_TEXTS),
    st.text(max_size=8),
    st.fractions(max_denominator=10**6).map(str),
)
# integers far beyond float range (up to 4,000 digits, within the 10,000-digit limit)
huge_integers = st.integers(min_value=-(10**4000), max_value=10**4000)
bad_values = st.one_of(
    scalars, huge_integers, st.none(),
    st.lists(st.integers(-3, 3), max_size=3),
    st.just([]), st.just([[]]), st.just({}), st.just([{}]),
    st.integers(10, 80).map(_deep),
    st.dictionaries(KEY_TEXT, st.integers(-2, 2), max_size=2),
)


def _nodes(obj, path=()):
    yield path
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _nodes(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _nodes(v, path + (i,))


def _replace(obj, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        out = dict(obj)
        out[head] = _replace(obj[head], rest, value)
    else:
        out = list(obj)
        out[head] = _replace(obj[head], rest, value)
    return out


def _drop(obj, path):
    """Remove the node at ``path`` (a key of an object or an item of a list)."""
    if len(path) == 1:
        if isinstance(obj, dict):
            return {k: v for k, v in obj.items() if k != path[0]}
        return [v for i, v in enumerate(obj) if i != path[0]]
    out = dict(obj) if isinstance(obj, dict) else list(obj)
    out[path[0]] = _drop(obj[path[0]], path[1:])
    return out


def _at(obj, path):
    for k in path:
        obj = obj[k]
    return obj


@st.composite
def broken_tree(draw, obj, values=bad_values, leaves_only=False):
    """``obj`` with one node replaced by a bad value (drawn from ``values``), or dropped;
    with ``leaves_only``, one scalar replaced (nothing dropped)."""
    paths = list(_nodes(obj))[1:]
    if leaves_only:
        paths = [p for p in paths if not isinstance(_at(obj, p), (dict, list))]
    path = draw(st.sampled_from(paths))
    if leaves_only or draw(st.booleans()):
        return _replace(obj, path, draw(values))
    return _drop(obj, path)


def values_without(*excluded):
    """``bad_values`` without some of its families (see KNOWN_DEFECTS in test_limits.py)."""
    families = {"huge": huge_integers, "containers": st.one_of(st.none(), st.just([]), st.just({}), st.just([{}]))}
    kept = [scalars] + [f for name, f in families.items() if name not in excluded]
    if "containers" not in excluded:
        kept += [st.lists(st.integers(-3, 3), max_size=3), st.just([[]]), st.integers(10, 80).map(_deep),
                 st.dictionaries(KEY_TEXT, st.integers(-2, 2), max_size=2)]
    return st.one_of(*kept)


@st.composite
def broken_text(draw, obj):
    """The canonical text of ``obj`` cut short, with a bad byte, a duplicated key, a
    NaN/Infinity token or zero-padded number spliced in."""
    text = json.dumps(obj).encode("utf-8")
    how = draw(st.sampled_from(["cut", "byte", "dupkey", "token", "bom", "empty"]))
    if how == "cut":
        return text[: draw(st.integers(0, len(text) - 1))]
    if how == "byte":
        i = draw(st.integers(0, len(text)))
        return text[:i] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x80"])) + text[i:]
    if how == "dupkey":
        return b'{"kind": "box", ' + text[1:]
    if how == "token":
        i = text.find(b":", text.find(b'"kind"') + 7)
        starts = [j + 1 for j in range(len(text)) if text[j:j + 1] in (b"[", b",")]
        j = draw(st.sampled_from(starts)) if starts else i + 1
        token = draw(st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"00", b"-"]))
        return text[:j] + token + b"," + text[j:]
    if how == "bom":
        return b"\xef\xbb\xbf" + text
    return b""


@st.composite
def broken_file(draw, obj, values=bad_values, leaves_only=False):
    """Either a broken tree (valid JSON, wrong content) or broken text."""
    if draw(st.integers(0, 3)) == 0:
        return draw(broken_text(obj))
    tree = draw(broken_tree(obj, values, leaves_only))
    return json.dumps(tree, allow_nan=True).encode("utf-8")


# -- text formats: VNN-LIB, .nnet, instance lists, counterexamples ---------------------------------
#: a text format's tokens: blanks, parentheses, commas and line breaks kept as tokens of their own,
#: so that a file put back together from its tokens is the file
_TEXT_TOKEN = re.compile(r"\r\n|[ \t]+|[\r\n(),;]|[^\s(),;]+")

#: bytes and characters that readers split on, skip or choke on: every format gets them
HOSTILE_CHARACTERS = ["\r", "\n", "\r\n", "\x00", "\ufeff", "\u00a0", "\u2028", "\u0085", "\x0c", "\t", "\x1a",
                      "\u200b", "\udcff"]
#: numbers a reader might take for something else (or refuse): signs, zeros, exponents, limits
HOSTILE_NUMBERS = ["0", "-0", "-0.0", "+0", "00", "1e999", "-1e999", "1e-999", "1e308", "3.4e38", "1e-45", "0x10",
                   "1_0", "1/3", "1//3", ".", "-", "+", "e5", "1e", "NaN", "nan", "inf", "-Infinity", "1" * 40,
                   "9" * 5000, "1e10001", "0." + "0" * 400 + "1", "\u0661", "\u00b2", "1\u20442", "\u22121", "1,5"]
VNNLIB_TOKENS = ["(", ")", "((", "))", "X_0", "X_1", "X_2", "X_00", "X_01", "X_-1", "X_", "x_0", "Y_0", "Y_1",
                 "Y_2", "Y_00", "X_" + "9" * 30, "and", "or", "not", "=>", "<=", ">=", "<", ">", "=", "==", "+", "-",
                 "*", "/", "assert", "declare-const", "declare-fun", "Real", "Int", "Bool", ";", ";;(", "|X_0|",
                 '"a(b"', "[", "]", "X[0]", "vnnlib-version", "<2.0>", "declare-network", "declare-input",
                 "check-sat", "(assert (<= X_0 X_0))", "(declare-const X_0 Real)", "(declare-const Y_0 Real)",
                 "(declare-const X_2 Real)", "(assert (or))", "(assert (and))", "(assert (<= Y_0 (* 0 Y_1)))"]
NNET_TOKENS = [",", ",,", "//", "// (", "-", "2", "1", "0", "-1", "3", "4", "100000", "99999999999999999999", "0.5",
               "1e400", "1e-400", "", "2,2,2,2", "1,1,1,1", "0,0"]
CSV_TOKENS = [",", ",,", '"', '""', "#", "net.onnx", "net.nnet", "net.json", "prop.vnnlib", "sat.vnnlib",
              "missing.onnx", "missing.vnnlib", "../net.onnx", "/dev/null", "/dev/zero", "instances.csv", "witness.txt",
              "box.json", ".", "..", "10", "0", "-1", "1e9", "0.001", "1e-300", "999999999999999999999", "10 s",
              "prop.vnnlib\x00", "net.onnx,prop.vnnlib,10\r\n" * 3]
WITNESS_TOKENS = ["(", ")", "((", "))", "sat", "unsat", "violated", "holds", "X_0", "X_1", "X_2", "Y_0", "Y_1", "Y_2",
                  "X_00", "X_" + "9" * 30, "Y_-1", ";", "(X_0 0.5)", "(Y_1 1)", "(X_1 1e-400)"]


def text_tokens(text: str) -> list[str]:
    return _TEXT_TOKEN.findall(text)


@st.composite
def broken_tokens(draw, text: str, pool: list[str]) -> bytes:
    """``text`` with one to three of its tokens replaced, deleted, duplicated, swapped, or with
    a token of ``pool`` (the format's words), a hostile number or character put in."""
    tokens = text_tokens(text)
    for _ in range(draw(st.integers(1, 3))):
        how = draw(st.sampled_from(["replace", "insert", "delete", "duplicate", "swap", "repeat"]))
        i = draw(st.integers(0, len(tokens) - 1))
        new = draw(st.sampled_from(pool + HOSTILE_NUMBERS + HOSTILE_CHARACTERS))
        if how == "replace":
            tokens[i] = new
        elif how == "insert":
            tokens.insert(i, new)
        elif how == "delete" and len(tokens) > 1:
            del tokens[i]
        elif how == "duplicate":
            j = draw(st.integers(i, min(len(tokens), i + 40)))
            tokens[i:i] = tokens[i:j]
        elif how == "swap":
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        else:   # one token many times (a long line, a deep nesting, a long number)
            tokens.insert(i, new * draw(st.sampled_from([2, 64, 300, 5000])))
    return "".join(tokens).encode("utf-8", "surrogatepass")


@st.composite
def broken_bytes(draw, data: bytes) -> bytes:
    """The bytes of a file cut short, with a byte changed, inserted or deleted, a span
    repeated, its line breaks turned to CR or CRLF, a BOM or a NUL put in front, or emptied."""
    how = draw(st.sampled_from(["cut", "flip", "insert", "delete", "repeat", "crlf", "cr", "bom", "nul", "empty"]))
    if how == "empty" or not data:
        return b""
    i = draw(st.integers(0, len(data) - 1))
    if how == "cut":
        return data[:i]
    if how == "flip":
        return data[:i] + bytes([data[i] ^ draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64, 128, 255]))]) + data[i + 1:]
    if how == "insert":
        return data[:i] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x80", b"\r", b"("])) \
            + data[i:]
    if how == "delete":
        return data[:i] + data[i + draw(st.integers(1, 8)):]
    if how == "repeat":
        j = draw(st.integers(i, min(len(data), i + 64)))
        return data[:j] + data[i:j] * draw(st.sampled_from([2, 3, 50])) + data[j:]
    if how == "crlf":
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if how == "cr":
        return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    return b"\x00" + data


def broken_text_file(text: str, pool: list[str]):
    """A text file broken by its tokens (three times in four) or by its bytes."""
    return st.one_of(broken_tokens(text, pool), broken_tokens(text, pool), broken_tokens(text, pool),
                     broken_bytes(text.encode("utf-8")))
