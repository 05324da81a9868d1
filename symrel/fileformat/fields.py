"""Field access for readers: every error names the JSON path of the field.

>>> obj = {"symrel": 1, "kind": "box"}
>>> get(obj, "bounds", "")
Traceback (most recent call last):
...
symrel.errors.InputError: bounds: missing key 'bounds'
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import FloatLiteral, Q, rational, rationals

_MISSING = object()


def join(path: str, key) -> str:
    """``join("layers[0]", "units")`` -> ``"layers[0].units"``; ints give ``[i]``."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def expect_object(obj, path: str, what: str = "an object") -> dict:
    if not isinstance(obj, dict):
        raise InputError(f"expected {what} (a JSON object), got {_typename(obj)}", path=path or None)
    return obj


def get(obj: dict, key: str, path: str, default=_MISSING):
    """``obj[key]``, or an error naming ``path.key`` when it is missing."""
    expect_object(obj, path)
    if key not in obj:
        if default is not _MISSING:
            return default
        raise InputError(f"missing key {key!r}", path=join(path, key))
    return obj[key]


def get_list(obj: dict, key: str, path: str, what: str, min_len: int = 0, default=_MISSING) -> list:
    value = get(obj, key, path, default)
    p = join(path, key)
    if not isinstance(value, list):
        raise InputError(f"expected {what} (a list), got {_typename(value)}", path=p)
    if len(value) < min_len:
        raise InputError(f"expected at least {min_len} {what}, got {len(value)}", path=p)
    return value


def get_int(obj: dict, key: str, path: str, minimum: int | None = None, default=_MISSING) -> int:
    value = get(obj, key, path, default)
    p = join(path, key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"expected an integer, got {_typename(value)}", path=p)
    if minimum is not None and value < minimum:
        raise InputError(f"expected an integer >= {minimum}, got {value}", path=p)
    return value


def get_str(obj: dict, key: str, path: str, choices=None, default=_MISSING) -> str:
    value = get(obj, key, path, default)
    p = join(path, key)
    if not isinstance(value, str) or isinstance(value, FloatLiteral):
        raise InputError(f"expected a string, got {_typename(value)}", path=p)
    if choices is not None and value not in choices:
        raise InputError(f"expected one of {', '.join(map(repr, choices))}, got {value!r}", path=p)
    return value


def number(value, path: str, exact_floats: bool = False):
    return rational(value, path=path, exact_floats=exact_floats)


def numbers(value, path: str, length: int | None = None, exact_floats: bool = False) -> list:
    """A list of exact rationals (a vector)."""
    if not isinstance(value, list):
        raise InputError(f"expected a list of numbers, got {_typename(value)}", path=path)
    if length is not None and len(value) != length:
        raise InputError(f"expected {length} numbers, got {len(value)}", path=path)
    if not exact_floats:
        try:  # the paths are built only when an entry is refused (building them is most of a read)
            return rationals(value)
        except InputError:
            pass
    return [rational(v, path=f"{path}[{i}]", exact_floats=exact_floats) for i, v in enumerate(value)]


def number_rows(value, path: str, rows: int | None = None, cols: int | None = None, exact_floats: bool = False) -> list:
    """A list of rows of exact rationals (a matrix), with optional fixed shape."""
    if not isinstance(value, list):
        raise InputError(f"expected a matrix (a list of rows), got {_typename(value)}", path=path)
    if rows is not None and len(value) != rows:
        raise InputError(f"expected {rows} rows, got {len(value)}", path=path)
    out = []
    for i, r in enumerate(value):
        out.append(numbers(r, f"{path}[{i}]", cols, exact_floats))
        if cols is None:
            cols = len(out[0])
    return out


def _typename(v) -> str:
    if isinstance(v, FloatLiteral):
        return f"the JSON float {v}"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "a list"
    if isinstance(v, str):
        return f"the string {v!r}" if len(v) < 40 else "a string"
    if isinstance(v, int):
        return f"the integer {v}"
    return type(v).__name__


_ = Q
