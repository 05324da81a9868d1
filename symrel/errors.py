"""Exception types of symrel.

Every error a user can cause is a :class:`SymrelError`. The command line turns
:class:`InputError` into exit code 2 and a one-line message that names the file,
the path of the offending field (``layers[0].units[1].pieces[2].b``) and what
was expected, so no traceback ever reaches the user for bad input.

>>> try:
...     raise InputError("expected an exact rational, got a JSON float 0.5", path="b")
... except SymrelError as err:
...     print(err)
b: expected an exact rational, got a JSON float 0.5
"""

from __future__ import annotations


class SymrelError(Exception):
    """Base class of every exception symrel raises on purpose."""


class InputError(SymrelError, ValueError):
    """Bad input: a field has the wrong type, shape or value.

    ``path`` locates the field inside the input (``layers[0].W[1][2]``), ``file``
    names the file it came from when there is one.
    """

    def __init__(self, message: str, path: str | None = None, file: str | None = None):
        self.message = message
        self.path = path
        self.file = file
        super().__init__(self.one_line())

    def one_line(self) -> str:
        """The message as one line: ``file: path: message``. Control characters in a
        path or file name (a JSON key may hold a line break) are shown escaped."""
        parts = [_escape_controls(str(p)) for p in (self.file, self.path) if p]
        text = " ".join(str(self.message).split())
        return ": ".join(parts + [text])

    def __str__(self) -> str:
        return self.one_line()

    def in_file(self, file: str) -> "InputError":
        """The same error, attributed to ``file`` (kept if already set)."""
        if self.file is None:
            self.file = file
            self.args = (self.one_line(),)
        return self

    def under(self, prefix: str) -> "InputError":
        """The same error with ``prefix`` prepended to its path."""
        if prefix:
            if not self.path:
                self.path = prefix
            elif self.path.startswith("["):
                self.path = prefix + self.path
            else:
                self.path = prefix + "." + self.path
            self.args = (self.one_line(),)
        return self


def _escape_controls(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


class DimensionError(InputError):
    """Shapes that do not fit together (a matrix with the wrong number of columns, ...)."""


class LimitError(InputError):
    """An input beyond a configured resource limit (digits, sizes, cells)."""


class UndecidedError(SymrelError):
    """A computation stopped at a limit before it could decide its claim."""


class InternalError(SymrelError):
    """A construction failed its own exact check: a bug in symrel, not in the input. The
    message says so (``internal error (a bug in symrel): ...``); the command line prints it
    in one line with exit 2, without a traceback."""

    def __init__(self, message: str):
        super().__init__(f"internal error (a bug in symrel): {message}")
