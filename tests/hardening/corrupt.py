"""Hypothesis strategies that break a valid symrel file: a field replaced by a value of
the wrong type or size, a key dropped, or the text itself cut, corrupted or duplicated.

Every strategy draws a complete file (bytes); the tests only ask what symrel does with it.
"""

from __future__ import annotations

import json

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
