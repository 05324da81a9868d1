"""The canonical text of a symrel JSON object, and its sha256: what a certificate records
for every input it embeds, and what the checker recomputes.

Reading the canonical text back gives the same object, so two objects have the same text
(and sha256) only if symrel reads them as the same exact object. A JSON float (``0.1``, read
as a :class:`~symrel.exact.FloatLiteral`) stays a JSON float, written as its token: refused,
or with exact floats its binary value, not the 1/10 of the string ``"0.1"`` (docs/format.md).

Kept apart from :mod:`symrel.fileformat.jsonio` (reading files, atomic writing), so that a
certificate check, which hashes its inputs but reads no file, loads this alone
(docs/trust.md).

>>> sha256_of({"a": 1}) == sha256_of({"a": 1}) != sha256_of({"a": 2})
True
>>> from symrel.exact import FloatLiteral
>>> canonical_dumps([FloatLiteral("0.1"), "0.1"]).split()
['[', '0.1,', '"0.1"', ']']
"""

from __future__ import annotations

import json
import re
from itertools import chain
from json.encoder import c_make_encoder
from json.encoder import encode_basestring as _encode_string

from ..exact.numbers import FloatLiteral, unlimited_int_digits

#: a JSON float token as the JSON reader hands one to FloatLiteral: a fraction or an exponent
_FLOAT_TOKEN = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+)")


def canonical_dumps(obj) -> str:
    """The canonical text of a JSON object: sorted keys, two-space indent, final newline.

    It is ``json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False)`` character for
    character, written directly for the plain values a symrel object holds (the standard
    encoder takes its slow pure-Python path whenever it indents; every certificate check
    hashes its inputs' canonical text), except that a JSON float (a FloatLiteral, which the
    standard encoder would quote as the string of its text) is written as its token.

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
_LIST = {list}
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


def _is_matrix(o) -> bool:
    """Every entry of ``o`` is a non-empty list of ints and strings (tested in C passes)."""
    return set(map(type, o)) == _LIST and all(o) and _PLAIN_SCALARS.issuperset(map(type, chain.from_iterable(o)))


def _is_matrix_list(o) -> bool:
    """Every entry of ``o`` is a non-empty list of which every entry is such a list."""
    return set(map(type, o)) == _LIST and all(o) and _is_matrix(list(chain.from_iterable(o)))


def _canonical(o, pad: str, put) -> None:
    if type(o) is FloatLiteral:   # before str, its base: a JSON float is its token, not a string
        if not _FLOAT_TOKEN.fullmatch(o):   # made by hand, not by the JSON reader: no faithful text
            raise ValueError(f"a FloatLiteral holds a JSON float token, not {str(o)[:40]!r}")
        put(str(o))
    elif isinstance(o, str):
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
        if c_make_encoder is not None and _is_matrix_list(o):
            # matrices (a layered net's rows of pairs) in one call, as a matrix below; a boundary
            # between two matrices is "]],", a line break, "[[", one between two rows "],", "["
            i1, i2, i3 = inner, inner + "  ", inner + "    "
            body = (_row_text(o, i3).replace("]],\n" + i3 + "[[", f"\n{i2}]\n{i1}],\n{i1}[\n{i2}[\n{i3}")
                    .replace("],\n" + i3 + "[", f"\n{i2}],\n{i2}[\n{i3}"))
            put(f"[\n{i1}[\n{i2}[\n{i3}" + body[2:-2] + f"\n{i2}]\n{i1}]\n{pad}]")
            return
        if _is_matrix(o):
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
        put(json.dumps(o, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False).replace("\n", "\n" + pad))


def sha256_of(obj) -> str:
    """sha256 (hex) of the canonical text of ``obj``, encoded in UTF-8 (a lone surrogate, which
    JSON's ``\\ud800`` escape allows, as its own three bytes: the encoding stays one-to-one)."""
    import hashlib      # here: loading OpenSSL is a cost every command would pay at start-up

    return hashlib.sha256(canonical_dumps(obj).encode("utf-8", "surrogatepass")).hexdigest()
