"""An input file's bytes, read bounded: what every reader of symrel reads (JSON, VNN-LIB,
``.nnet``, ONNX, instance lists, counterexamples) and what the sha256 of a file's bytes hashes.

A path is read only when it names a regular file or a pipe: a device (``/dev/zero``,
``/dev/urandom``) never ends, and is refused before a byte is read; so is a directory. At
most :data:`MAX_FILE_BYTES` bytes are read: a longer file or pipe is refused
(:class:`~symrel.errors.LimitError`, ``the file-size limit``) once one byte more has come,
whatever ``stat`` says of its size (a pipe has none, a file may grow). Every refusal is one
:class:`~symrel.errors.InputError` naming the file.

Cost: one read of the file, at most the limit, in blocks of 1 MiB.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "p.txt")
>>> _ = open(path, "wb").write(b"(assert)")
>>> read_bytes(path), file_sha256(path)[:16]
(b'(assert)', '32e1d33683081089')
>>> read_bytes("/dev/zero")
Traceback (most recent call last):
...
symrel.errors.InputError: /dev/zero: expected a regular file or a pipe, got a character device
"""

from __future__ import annotations

import os
import stat

from ..errors import InputError, LimitError

#: the most bytes read from one input file (512 MiB)
MAX_FILE_BYTES = 512 * 1024 * 1024
_BLOCK = 1 << 20

_KINDS = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _open(path):
    """The file at ``path`` opened for reading, after its kind was checked (module docstring)."""
    name = str(path)
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        raise InputError("no such file", file=name) from None
    except ValueError:   # a NUL character (a path from a file's text: an instance list)
        raise InputError("expected a path without NUL characters", file=name.replace("\0", "\\0")) from None
    except OSError as err:
        raise InputError(f"the file cannot be read ({err.strerror or err})", file=name) from None
    if stat.S_ISDIR(mode):
        raise InputError("expected a file, got a directory", file=name)
    for test, kind in _KINDS:
        if test(mode):
            raise InputError(f"expected a regular file or a pipe, got {kind}", file=name)
    try:
        return open(name, "rb")
    except PermissionError:
        raise InputError("the file cannot be read (permission denied)", file=name) from None
    except OSError as err:
        raise InputError(f"the file cannot be read ({err.strerror or err})", file=name) from None


def _blocks(path, limit: int | None):
    """The file's bytes in blocks, refused past ``limit`` bytes (default :data:`MAX_FILE_BYTES`)."""
    limit = MAX_FILE_BYTES if limit is None else limit
    seen = 0
    with _open(path) as fh:
        while True:
            try:
                block = fh.read(min(_BLOCK, limit + 1 - seen))
            except OSError as err:
                raise InputError(f"the file cannot be read ({err.strerror or err})", file=str(path)) from None
            if not block:
                return
            seen += len(block)
            if seen > limit:
                raise LimitError(f"expected a file of at most {limit} bytes (the file-size limit)", file=str(path))
            yield block


def read_bytes(path, limit: int | None = None) -> bytes:
    """The bytes of the file at ``path`` (module docstring)."""
    return b"".join(_blocks(path, limit))


def read_utf8(path, what: str = "text", limit: int | None = None) -> str:
    """The text of the file at ``path``, UTF-8; a bad byte is refused naming its line and offset
    (``what`` says what the file was expected to be)."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise InputError(f"expected {what} in UTF-8, bad byte at offset {err.start}", path=f"line {line}",
                         file=str(path)) from None


def file_sha256(path, limit: int | None = None) -> str:
    """The sha256 (hex) of the bytes of the file at ``path``, what ``sha256sum`` prints (read in
    blocks, bounded as :func:`read_bytes` is)."""
    import hashlib

    digest = hashlib.sha256()
    for block in _blocks(path, limit):
        digest.update(block)
    return digest.hexdigest()
