"""Progress of long work on standard error: tqdm when it is installed and the
stream is a terminal, whole lines otherwise.

A log, a pipe or a CI console gets only whole lines (no carriage returns), at
most one every ``every`` seconds and a last one at the end, so progress never
runs lines together. With tqdm (the optional ``progress`` extra) on a terminal
it is tqdm's bar, with the total and ETA when the total is known.

>>> import io
>>> out = io.StringIO()
>>> with Progress("cells", total=3, stream=out, every=0) as bar:
...     for _ in range(3):
...         bar.update(lps=2)
>>> print(out.getvalue().splitlines()[-1])
cells: 3/3 (100%), lps 2, done in 0.0 s
"""

from __future__ import annotations

import sys
import time


def _tqdm():
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm


class Progress:
    """``update(n=1, **figures)`` after each unit of work; ``close()`` (or the
    ``with`` block's end) prints the last state. ``total`` gives a percentage
    and an ETA; ``enabled=False`` prints nothing."""

    def __init__(self, what: str, total: int | None = None, *, stream=None, enabled: bool = True,
                 every: float = 2.0, unit: str = "it"):
        self.what, self.total, self.count, self.figures = what, total, 0, {}
        self.stream = sys.stderr if stream is None else stream
        self.enabled, self.every = enabled, every
        self._t0 = self._last = time.perf_counter()
        self._bar = None
        tqdm = _tqdm()
        if enabled and tqdm is not None and getattr(self.stream, "isatty", lambda: False)():
            self._bar = tqdm(total=total, desc=what, unit=unit, file=self.stream, leave=True)

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
        if now - self._last >= self.every and self.every > 0:
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
            parts.append(f"{rate:.3g}/s")
            if self.total and rate > 0:
                parts.append(f"ETA {max(self.total - self.count, 0) / rate:.0f} s")
        print(", ".join(parts), file=self.stream, flush=True)

    def close(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            return
        self._line(time.perf_counter(), done=True)
        self.enabled = False

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False
