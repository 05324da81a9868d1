"""The exact LP checks its caller's budget before every pivot (symrel.exact.simplex), so one
long LP cannot overrun a time limit; a budget that does not run out changes no answer."""

import random

import pytest

from symrel.budget import Budget, BudgetExceeded
from symrel.exact import Q, feasibility
from symrel.exact.exact_simplex import exact_simplex
from symrel.exact.lp_optimum import maximise


class CountingBudget(Budget):
    """A budget without a clock that runs out at its ``allowed + 1``-th check (never: None)."""

    def __init__(self, allowed=None):
        super().__init__()
        self.allowed, self.checks = allowed, 0

    def check(self, cells=None):
        self.checks += 1
        if self.allowed is not None and self.checks > self.allowed:
            raise BudgetExceeded(f"ran out at check {self.checks}", {})


def _system(seed, m=40, n=6):
    """A random polytope: ``m`` random rows and the box [-1, 1]^n."""
    rng = random.Random(seed)
    A = [[Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(n)] for _ in range(m)]
    b = [Q(rng.randint(0, 9), rng.randint(1, 3)) for _ in range(m)]
    for j in range(n):
        for s in (1, -1):
            A.append([Q(s) if k == j else Q(0) for k in range(n)])
            b.append(Q(1))
    return A, b


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["exact", "float", "highs"])
def test_a_budget_that_does_not_run_out_changes_no_answer(seed, method):
    if method == "highs":
        pytest.importorskip("scipy")
    A, b = _system(seed)
    strict = [i % 3 == 0 for i in range(len(A))]
    plain = feasibility(A, b, strict=strict, method=method)
    budget = CountingBudget()
    counted = feasibility(A, b, strict=strict, method=method, budget=budget)
    assert (counted.feasible, counted.point, counted.slack, counted.farkas, counted.method, counted.stats) == \
        (plain.feasible, plain.point, plain.slack, plain.farkas, plain.method, plain.stats)
    if method == "exact":
        assert budget.checks >= plain.stats["pivots"] > 3


def test_the_budget_is_checked_before_every_pivot():
    A, b = _system(0)
    out = exact_simplex(A, b)
    assert out["pivots"] > 3
    for allowed in (0, 1, out["pivots"] // 2):
        with pytest.raises(BudgetExceeded, match=f"check {allowed + 1}"):
            exact_simplex(A, b, budget=CountingBudget(allowed))
    budget = CountingBudget()
    assert exact_simplex(A, b, budget=budget) == out
    with pytest.raises(BudgetExceeded):          # the same LP stops within its pivots
        exact_simplex(A, b, budget=CountingBudget(budget.checks - 1))


def test_maximise_passes_the_budget_to_its_lp():
    A, b = _system(1)
    w = [Q(1)] * 6
    plain = maximise(A, b, w, Q(0), upper=Q(7))
    assert maximise(A, b, w, Q(0), upper=Q(7), budget=CountingBudget()) == plain
    with pytest.raises(BudgetExceeded):
        maximise(A, b, w, Q(0), upper=Q(7), budget=CountingBudget(0))


def test_an_expired_clock_stops_the_lp_with_the_budgets_record():
    A, b = _system(2)
    budget = Budget(timeout=0)
    budget.at(lemma="an LP")
    with pytest.raises(BudgetExceeded, match="time limit of 0 s reached; open: an LP"):
        feasibility(A, b, method="exact", budget=budget)


@pytest.mark.slow
def test_a_long_exact_lp_stops_at_its_time_limit():
    """This LP (30 variables, 260 rows, from scratch) takes about 1,900 pivots and half a
    minute; with a limit of 1 s (of CPU time, which a loaded machine does not stretch:
    tests/cpu_budget.py) it stops within a few pivots of the limit."""
    from tests.cpu_budget import CpuBudget

    A, b = _system(5, m=200, n=30)
    budget = CpuBudget(timeout=1)
    with pytest.raises(BudgetExceeded, match="time limit of 1 s reached"):
        feasibility(A, b, method="exact", budget=budget)
    assert 0 <= budget.overshoot() < 0.5, budget.overshoot()
