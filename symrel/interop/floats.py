"""Binary floating point, exactly: formats, float -> rational, rational -> float.

Every finite binary float is a dyadic rational ``M * 2^E``, so reading a float
tensor exactly loses nothing (docs/theory.md#conventions). Going the other way, a
rational is rounded to the nearest float of a format (round to nearest, ties
to even, as IEEE 754 does) by integer arithmetic only, so the rounding error is
known exactly; it never passes through another float type, hence no double
rounding (rounding 1/3 to float16 via float64 would be wrong in rare cases).

A format has ``precision`` p significand bits (with the hidden bit) and
exponents ``emin..emax``; its unit roundoff is ``u = 2^-p``.

>>> F = FORMATS["float16"]
>>> str(round_to_format(Q(1, 3), F)), str(F.max_finite)
('1365/4096', '65504')
>>> round_to_format(Q(65520), F) is None      # rounds past the largest float16: overflow
True
>>> str(ulp(Q(1), FORMATS["float32"])), str(F.unit_roundoff)
('1/8388608', '1/2048')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..errors import InputError
from ..exact import Q, Rational, denominator, from_rationals, numerator, rows
from .extras import require


@dataclass(frozen=True)
class FloatFormat:
    """A binary floating-point format: ``precision`` bits, exponents ``emin..emax``."""

    name: str
    precision: int
    emin: int
    emax: int

    @property
    def unit_roundoff(self) -> Rational:
        """``u = 2^-p``: the relative error bound of one rounding to nearest."""
        return Q(1, 2**self.precision)

    @property
    def max_finite(self) -> Rational:
        """The largest finite value ``(2 - 2^(1-p)) 2^emax``."""
        return (2 - Q(1, 2 ** (self.precision - 1))) * Q(2) ** self.emax

    @property
    def min_normal(self) -> Rational:
        return Q(1, 2 ** (-self.emin)) if self.emin < 0 else Q(2**self.emin)

    @property
    def min_subnormal(self) -> Rational:
        """The smallest positive float ``2^(emin - p + 1)``."""
        return Q(1, 2 ** (self.precision - 1 - self.emin))


FORMATS = {
    "float64": FloatFormat("float64", 53, -1022, 1023),
    "float32": FloatFormat("float32", 24, -126, 127),
    "float16": FloatFormat("float16", 11, -14, 15),
    "bfloat16": FloatFormat("bfloat16", 8, -126, 127),
}


def float_format(name: str, *, path: str = "dtype") -> FloatFormat:
    """The format called ``name`` (float64, float32, float16, bfloat16)."""
    key = str(name).replace("torch.", "")
    if key not in FORMATS:
        raise InputError(f"expected a dtype among {', '.join(FORMATS)}, got {name!r}", path=path)
    return FORMATS[key]


def _floor_log2(p: int, d: int) -> int:
    """``floor(log2(p/d))`` for positive integers."""
    e = p.bit_length() - d.bit_length()
    # now 2^(e-1) < p/d < 2^(e+1)
    if (p << max(-e, 0)) < (d << max(e, 0)):
        e -= 1
    return e


def exponent(q: Rational, fmt: FloatFormat) -> int:
    """The exponent of the binade of ``q`` (clamped below at ``emin``)."""
    p, d = abs(numerator(q)), denominator(q)
    if p == 0:
        return fmt.emin
    return max(_floor_log2(p, d), fmt.emin)


def ulp(q: Rational, fmt: FloatFormat) -> Rational:
    """The unit in the last place of the binade of ``q``: ``2^(e - p + 1)``."""
    return _power_of_two(exponent(q, fmt) - fmt.precision + 1)


@lru_cache(maxsize=4096)
def _power_of_two(k: int) -> Rational:
    return Q(2**k) if k >= 0 else Q(1, 2 ** (-k))


def round_to_format(q: Rational, fmt: FloatFormat) -> Rational | None:
    """``q`` rounded to the nearest float of ``fmt`` (ties to even), exactly;
    ``None`` when it overflows (IEEE gives +-inf). Cost: a few big-int operations.

    >>> F = FORMATS["float32"]
    >>> str(round_to_format(Q(1, 10), F))       # the float32 nearest to 0.1
    '13421773/134217728'
    """
    p, d = numerator(q), denominator(q)
    if p == 0:
        return Q(0)
    sign, p = (-1 if p < 0 else 1), abs(p)
    e = max(_floor_log2(p, d), fmt.emin)
    k = fmt.precision - 1 - e  # value = n * 2^-k with n an integer of at most p bits
    num, den = (p << k, d) if k >= 0 else (p, d << -k)
    n, rem = divmod(num, den)
    if 2 * rem > den or (2 * rem == den and n % 2 == 1):
        n += 1
    value = Q(n) * (Q(2) ** (-k) if k <= 0 else Q(1, 2**k))
    if value > fmt.max_finite:
        return None
    return sign * value


def is_representable(q: Rational, fmt: FloatFormat) -> bool:
    """Whether ``q`` is exactly a float of ``fmt``."""
    return round_to_format(q, fmt) == q


# -- floats and arrays -> exact rationals -------------------------------------------------
def exact_from_float(x, *, path: str = "value") -> Rational:
    """The exact value of a binary float (Python, numpy or torch scalar).

    >>> str(exact_from_float(0.1))
    '3602879701896397/36028797018963968'
    """
    f = float(x)  # exact: every float16/bfloat16/float32 value is a float64 value
    if f != f or f in (float("inf"), float("-inf")):
        raise InputError(f"expected a finite float, got {f}", path=path)
    a, b = f.as_integer_ratio()
    return Q(a, b)


def exact_array(array, *, path: str = "tensor") -> list:
    """A numpy array (any float or int dtype) as nested lists of exact rationals,
    bit for bit; NaN and infinity are refused naming the first bad index."""
    import numpy as np

    return _nest(exact_flat(array, path=path), np.asarray(array).shape)


def exact_flat(array, *, path: str = "tensor") -> list:
    """The entries of a numpy array, in C order, as exact rationals (see :func:`exact_array`)."""
    return exact_tensor(array, path=path).reshape(-1).tolist()


def exact_tensor(array, *, path: str = "tensor"):
    """A numpy array of floats or integers as a numpy object array of exact rationals of the
    same shape, bit for bit; NaN and infinity are refused naming the first bad index.

    Definition: a finite binary float is ``m 2^e`` with ``m = frexp mantissa * 2^53`` an
    integer; numpy computes ``m`` and ``e`` for the whole array at once (``numpy.frexp``), and
    one rational is then made from two integers per *distinct* value (repeated weights share
    it). Cost: a sort of the values and one rational per distinct value.

    >>> import pytest; np = pytest.importorskip("numpy")
    >>> [str(v) for v in exact_tensor(np.array([0.1, -3, 0.1], np.float32))]
    ['13421773/134217728', '-3', '13421773/134217728']
    >>> exact_tensor(np.array([[1.0, np.inf]]), path="W")
    Traceback (most recent call last):
    ...
    symrel.errors.InputError: W: expected finite values, got inf at index [0, 1]
    """
    np = require("numpy", "numeric")
    a = np.asarray(array)
    is_float = a.dtype.kind == "f" or a.dtype.name == "bfloat16"
    if not is_float and a.dtype.kind not in "iub":
        raise InputError(f"expected a numeric tensor, got dtype {a.dtype}", path=path)
    out = np.empty(a.shape, dtype=object)
    if a.size == 0:
        return out
    if not is_float:
        distinct, where = np.unique(a.reshape(-1), return_inverse=True)
        values = np.empty(distinct.size, dtype=object)
        values[:] = [Q(v) for v in distinct.tolist()]
        out.reshape(-1)[:] = values[where.reshape(-1)]
        return out
    a64 = a.astype(np.float64)  # exact: every float16/bfloat16/float32 value is a float64 value
    finite = np.isfinite(a64)
    if not finite.all():
        bad = tuple(int(i) for i in np.argwhere(~finite)[0])
        raise InputError(f"expected finite values, got {a64[bad]} at index {list(bad)}", path=path)
    distinct, where = np.unique(a64.reshape(-1), return_inverse=True)
    mantissa, exp = np.frexp(distinct)
    m = (mantissa * 2.0**53).astype(np.int64)  # exact: 53 significant bits at most
    k = exp.astype(np.int64) - 53
    values = np.empty(distinct.size, dtype=object)
    values[:] = [Q(p, 1 << -e) if e < 0 else Q(p << e) for p, e in zip(m.tolist(), k.tolist())]
    out.reshape(-1)[:] = values[where.reshape(-1)]
    return out


def _nest(vals, shape):
    if not shape:
        return vals[0]
    if len(shape) == 1:
        return vals
    step = len(vals) // shape[0] if shape[0] else 0
    return [_nest(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def exact_matrix(array, *, path: str = "tensor"):
    """A 2-D float array as an exact ``Matrix`` (1-D: a column vector)."""
    data = exact_array(array, path=path)
    if data and not isinstance(data, list):
        raise InputError("expected a vector or matrix, got a scalar", path=path)
    if not data or not isinstance(data[0], list):
        return from_rationals([[v] for v in data], (len(data), 1))
    return from_rationals(data, (len(data), len(data[0])))


# -- exact rationals -> float arrays --------------------------------------------------------
def numpy_dtype(fmt: FloatFormat):
    """The numpy dtype of a format (bfloat16 comes from ``ml_dtypes``)."""
    np = require("numpy", "numeric")
    if fmt.name == "bfloat16":
        return require("ml_dtypes", "onnx").bfloat16
    return np.dtype(fmt.name)


@dataclass
class RoundedMatrix:
    """A matrix rounded to a float format, with its exact rounding error.

    ``values`` are the rounded entries (exact rationals; ``None`` where the
    entry overflows, ``signs`` then gives the sign of the infinity),
    ``max_error`` the largest ``|rounded - exact|`` over finite entries and
    ``worst`` its ``(row, column)``.
    """

    values: list[list[Rational | None]]
    signs: list[list[int]]
    max_error: Rational
    worst: tuple[int, int] | None
    overflows: list[tuple[int, int]]

    def to_numpy(self, fmt: FloatFormat):
        """The rounded matrix as a numpy array of ``fmt`` (overflow -> +-inf)."""
        np = require("numpy", "numeric")
        inf = float("inf")
        # numerator / denominator is exact: the value is a float of a format within float64
        data = [[inf * s if v is None else numerator(v) / denominator(v) for v, s in zip(r, sr)]
                for r, sr in zip(self.values, self.signs)]
        return np.array(data, dtype=np.float64).reshape(len(self.values), -1).astype(numpy_dtype(fmt))


def round_matrix(M, fmt: FloatFormat) -> RoundedMatrix:
    """Round every entry of an exact matrix to ``fmt``; the error is exact.

    >>> from symrel.exact import matrix
    >>> R = round_matrix(matrix([[1, "1/3"]]), FORMATS["float16"])
    >>> str(R.max_error), R.worst
    ('1/12288', (0, 1))
    """
    values, signs = [], []
    max_err, worst, overflows = Q(0), None, []
    for i, r in enumerate(rows(M)):
        values.append([round_to_format(v, fmt) for v in r])
        signs.append([1 if v >= 0 else -1 for v in r])
        for j, (v, rv) in enumerate(zip(r, values[-1])):
            if rv is None:
                overflows.append((i, j))
            elif worst is None or abs(rv - v) > max_err:
                max_err, worst = abs(rv - v), (i, j)
    return RoundedMatrix(values, signs, max_err, worst, overflows)


def round_points(points, fmt: FloatFormat) -> list[list[Rational]]:
    """Points rounded coordinate-wise to floats of ``fmt`` (exact values); an
    overflowing coordinate is an InputError naming it."""
    out = []
    for i, x in enumerate(points):
        row = []
        for j, v in enumerate(x):
            rv = round_to_format(v, fmt)
            if rv is None:
                raise InputError(f"the coordinate {v} overflows {fmt.name}", path=f"points[{i}][{j}]")
            row.append(rv)
        out.append(row)
    return out


def nextafter(q: Rational, fmt: FloatFormat, direction: int) -> Rational:
    """The float of ``fmt`` next to the float ``q`` towards ``+inf`` (direction 1)
    or ``-inf`` (-1). ``q`` must be a float of ``fmt``.

    >>> str(nextafter(Q(1), FORMATS["float16"], -1))
    '2047/2048'
    """
    if q == 0:
        return direction * fmt.min_subnormal
    step = ulp(q, fmt)
    if (q > 0) != (direction > 0):
        # stepping towards zero: at a power of two the binade below has a finer ulp
        below = ulp(q + direction * step / 2, fmt) if abs(q) > fmt.min_normal else step
        step = min(step, below)
    return q + direction * step
