"""Reading and writing symrel JSON files safely.

Reading refuses what JSON parsers usually let through silently: duplicate keys,
``NaN``/``Infinity`` tokens, bad UTF-8, nesting deeper than a limit; JSON
floats are kept as :class:`~symrel.exact.FloatLiteral` text so that the number
parser can refuse them with their path (or read them exactly on request).
Writing is atomic: a temporary file in the target folder, then a rename, so an
output is either complete or absent.

>>> obj = loads('{"symrel": 1, "kind": "points", "x": [[0.5]]}')
>>> type(obj["x"][0][0]).__name__
'FloatLiteral'
>>> loads('{"a": 1, "a": 2}')
Traceback (most recent call last):
...
symrel.errors.InputError: a: duplicate key 'a' in a JSON object
"""

from __future__ import annotations

import json
import json.scanner
import os
import re
import tempfile
from pathlib import Path

from ..errors import InputError, LimitError
from ..exact import FloatLiteral
from ..exact.numbers import current_limits, unlimited_int_digits
from .canonical import canonical_dumps, sha256_of  # noqa: F401 (the canonical text, kept apart for the checker)

MAX_DEPTH = 64


def _pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise InputError(f"duplicate key {k!r} in a JSON object", path=k)
        out[k] = v
    return out


def _constant(name):
    raise InputError(f"expected a number, got the non-standard JSON token {name}", path=None)


# A digit run this long outside a string is refused before parsing (Python converts
# decimal text to int in quadratic time); shorter numbers are parsed, then checked against
# the configurable digit limit by the number parser, which names their path.
_DIGIT_RUN_LIMIT = 100_000
#: the tokens the pre-scan looks at: a string's opening quote, a bracket, a run of digits
_TOKEN = re.compile(r'["\[\]{}]|[0-9]+')
#: the rest of a string after its opening quote (escapes skipped), up to its closing quote
_STRING_REST = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"', re.S)


#: a whole string (escapes skipped); every digit as 0; every other ASCII character but a
#: bracket or a quote deleted (what a JSON text holds outside its strings is ASCII)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_DIGITS_AS_ZERO = str.maketrans("123456789", "000000000")
_BRACKETS_ONLY = str.maketrans({chr(c): None for c in range(128) if chr(c) not in '"[]{}'})
#: an innermost pair of brackets of one kind (the strings and all else removed)
_INNER_PAIR = re.compile(r"\[\]|\{\}")


def _prescan(text: str) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and a digit run of more than
    :data:`_DIGIT_RUN_LIMIT` digits outside strings, before the parser sees the text.

    :func:`_prescan_fast` answers for a text with no long digit run anywhere and well
    nested brackets (every text symrel writes); any other text gets the scan below. One
    pass, linear in the text: each token is matched once, and a string is skipped whole
    from its opening quote to its closing one (digits inside a string are text, not a
    number). An unterminated string ends the scan; the parser then reports it.

    >>> _prescan('{"a": "' + "9" * 200_000 + '", "b": [1, 2]}')
    >>> _prescan("[" * 65 + "]" * 65)
    Traceback (most recent call last):
    ...
    symrel.errors.LimitError: expected JSON nested at most 64 deep (the depth limit)
    """
    if _prescan_fast(text):
        return
    depth = 0
    pos = 0
    search, rest = _TOKEN.search, _STRING_REST.match
    while True:
        token = search(text, pos)
        if token is None:
            return
        pos = token.end()
        first = text[token.start()]
        if first == '"':
            end = rest(text, pos)
            if end is None:
                return
            pos = end.end()
        elif first in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise LimitError(f"expected JSON nested at most {MAX_DEPTH} deep (the depth limit)", path=None)
        elif first in "]}":
            depth -= 1
        elif pos - token.start() > _DIGIT_RUN_LIMIT:
            line = text.count("\n", 0, token.start()) + 1
            raise LimitError(f"expected numbers of at most {current_limits().max_digits} digits (the digit limit), "
                             f"line {line} has one of {pos - token.start()}", path=None)


def _prescan_fast(text: str) -> bool:
    """True when ``text`` holds no digit run longer than :data:`_DIGIT_RUN_LIMIT` (inside
    strings or not) and, its strings removed, its brackets pair up ``[]``/``{}`` at most
    :data:`MAX_DEPTH` deep: then :func:`_prescan` has nothing to refuse. False means only
    that the one-pass scan must decide.

    Each round removes every innermost pair, so a text nested ``k`` deep is empty after
    exactly ``k`` rounds; each round is one regular-expression pass in C over what is
    left (the brackets alone, and any non-ASCII character outside a string, which no round
    removes), so the cost is two passes over the text and at most :data:`MAX_DEPTH` over
    its brackets.

    >>> _prescan_fast('{"a": [1, "]]"], "b": {}}'), _prescan_fast("[" * 65 + "]" * 65)
    (True, False)
    >>> _prescan_fast('[1, "x]'), _prescan_fast("[}")    # an open string, mismatched brackets
    (False, False)
    """
    if "0" * (_DIGIT_RUN_LIMIT + 1) in text.translate(_DIGITS_AS_ZERO):
        return False
    brackets = _STRING.sub("", text).translate(_BRACKETS_ONLY)
    for _ in range(MAX_DEPTH):
        if not brackets:
            return True
        brackets, pairs = _INNER_PAIR.subn("", brackets)
        if not pairs:
            return False
    return not brackets


def _ascii(read):
    def read_ascii(text: str):
        if not text.isascii():   # the pure-Python scanner's pattern says \d, which takes any script's digits
            raise InputError(f"expected a JSON number (ASCII digits), got {text[:40]!r}", path=None)
        return read(text)
    return read_ascii


#: how a JSON number's text is read: by int (FloatLiteral) itself under the C scanner, which reads
#: only ASCII digits (and is fastest with int); without it (a Python without _json), checked first
_PARSE_INT, _PARSE_FLOAT = (int, FloatLiteral) if json.scanner.c_make_scanner else (_ascii(int), _ascii(FloatLiteral))


def loads(text: str):
    """Parse JSON text strictly (see the module docstring)."""
    _prescan(text)
    try:
        with unlimited_int_digits():
            return json.loads(
                text, object_pairs_hook=_pairs, parse_float=_PARSE_FLOAT, parse_constant=_constant, parse_int=_PARSE_INT
            )
    except json.JSONDecodeError as err:
        raise InputError(
            f"expected valid JSON, the text breaks at line {err.lineno} column {err.colno}: {err.msg}",
            path=None,
        ) from None
    except RecursionError:
        raise LimitError("expected JSON nested less deeply (the depth limit)", path=None) from None


def first_json_float(obj, path: str = ""):
    """``(path, float)``: the first JSON float (a :class:`~symrel.exact.FloatLiteral`) in
    ``obj``, depth first, and its JSON path; None when ``obj`` holds none.

    >>> first_json_float(loads('{"w": [1, "0.5", 0.5]}'))
    ('w[2]', FloatLiteral('0.5'))
    """
    if isinstance(obj, FloatLiteral):
        return path, obj
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        found = first_json_float(value, f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}" if path else key)
        if found is not None:
            return found
    return None


def read_json(path: str | os.PathLike):
    """Read and parse a JSON file; every error names the file."""
    from .reading import read_bytes

    p = Path(path)
    data = read_bytes(p)   # bounded: a device is refused, a file beyond MAX_FILE_BYTES too
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"expected UTF-8 text, bad byte at offset {err.start}", file=str(p)) from None
    try:
        return loads(text)
    except InputError as err:
        raise err.in_file(str(p)) from None


def _umask_mode() -> int:
    """The permission bits a plain ``open()`` would give a new file (0o666 less the umask);
    mkstemp's private 0o600 is right for the temporary file, not for the result."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename, so the
    file is never seen half-written; on any error nothing is left behind."""
    _write_atomic(path, lambda fd: os.fdopen(fd, "w", encoding="utf-8"), text)


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Binary counterpart of :func:`write_text_atomic`."""
    _write_atomic(path, lambda fd: os.fdopen(fd, "wb"), data)


def _write_atomic(path, open_fd, payload) -> None:
    """Write ``payload`` through ``open_fd(fd)`` into a temporary file beside ``path``,
    then rename it onto ``path`` (the temporary file is removed on any error)."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise InputError("the folder of the output file does not exist", file=str(p))
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=folder)
    try:
        with open_fd(fd) as fh:
            fh.write(payload)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_json_atomic(path: str | os.PathLike, obj) -> None:
    """Write ``obj`` as canonical JSON, atomically."""
    write_text_atomic(path, canonical_dumps(obj))
