"""A :class:`~symrel.budget.Budget` on the process's CPU clock, for tests that long work stops at
its time limit.

Such a test must not time the work on the wall clock: on a loaded machine the process waits
for a core, and its wall time stretches with the load, while the CPU time it spends does not.
A budget promises that the work stops at its first check past the deadline; on the CPU clock,
what it let through after its limit (:meth:`CpuBudget.overshoot`) is at most the CPU time of one
gap between checks plus the unwinding after the check raised, whatever the load. HiGHS, which
is given the time left as its own (wall-clock) limit, then stops no later than the CPU deadline:
its wall time is at least its CPU time.

>>> from symrel.budget import BudgetExceeded
>>> budget = CpuBudget(timeout=0.05)
>>> try:
...     while True:
...         budget.check()
... except BudgetExceeded as err:
...     print(err, budget.overshoot() < 1)
time limit of 0.05 s reached; open: nothing recorded True
"""

from __future__ import annotations

import time

from symrel.budget import Budget, BudgetExceeded


class CpuBudget(Budget):
    """``timeout`` seconds of this process's CPU time from creation (None: no limit), at most
    ``max_cells`` cells; ``checks`` counts the checks."""

    def __init__(self, timeout=None, max_cells=None):
        super().__init__(timeout, max_cells)
        self.start = time.process_time()
        self.deadline = None if timeout is None else self.start + timeout
        self.checks = 0

    def elapsed(self) -> float:
        return time.process_time() - self.start

    def remaining(self):
        return None if self.deadline is None else max(0.0, self.deadline - time.process_time())

    def expired(self) -> bool:
        return self.deadline is not None and time.process_time() >= self.deadline

    def check(self, cells=None) -> None:
        self.checks += 1
        if self.expired():
            raise BudgetExceeded(f"time limit of {self.timeout:g} s reached; open: {self.describe()}", dict(self.state))
        if cells is not None and self.max_cells is not None and cells > self.max_cells:
            raise BudgetExceeded(f"cell limit of {self.max_cells} cells reached; open: {self.describe()}",
                                 dict(self.state))

    def overshoot(self) -> float:
        """CPU seconds spent past the deadline, up to now."""
        return time.process_time() - self.deadline
