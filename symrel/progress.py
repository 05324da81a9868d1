"""Progress of long work on standard error: tqdm when it is installed and the
stream is a terminal, whole lines otherwise.

A log, a pipe or a CI console gets only whole lines (no carriage returns), at
most one every ``every`` seconds and a last one at the end, so progress never
runs lines together. With tqdm (the optional ``progress`` extra) on a terminal
it is tqdm's bar, with the total and ETA when the total is known.

Nothing shows before ``delay`` seconds of work (default :data:`DELAY`, 2 s; the
environment variable ``SYMREL_PROGRESS_DELAY`` sets it), so a command that ends
sooner prints no progress at all. The command line shows progress by default when
standard error is a terminal, and never when it is piped (``--progress`` /
``--no-progress`` decide otherwise).

>>> import io
>>> out = io.StringIO()
>>> with Progress("cells", total=3, stream=out, every=0, delay=0) as bar:
...     for _ in range(3):
...         bar.update(lps=2)
>>> print(out.getvalue().splitlines()[-1])
cells: 3/3 (100%), lps 2, done in 0.0 s
"""

from __future__ import annotations

import os
import sys
import time

#: seconds of work before any progress shows (the environment variable SYMREL_PROGRESS_DELAY,
#: read when a Progress starts, overrides it)
DELAY = 2.0


def default_delay() -> float:
    """SYMREL_PROGRESS_DELAY when set (seconds), else :data:`DELAY`."""
    text = os.environ.get("SYMREL_PROGRESS_DELAY")
    try:
        return float(text) if text else DELAY
    except ValueError:
        return DELAY


def _tqdm():
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


def _terminal_columns(stream) -> int:
    """The width of the terminal ``stream`` is (0: not a terminal, or one that reports no size,
    where tqdm would draw an empty bar)."""
    if not getattr(stream, "isatty", lambda: False)():
        return 0
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80  # a terminal-like stream with no file descriptor (tests)


class Progress:
    """``update(n=1, **figures)`` after each unit of work; ``close()`` (or the
    ``with`` block's end) prints the last state. ``total`` gives a percentage
    and an ETA; ``unit`` names what is counted in the rate (``340 nodes/s``);
    ``elapsed`` adds the seconds spent to each line; ``enabled=False`` prints
    nothing; nothing shows before ``delay`` seconds (module docstring)."""

    def __init__(self, what: str, total: int | None = None, *, stream=None, enabled: bool = True,
                 every: float = 2.0, unit: str = "it", delay: float | None = None, elapsed: bool = False):
        self.what, self.total, self.count, self.figures = what, total, 0, {}
        self.unit, self.show_elapsed = unit, elapsed
        self.stream = sys.stderr if stream is None else stream
        self.enabled, self.every = enabled, every
        self.delay = default_delay() if delay is None else delay
        self._t0 = time.perf_counter()
        self._last = self._t0 + self.delay - every  # the first line at ``delay``, then one every ``every``
        self._shown = False
        self._bar = None
        tqdm = _tqdm()
        if enabled and tqdm is not None and _terminal_columns(self.stream) > 0:
            self._bar = tqdm(total=total, desc=what, unit=unit, file=self.stream, leave=True, delay=self.delay)

    def update(self, n: int = 1, **figures) -> None:
        self.count += n
        self.figures.update(figures)
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(n)
            if figures:
                self._bar.set_postfix(self.figures, refresh=False)
            return
        now = time.perf_counter()
        if now - self._last >= self.every and self.every > 0 and now - self._t0 >= self.delay:
            self._last = now
            self._line(now)

    def _line(self, now: float, done: bool = False) -> None:
        elapsed = now - self._t0
        parts = [f"{self.what}: {self.count}" + (f"/{self.total} ({100 * self.count // max(self.total, 1)}%)"
                                                  if self.total else "")]
        parts += [f"{k} {v}" for k, v in self.figures.items()]
        if done:
            parts.append(f"done in {elapsed:.1f} s")
        else:
            rate = self.count / elapsed if elapsed > 0 else 0.0
            parts.append(f"{rate:.3g}/s" if self.unit == "it" else f"{rate:.3g} {self.unit}/s")
            if self.total and rate > 0:
                parts.append(f"ETA {max(self.total - self.count, 0) / rate:.0f} s")
            if self.show_elapsed:
                parts.append(f"{elapsed:.1f} s")
        print(", ".join(parts), file=self.stream, flush=True)
        self._shown = True

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            return
        now = time.perf_counter()
        if self._shown or now - self._t0 >= self.delay:  # a short run shows nothing, not even its end
            self._line(now, done=True)
        self.enabled = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False
