from fractions import Fraction

import pytest
import sympy

from symrel.errors import InputError, LimitError
from symrel.exact import FloatLiteral, NumberLimits, format_rational, rational, rational_str, to_fraction


@pytest.mark.parametrize(
    "text, expected",
    [
        ("3", Fraction(3)),
        ("-2/7", Fraction(-2, 7)),
        ("4/-6", Fraction(-2, 3)),
        ("0.125", Fraction(1, 8)),
        ("-.5", Fraction(-1, 2)),
        ("1e-3", Fraction(1, 1000)),
        ("2.5E2", Fraction(250)),
        ("7.", Fraction(7)),
        (" 12 / 8 ", Fraction(3, 2)),
    ],
)
def test_string_forms_are_exact(text, expected):
    assert to_fraction(rational(text)) == expected


@pytest.mark.parametrize("value", [3, Fraction(5, 9), sympy.Rational(-4, 6)])
def test_python_and_sympy_numbers(value):
    assert to_fraction(rational(value)) == Fraction(str(value).replace(" ", ""))


@pytest.mark.parametrize("bad", ["", "abc", "1/0", "1//2", "0x10", "1e", "--1", "nan", "inf", "1/2/3"])
def test_non_rational_strings_are_refused_with_the_path(bad):
    with pytest.raises(InputError) as err:
        rational(bad, path="layers[0].b")
    assert str(err.value).startswith("layers[0].b: ")


def test_floats_refused_unless_asked_then_exact():
    with pytest.raises(InputError, match="float"):
        rational(0.1)
    with pytest.raises(InputError, match="JSON float"):
        rational(FloatLiteral("0.1"), path="w[0]")
    q = rational(0.1, exact_floats=True)
    assert to_fraction(q) == Fraction(0.1) != Fraction(1, 10)
    assert to_fraction(rational(FloatLiteral("0.1"), exact_floats=True)) == Fraction(0.1)
    with pytest.raises(InputError, match="finite"):
        rational(float("inf"), exact_floats=True)


def test_booleans_are_not_numbers():
    with pytest.raises(InputError, match="boolean"):
        rational(True)


def test_size_limits_refuse_without_expanding():
    with pytest.raises(LimitError, match="exponent"):
        rational("1e100000000000")
    with pytest.raises(LimitError, match="digits"):
        rational("1" * 10_001)
    small = NumberLimits(max_digits=5, max_exponent=3)
    with pytest.raises(LimitError):
        rational("123456", limits=small)
    with pytest.raises(LimitError):
        rational("1e4", limits=small)
    assert rational_str(rational("1e3", limits=small)) == "1000"


def test_canonical_form():
    assert format_rational(rational("6/3")) == 2
    assert format_rational(rational("-6/4")) == "-3/2"
    assert isinstance(format_rational(rational(10**40)), int)
