"""Time and size budgets of long decisions, with progress and a record of what is open.

A :class:`Budget` is handed down a long computation (the equivalence prover, its
counterexample search, the cell enumerations). The computation says where it is
(:meth:`Budget.at`: the lemma, the nodes still open, cells done out of cells known) and
calls :meth:`Budget.check` in its loops; past the deadline or the cell limit,
``check`` raises :class:`BudgetExceeded`, whose message is that record, so the caller
ends the claim *open* saying what stayed open instead of hanging. Checks are cheap
(one clock read), so a loop that checks once per LP or per cell stops within a fraction
of a second of the limit. Progress, when asked, is one line on stderr at most twice a
second.

>>> b = Budget(timeout=0)
>>> b.at(lemma="output 1", nodes=[7, 9], cells_done=3, cells_known=5)
>>> try:
...     b.check()
... except BudgetExceeded as err:
...     print(err)
time limit of 0 s reached; open: output 1; nodes y7, y9; 3 of 5 cells known done
"""

from __future__ import annotations

import sys
import time

from .errors import UndecidedError


class BudgetExceeded(UndecidedError):
    """A budget ran out; ``state`` is the record of what was open (a dict)."""

    def __init__(self, message: str, state: dict):
        super().__init__(message)
        self.state = state


class Budget:
    """``timeout`` seconds (None: no limit) from creation, at most ``max_cells`` cells
    (None: no limit); ``progress``: print a progress line to stderr."""

    def __init__(self, timeout: float | None = None, max_cells: int | None = None, progress: bool = False):
        self.timeout = timeout
        self.start = time.monotonic()
        self.deadline = None if timeout is None else self.start + timeout
        self.max_cells = max_cells
        self.progress = progress
        self.state: dict = {}
        self._shown = 0.0

    def at(self, **state) -> None:
        """Record where the computation is (keys: ``lemma``, ``nodes``, ``cells_done``,
        ``cells_known``; others are kept too)."""
        self.state.update(state)
        if self.progress:
            from .progress import default_delay

            now = time.monotonic()
            if now - self._shown >= 0.5 and now - self.start >= default_delay():
                self._shown = now
                print(f"\r[{now - self.start:6.1f} s] {self.describe()}", end="", file=sys.stderr, flush=True)

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def remaining(self) -> float | None:
        """Seconds left (None: no limit)."""
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def expired(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def describe(self) -> str:
        """What is open, in words."""
        s = self.state
        parts = [str(s["lemma"])] if s.get("lemma") else []
        if s.get("nodes"):
            nodes = list(s["nodes"])
            shown = ", ".join(f"y{v}" for v in nodes[:12]) + (f", ... ({len(nodes)} nodes)" if len(nodes) > 12 else "")
            parts.append(f"nodes {shown}")
        if "cells_done" in s:
            parts.append(f"{s['cells_done']} of {s.get('cells_known', s['cells_done'])} cells known done")
        return "; ".join(parts) or "nothing recorded"

    def check(self, cells: int | None = None) -> None:
        """Raise :class:`BudgetExceeded` past the deadline, or when ``cells`` exceeds the cell limit."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise BudgetExceeded(f"time limit of {self.timeout:g} s reached; open: {self.describe()}", dict(self.state))
        if cells is not None and self.max_cells is not None and cells > self.max_cells:
            raise BudgetExceeded(f"cell limit of {self.max_cells} cells reached; open: {self.describe()}",
                                 dict(self.state))

    def alarm(self, slack: float = 1.0) -> "_Alarm":
        """A context manager, the backstop behind :meth:`check`: ``slack`` seconds past the
        deadline, SIGALRM raises :class:`BudgetExceeded` wherever the work is, for code that
        checks too rarely (main thread, POSIX; elsewhere, or without a deadline, nothing)."""
        return _Alarm(self, slack)

    def sub(self, fraction: float) -> "Budget":
        """A budget sharing this one's cell limit and state whose deadline is ``fraction``
        of the time left (for a phase that must leave time to the next ones)."""
        left = self.remaining()
        child = Budget(None if left is None else left * fraction, self.max_cells, self.progress)
        if self.deadline is not None and child.deadline is not None:
            child.deadline = min(child.deadline, self.deadline)
        child.state = self.state
        return child


class _Alarm:
    def __init__(self, budget: Budget, slack: float):
        self.budget, self.slack, self.old = budget, slack, None

    def _fire(self, signum, frame):
        raise BudgetExceeded(f"time limit of {self.budget.timeout:g} s reached; open: {self.budget.describe()}",
                             dict(self.budget.state))

    def __enter__(self):
        import signal
        import threading

        left = self.budget.remaining()
        if left is not None and hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGALRM, self._fire)
            signal.setitimer(signal.ITIMER_REAL, left + self.slack)
        return self

    def __exit__(self, *exc):
        import signal

        if self.old is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
        return False


UNLIMITED = None


def as_budget(budget: Budget | None = None, timeout=None, max_cells=None, progress=False) -> Budget:
    """``budget`` itself, or a new one from the limits."""
    return budget if budget is not None else Budget(timeout, max_cells, progress)
