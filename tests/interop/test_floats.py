"""Exact float formats: rounding, ulp, nextafter and exact import, against numpy."""

import random

import pytest

from symrel.errors import InputError
from symrel.exact import Q, matrix
from symrel.interop.floats import (FORMATS, exact_array, exact_from_float, float_format, is_representable,
                                   nextafter, round_matrix, round_points, round_to_format, ulp)


def _random_rationals(n, seed=0):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        num = rng.randint(-10**12, 10**12)
        den = rng.randint(1, 10**12)
        out.append(Q(num, den) * Q(2) ** rng.randint(-30, 30))
    return out


def test_float64_rounding_matches_python_division():
    # int / int in Python is correctly rounded to float64
    for q in _random_rationals(500):
        assert round_to_format(q, FORMATS["float64"]) == Q(*(int(q.numerator) / int(q.denominator)).as_integer_ratio())


@pytest.mark.parametrize("name", ["float32", "float16"])
def test_rounding_of_float64_values_matches_numpy(name):
    np = pytest.importorskip("numpy")
    fmt = FORMATS[name]
    rng = np.random.default_rng(1)
    vals = np.concatenate([rng.normal(size=300) * 10.0 ** rng.integers(-8, 6, 300), [1e-8, 70000.0, 65519.0, 65520.0]])
    for v in vals:
        f = float(v)
        with np.errstate(over="ignore"):
            want = float(np.array(f).astype(name))
        got = round_to_format(Q(*f.as_integer_ratio()), fmt)
        if want in (float("inf"), float("-inf")):
            assert got is None
        else:
            assert got == Q(*want.as_integer_ratio()), f


def test_ties_round_to_even_and_overflow_limit():
    F = FORMATS["float16"]
    assert round_to_format(Q(2049), F) == 2048  # halfway between 2048 and 2050: even mantissa
    assert round_to_format(Q(2051), F) == 2052
    assert round_to_format(F.max_finite + ulp(F.max_finite, F) / 2 - Q(1, 10**9), F) == F.max_finite
    assert round_to_format(F.max_finite + ulp(F.max_finite, F) / 2, F) is None  # ties away to inf (even rule)
    assert round_to_format(F.min_subnormal / 2, F) == 0  # tie to even zero
    assert round_to_format(-F.min_subnormal * Q(3, 4), F) == -F.min_subnormal


def test_ulp_and_nextafter_match_numpy():
    np = pytest.importorskip("numpy")
    for name in ("float32", "float16", "float64"):
        fmt = FORMATS[name]
        for f in [1.0, 0.75, 3.0, 1e-3, -2.5, 0.0, 6.0e-5]:
            x = float(np.array(f).astype(name))
            q = Q(*x.as_integer_ratio())
            assert ulp(q, fmt) == Q(*float(np.spacing(np.array(abs(x)).astype(name))).as_integer_ratio()) or x == 0
            for direction in (1, -1):
                want = float(np.nextafter(np.array(x).astype(name), np.array(direction * np.inf).astype(name)))
                assert nextafter(q, fmt, direction) == Q(*want.as_integer_ratio())


def test_exact_import_is_bit_for_bit():
    np = pytest.importorskip("numpy")
    a = np.array([[0.1, -1 / 3], [1e-45, 3.4e38]], dtype=np.float32)
    E = exact_array(a)
    assert E[0][0] == Q(*float(np.float32(0.1)).as_integer_ratio())
    assert E[1][0] == Q(1, 2**149)  # the smallest float32 subnormal, exactly
    assert all(is_representable(v, FORMATS["float32"]) for r in E for v in r)
    with pytest.raises(InputError, match=r"index \[1\]"):
        exact_array(np.array([1.0, np.nan]), path="w")
    assert exact_from_float(np.float16(0.1)) == Q(1638, 16384)


def test_round_matrix_reports_exact_error():
    R = round_matrix(matrix([["1/3", 100000], [1, "-1/10"]]), FORMATS["float16"])
    assert R.overflows == [(0, 1)]
    assert R.max_error == max(abs(round_to_format(Q(1, 3), FORMATS["float16"]) - Q(1, 3)),
                              abs(round_to_format(Q(-1, 10), FORMATS["float16"]) + Q(1, 10)))
    with pytest.raises(InputError, match="overflows float16"):
        round_points([[Q(10**6)]], FORMATS["float16"])
    with pytest.raises(InputError, match="expected a dtype"):
        float_format("float8")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64", "uint8"])
def test_exact_tensor_is_bit_for_bit(dtype):
    """numpy.frexp and a shared rational per distinct value give as_integer_ratio's value for
    every entry: normal, subnormal, zero of both signs, repeated, huge and tiny."""
    np = pytest.importorskip("numpy")
    from symrel.interop.floats import exact_tensor

    rng = np.random.default_rng(3)
    if dtype.startswith("float"):
        info = np.finfo(dtype)
        special = [0.0, -0.0, float(info.tiny), float(info.tiny) / 4, float(info.max), -float(info.max), 1.0, 1.0]
        top = 3 if dtype == "float16" else 6
        vals = np.concatenate([rng.normal(size=200) * 10.0 ** rng.integers(-top, top, 200), special]).astype(dtype)
    else:
        vals = rng.integers(0, 200, 100).astype(dtype)
    got = exact_tensor(vals.reshape(-1, 2))
    assert got.shape == (vals.size // 2, 2)
    assert [v for v in got.reshape(-1)] == [Q(*float(v).as_integer_ratio()) if dtype.startswith("float") else Q(int(v))
                                           for v in vals]
    with pytest.raises(InputError, match=r"W: expected finite values, got nan at index \[1\]"):
        exact_tensor(np.array([1.0, np.nan]), path="W")
