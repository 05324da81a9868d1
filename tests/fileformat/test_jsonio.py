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
