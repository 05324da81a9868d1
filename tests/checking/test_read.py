"""The strict accessors of symrel.checking.read: one type per field, the path in every error."""

import pytest

from symrel.checking import MalformedCertificate
from symrel.checking import read
from symrel.exact import FloatLiteral, format_rational


def refused(fn, *args, **kw) -> str:
    with pytest.raises(MalformedCertificate) as info:
        fn(*args, **kw)
    return str(info.value)


def test_a_boolean_is_not_an_integer_nor_an_index():
    assert "boolean true" in refused(read.integer, True, "symrel")
    assert "boolean false" in refused(read.natural, False, "claim.count")
    assert refused(read.index, True, 3, "a").startswith("a: expected an index in 0..2")


def test_a_string_is_not_an_index():
    assert "the string '1'" in refused(read.index, "1", 3, "steps[0].certificate.winners[0]")


def test_an_index_lies_in_its_range():
    assert read.index(2, 3, "a") == 2
    assert "got the integer 3" in refused(read.index, 3, 3, "a")
    assert "got the integer -1" in refused(read.index, -1, 3, "a")
    assert "no index" in refused(read.index, 0, 0, "a")


def test_duplicate_indices_are_refused_with_the_path_of_the_second():
    message = refused(read.indices, [0, 1, 0], 3, "winners")
    assert message.startswith("winners[2]:")
    assert read.indices([0, 0], 3, "w", distinct=False) == [0, 0]


def test_rational_forms_and_refusals():
    assert format_rational(read.rational("0.125", "x")) == "1/8"
    assert format_rational(read.rational("1e-3", "x")) == "1/1000"
    assert read.rational(-4, "x") == -4
    assert "JSON float" in refused(read.rational, FloatLiteral("0.5"), "x")
    assert "--exact-floats" not in refused(read.rational, FloatLiteral("0.5"), "x")
    assert "boolean" in refused(read.rational, True, "x")
    assert "digit limit" in refused(read.rational, "1" * 10_001, "x")
    assert "exponent limit" in refused(read.rational, "1e10001", "x")
    assert "x:" in refused(read.rational, "1/0", "x")


def test_long_numbers_are_shortened_in_messages():
    message = refused(read.index, 10**5000, 3, "a")
    assert len(message) < 200 and "5001 digits" in message


def test_a_record_holds_exactly_its_keys():
    assert read.record({"a": 1, "b": 2}, "claim", ("a",), ("b",)) == {"a": 1, "b": 2}
    assert refused(read.record, {"a": 1, "z": 2}, "claim", ("a",)).startswith("claim.z:")
    assert refused(read.record, {}, "claim", ("a",)).startswith("claim.a:")
    assert "an object" in refused(read.record, [], "claim", ("a",))


def test_strings_booleans_arrays():
    assert "JSON float" in refused(read.string, FloatLiteral("1.5"), "s")
    assert "integer 1" in refused(read.boolean, 1, "b")
    assert "list of 2 entries" in refused(read.array, [1], "v", length=2)
    assert "one of 'box'" in refused(read.string, "ball", "kind", choices=("box",))
