"""The HiGHS proposal's exact parts (symrel.exact.highs_proposal): the greedy basis of the
active rows is the pivot set of a reduced row echelon form, and the budget is checked in it."""

import random

import pytest
from sympy import QQ
from sympy.polys.matrices import DomainMatrix

from symrel.budget import Budget, BudgetExceeded
from symrel.exact import Q
from symrel.exact.highs_proposal import _independent_rows


def _rref_pivots(rows):   # sympy's rref, an oracle outside symrel
    M = DomainMatrix([list(r) for r in rows], (len(rows), len(rows[0])), QQ).to_dense().transpose()
    return list(M.rref()[1])


@pytest.mark.parametrize("seed", range(30))
def test_the_greedy_basis_is_the_pivot_set_of_the_rref(seed):
    rng = random.Random(seed)
    k, m = rng.randint(1, 8), rng.randint(1, 14)
    rows = []
    for _ in range(m):
        if rows and rng.random() < 0.4:       # a combination of earlier rows: dependent
            a, b = rng.choice(rows), rng.choice(rows)
            c = Q(rng.randint(-3, 3), rng.randint(1, 4))
            rows.append([x + c * y for x, y in zip(a, b)])
        else:
            rows.append([Q(rng.randint(-2, 2), rng.randint(1, 3)) if rng.random() < 0.5 else Q(0) for _ in range(k)])
    pivots = _rref_pivots(rows)
    assert _independent_rows(rows, k + 1) == pivots
    assert _independent_rows(rows, 2) == pivots[:2]


def test_the_greedy_basis_checks_the_budget_after_each_row():
    rows = [[Q(1) if i == j else Q(0) for j in range(5)] for i in range(5)]
    with pytest.raises(BudgetExceeded):
        _independent_rows(rows, 5, Budget(timeout=0))
    assert _independent_rows(rows, 5, Budget()) == list(range(5))
