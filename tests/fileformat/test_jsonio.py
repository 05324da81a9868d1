"""The strict JSON reader's pre-scan (symrel.fileformat.jsonio): depth and digit runs are
refused before parsing, in one pass; digits inside strings are text, not numbers."""

import pytest

from symrel.errors import InputError, LimitError
from symrel.fileformat.jsonio import MAX_DEPTH, loads


def test_digit_runs_inside_strings_are_not_numbers():
    text = '{"a": "' + " ".join("9" * 100_000 for _ in range(10)) + '"}'
    assert len(loads(text)["a"]) == 10 * 100_000 + 9


def test_a_long_digit_run_outside_a_string_is_refused_by_its_length():
    with pytest.raises(LimitError, match="digit limit"):
        loads('{"a": [1, ' + "7" * 100_001 + "]}")


def test_escaped_quotes_keep_the_scan_inside_the_string():
    text = '{"a": "\\"' + "9" * 100_001 + '\\"", "b": 1}'
    assert loads(text)["b"] == 1
    text = '{"a": "' + '\\"' * 50_000 + '", "b": [[1]]}'
    assert loads(text)["b"] == [[1]]


def test_nesting_is_limited_and_brackets_in_strings_do_not_count():
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    with pytest.raises(LimitError, match="depth limit"):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    assert loads('{"a": "' + "[" * 1000 + '"}')["a"] == "[" * 1000


def test_an_unterminated_string_is_left_to_the_parser():
    with pytest.raises(InputError, match="expected valid JSON"):
        loads('{"a": "abc')


def _scan_says(text):
    """What the one-pass scan says of ``text``: None, or the message it refuses it with."""
    from symrel.fileformat import jsonio

    try:
        jsonio._prescan(text)
    except LimitError as err:
        return str(err)
    return None


def test_the_fast_prescan_answers_only_for_texts_the_scan_accepts():
    from hypothesis import given, settings, strategies as st

    from symrel.fileformat import jsonio

    pieces = st.sampled_from(['[', ']', '{', '}', '"', '\\', '\\"', 'a', ',', '1', '9' * 40, ' ', 'é', '"[["'])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(pieces, max_size=80), st.integers(0, 3))
    def agree(parts, nest):
        text = "[" * (nest * 21) + "".join(parts) + "]" * (nest * 21)
        if jsonio._prescan_fast(text):   # fast yes: the one-pass scan refuses nothing
            assert _scan_says_slow(text) is None

    agree()


def _scan_says_slow(text):
    from unittest import mock

    from symrel.fileformat import jsonio

    with mock.patch.object(jsonio, "_prescan_fast", lambda text: False):
        return _scan_says(text)


def test_hostile_texts_still_meet_the_one_pass_scan():
    from symrel.fileformat import jsonio

    deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert not jsonio._prescan_fast(deep) and "depth limit" in _scan_says(deep)
    mixed = "[{" * 40 + "}]" * 40     # 80 deep in two kinds of bracket
    assert not jsonio._prescan_fast(mixed) and "depth limit" in _scan_says(mixed)
    crossed = "[" * (MAX_DEPTH + 1) + "}" * (MAX_DEPTH + 1)   # never paired: the scan counts the depth
    assert not jsonio._prescan_fast(crossed) and "depth limit" in _scan_says(crossed)
    hidden = '"' + "[" * 10 + '" ' + "[" * (MAX_DEPTH + 1)     # an open bracket run after a string
    assert not jsonio._prescan_fast(hidden) and "depth limit" in _scan_says(hidden)
    digits = "[" + "5" * 100_001 + "]"
    assert not jsonio._prescan_fast(digits) and "digit limit" in _scan_says(digits)
    assert jsonio._prescan_fast("[" * MAX_DEPTH + '"]]}"' + "]" * MAX_DEPTH)
