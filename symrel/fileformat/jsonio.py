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

import hashlib
import json
import os
import re
import tempfile
from json.encoder import c_make_encoder
from json.encoder import encode_basestring as _encode_string
from pathlib import Path

from ..errors import InputError, LimitError
from ..exact import FloatLiteral
from ..exact.numbers import current_limits, unlimited_int_digits

MAX_DEPTH = 64
MAX_FILE_BYTES = 512 * 1024 * 1024


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


def _prescan(text: str) -> None:
    """Refuse nesting deeper than :data:`MAX_DEPTH` and a digit run of more than
    :data:`_DIGIT_RUN_LIMIT` digits outside strings, before the parser sees the text.

    One pass, linear in the text: each token is matched once, and a string is skipped whole
    from its opening quote to its closing one (digits inside a string are text, not a
    number). An unterminated string ends the scan; the parser then reports it.

    >>> _prescan('{"a": "' + "9" * 200_000 + '", "b": [1, 2]}')
    >>> _prescan("[" * 65 + "]" * 65)
    Traceback (most recent call last):
    ...
    symrel.errors.LimitError: expected JSON nested at most 64 deep (the depth limit)
    """
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


def loads(text: str):
    """Parse JSON text strictly (see the module docstring)."""
    _prescan(text)
    try:
        with unlimited_int_digits():
            return json.loads(
                text, object_pairs_hook=_pairs, parse_float=FloatLiteral, parse_constant=_constant
            )
    except json.JSONDecodeError as err:
        raise InputError(
            f"expected valid JSON, the text breaks at line {err.lineno} column {err.colno}: {err.msg}",
            path=None,
        ) from None
    except RecursionError:
        raise LimitError("expected JSON nested less deeply (the depth limit)", path=None) from None


def read_json(path: str | os.PathLike):
    """Read and parse a JSON file; every error names the file."""
    p = Path(path)
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            raise LimitError(f"expected a file of at most {MAX_FILE_BYTES} bytes", file=str(p))
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    except IsADirectoryError:
        raise InputError("expected a file, got a directory", file=str(p)) from None
    except PermissionError:
        raise InputError("the file cannot be read (permission denied)", file=str(p)) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"expected UTF-8 text, bad byte at offset {err.start}", file=str(p)) from None
    try:
        return loads(text)
    except InputError as err:
        raise err.in_file(str(p)) from None


def canonical_dumps(obj) -> str:
    """The canonical text of a JSON object: sorted keys, two-space indent, final newline.

    It is ``json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)`` character for
    character, written directly for the plain values a symrel object holds (the standard
    encoder takes its slow pure-Python path whenever it indents; every certificate check
    hashes its inputs' canonical text).

    >>> obj = {"b": [1, "x", [], {}], "a": {"é": None, "t": True}}
    >>> canonical_dumps(obj) == json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False) + chr(10)
    True
    """
    out: list[str] = []
    with unlimited_int_digits():
        _canonical(obj, "", out.append)
    out.append("\n")
    return "".join(out)


_PLAIN_SCALARS = frozenset((int, str))
_ROW_ENCODERS: dict = {}


def _row_text(row, inner: str) -> str:
    """The items of a list of ints and strings, each on its own line indented by ``inner``
    (what the standard encoder writes between the brackets)."""
    enc = _ROW_ENCODERS.get(inner)
    if enc is None:
        if c_make_encoder is None:  # a Python without the json accelerator
            sep = ",\n" + inner
            return sep.join([int.__repr__(v) if type(v) is int else _encode_string(v) for v in row])
        enc = _ROW_ENCODERS[inner] = c_make_encoder(None, None, _encode_string, None, ": ", ",\n" + inner,
                                                    True, False, True)
    return "".join(enc(row, 0))[1:-1]


def _is_plain_row(r) -> bool:
    return type(r) is list and bool(r) and all(map(_PLAIN_SCALARS.__contains__, map(type, r)))


def _canonical(o, pad: str, put) -> None:
    if isinstance(o, str):
        put(_encode_string(o))
    elif o is None:
        put("null")
    elif o is True:
        put("true")
    elif o is False:
        put("false")
    elif type(o) is int:
        put(int.__repr__(o))
    elif type(o) is list or type(o) is tuple:
        if not o:
            put("[]")
            return
        inner = pad + "  "
        if all(map(_PLAIN_SCALARS.__contains__, map(type, o))):
            # a row of ints and strings (most of a model's text): the C encoder writes it, with
            # the indented separator as its item separator (it is fast only without indent)
            put("[\n" + inner + _row_text(o, inner) + "\n" + pad + "]")
            return
        if all(map(_is_plain_row, o)):
            # a matrix (non-empty rows of ints and strings) in one call of the C encoder: its
            # separators are the rows' ones, and each row boundary, "],", a line break, then
            # "[" (no encoded string holds a line break), gets the matrix's own indentation
            deeper = inner + "  "
            body = _row_text(o, deeper).replace("],\n" + deeper + "[", "\n" + inner + "],\n" + inner + "[\n" + deeper)
            put("[\n" + inner + "[\n" + deeper + body[1:-1] + "\n" + inner + "]\n" + pad + "]")
            return
        put("[\n" + inner)
        for k, v in enumerate(o):
            if k:
                put(",\n" + inner)
            _canonical(v, inner, put)
        put("\n" + pad + "]")
    elif type(o) is dict and all(type(k) is str for k in o):
        if not o:
            put("{}")
            return
        inner = pad + "  "
        put("{\n" + inner)
        for k, key in enumerate(sorted(o)):
            if k:
                put(",\n" + inner)
            put(_encode_string(key) + ": ")
            _canonical(o[key], inner, put)
        put("\n" + pad + "}")
    else:  # anything else (a float, an int subclass, other keys) as the standard encoder writes it
        put(json.dumps(o, indent=2, sort_keys=True, ensure_ascii=False).replace("\n", "\n" + pad))


def sha256_of(obj) -> str:
    """sha256 (hex) of the canonical text of ``obj``."""
    return hashlib.sha256(canonical_dumps(obj).encode("utf-8")).hexdigest()


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
