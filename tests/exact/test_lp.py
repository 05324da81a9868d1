"""Exact LP with certificates: witnesses and Farkas vectors, both verified exactly."""

import random

import pytest

from symrel.exact import rational as r
from symrel.exact.lp import exact_simplex, feasibility, is_farkas, is_witness
from sympy import QQ


def test_interval_witness_is_interior():
    res = feasibility([[r(1)], [r(-1)]], [r(1), r(0)], method="exact")
    assert res.feasible and res.point == [r("1/2")] and res.slack == r("1/2")


def test_empty_interval_has_farkas_vector():
    A, b = [[r(1)], [r(-1)]], [r(-1), r(0)]
    res = feasibility(A, b, method="exact")
    assert not res.feasible
    y, z = res.farkas
    assert is_farkas(A, b, y, z)
    # tampering with one entry breaks it
    assert not is_farkas(A, b, [y[0] + r("1/1000000"), y[1]], z)
    assert not is_farkas(A, b, [-y[0], y[1]], z)


def test_strict_rows_use_motzkin_certificate():
    A, b = [[r(1)], [r(-1)]], [r(0), r(0)]  # x < 0 and x >= 0
    res = feasibility(A, b, strict=[True, False], method="exact")
    assert not res.feasible
    y, z = res.farkas
    assert is_farkas(A, b, y, z, strict=[True, False])
    # the same vector is no certificate once nothing is strict (x = 0 is then feasible)
    assert not is_farkas(A, b, y, z)
    assert feasibility(A, b, method="exact").point == [r(0)]


def test_equalities_tie_cell_and_inconsistent_equalities():
    A = [[r(1), r(0)], [r(-1), r(0)], [r(0), r(1)], [r(0), r(-1)]]
    b = [r(1)] * 4
    res = feasibility(A, b, C=[[r(1), r(-1)]], d=[r(0)])
    assert res.feasible and res.point[0] == res.point[1]
    bad = feasibility(A, b, C=[[r(1), r(0)], [r(1), r(0)]], d=[r(0), r(1)])
    assert not bad.feasible
    y, z = bad.farkas
    assert is_farkas(A, b, y, z, C=[[r(1), r(0)], [r(1), r(0)]], d=[r(0), r(1)])


def test_unconstrained_direction():
    # only x1 is constrained; x2 is free (a redundant row of the dual)
    res = feasibility([[r(1), r(0)], [r(-1), r(0)]], [r(2), r(-1)], method="exact")
    assert res.feasible and r(1) <= res.point[0] <= r(2)


def test_witness_check_rejects_tampering():
    A, b = [[r(1), r(1)], [r(-1), r(0)], [r(0), r(-1)]], [r(1), r(0), r(0)]
    res = feasibility(A, b)
    assert is_witness(A, b, res.point)
    assert not is_witness(A, b, [res.point[0] + r(1), res.point[1]])


def _random_system(rng, n, m, p):
    def q():
        return QQ(rng.randint(-20, 20), rng.randint(1, 5))

    A = [[q() for _ in range(n)] for _ in range(m)]
    b = [q() for _ in range(m)] if rng.random() < 0.7 else [QQ(0)] * m
    C = [[q() for _ in range(n)] for _ in range(p)]
    d = [q() for _ in range(p)]
    strict = [rng.random() < 0.4 for _ in range(m)]
    return A, b, C, d, strict


def test_random_systems_certificates_always_verify():
    rng = random.Random(7)
    seen = set()
    for _ in range(150):
        A, b, C, d, strict = _random_system(rng, rng.randint(1, 4), rng.randint(1, 10), rng.choice([0, 0, 1, 2]))
        res = feasibility(A, b, C, d, strict=strict, method="exact")
        seen.add(res.feasible)
        if res.feasible:
            assert is_witness(A, b, res.point, C, d, strict)
        else:
            assert is_farkas(A, b, res.farkas[0], res.farkas[1], C, d, strict)
    assert seen == {True, False}


def test_one_dimensional_systems_against_interval_reasoning():
    rng = random.Random(3)
    for _ in range(200):
        A, b, _, _, strict = _random_system(rng, 1, rng.randint(1, 5), 0)
        lo, hi, lo_open, hi_open, ok = None, None, False, False, True
        for (a,), c, s in zip(A, b, strict):
            if a == 0:
                ok = ok and (0 < c if s else 0 <= c)
            elif a > 0:
                v = c / a
                if hi is None or v < hi or (v == hi and s):
                    hi, hi_open = v, s if (hi is None or v < hi) else (hi_open or s)
            else:
                v = c / a
                if lo is None or v > lo or (v == lo and s):
                    lo, lo_open = v, s if (lo is None or v > lo) else (lo_open or s)
        if ok and lo is not None and hi is not None:
            ok = lo < hi or (lo == hi and not lo_open and not hi_open)
        assert feasibility(A, b, strict=strict, method="exact").feasible == ok


def test_float_proposal_agrees_with_exact_simplex():
    pytest.importorskip("scipy")
    rng = random.Random(11)
    methods = set()
    for _ in range(120):
        A, b, C, d, strict = _random_system(rng, rng.randint(1, 4), rng.randint(1, 12), rng.choice([0, 0, 1]))
        exact = feasibility(A, b, C, d, strict=strict, method="exact")
        proposed = feasibility(A, b, C, d, strict=strict, method="highs")
        started = feasibility(A, b, C, d, strict=strict, method="float")
        assert exact.feasible == proposed.feasible == started.feasible
        methods.add(proposed.method)
    assert "float-basis" in methods


def test_exact_simplex_reports_optimum_and_duals():
    A, b = [[r(1), r(1)], [r(-1), r(0)], [r(0), r(-1)]], [r(3), r(0), r(0)]
    out = exact_simplex(A, b)
    assert out["status"] == "optimal"
    # largest ball-like slack in the triangle x, y >= 0, x + y <= 3, capped at 1
    assert out["t"] == r(1)
    assert sum(out["y"]) + out["w"] == r(1)


def test_float_copies_only_propose():
    """The caller's float copies of the data steer the float start and nothing else: the
    same copies give the same answer as rounding inside, and wrong copies still give an
    exactly verified answer of the right kind."""
    from symrel.exact import to_float

    rng = random.Random(5)
    for _ in range(20):
        A = [[QQ(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(2)] for _ in range(6)]
        b = [QQ(rng.randint(-3, 5), rng.randint(1, 3)) for _ in range(6)]
        strict = [rng.random() < 0.5 for _ in range(6)]
        plain = feasibility(A, b, strict=strict)
        floats = ([[to_float(v) for v in row] for row in A], [to_float(v) for v in b], [], [])
        same = feasibility(A, b, strict=strict, floats=floats)
        assert (same.feasible, same.point, same.farkas) == (plain.feasible, plain.point, plain.farkas)
        wrong = feasibility(A, b, strict=strict, floats=([[1.0, -1.0]] * 6, [0.0] * 6, [], []))
        assert wrong.feasible == plain.feasible
        if wrong.feasible:
            assert is_witness(A, b, wrong.point, strict=strict)
        else:
            assert is_farkas(A, b, *wrong.farkas, strict=strict)
