"""The canonical text (symrel.fileformat.canonical) is the standard encoder's indented,
key-sorted text character for character, whatever takes its fast paths (rows, matrices, a
layered net's rows of pairs) and whatever does not (empty rows, nested lists, mixed types)."""

import json

from hypothesis import given, settings, strategies as st

from symrel.fileformat.canonical import canonical_dumps

scalars = st.one_of(st.integers(-10**30, 10**30), st.text(alphabet='0123/-",][\n\\é ', max_size=6), st.none(),
                    st.booleans())
trees = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                                                      st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                     max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(trees)
def test_the_canonical_text_is_the_standard_encoders(obj):
    assert canonical_dumps(obj) == json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_a_layered_nets_rows_of_pairs_and_an_empty_row():
    rows = [[[0, "1/2"], [3, -1]], [], [[1, 7]], [[2, "-3/4"]]]
    obj = {"ops": [{"op": "affine", "rows": rows, "b": [0, 1, "1/3", 2]}], "pairs": rows[0], "m": [rows[0], rows[2]]}
    assert canonical_dumps(obj) == json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


pairs = st.lists(st.one_of(st.integers(-10**20, 10**20), st.text(alphabet='0123/-",][\n\\ ', max_size=5)), min_size=1,
                 max_size=3)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(pairs, max_size=4), min_size=1, max_size=5), st.integers(0, 3))
def test_lists_of_matrices_have_the_standard_encoders_text(rows, depth):
    obj = rows
    for _ in range(depth):
        obj = {"rows": obj, "b": [1, "x"]}
    assert canonical_dumps(obj) == json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_a_convolutions_rows_take_the_one_call_path():
    from unittest import mock

    from symrel.fileformat import canonical

    rows = [[[j, f"{j}/7"], [j + 1, -j]] for j in range(50)]
    with mock.patch.object(canonical, "_row_text", wraps=canonical._row_text) as encoded:
        text = canonical_dumps({"rows": rows})
    assert encoded.call_count == 1
    assert text == json.dumps({"rows": rows}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
