"""The exact LP (symrel.exact.lp) against sympy's lpmax and cdd.gmp (pycddlib, when
installed) on the same LPs, in one run; HiGHS (float, not exact) for scale.

LPs: "max t s.t. A x + t <= b, t <= 1" (the relative-interior programme of a cell),
random rationals p/q with |p| <= 200, q <= 50, every system feasible (b = A x0 + s, s > 0).
Shapes: 8 variables x 40 rows (the issue's measurement) and 2 x 30 (a 2-D cell).
Run: ``python -m benchmarks.bench_lp``.
"""

from __future__ import annotations

import random
import time
from fractions import Fraction

from symrel.exact import Q, ground_types, to_fraction
from symrel.exact.lp import exact_simplex, feasibility


def _systems(rng, n, m, count):
    out = []
    for _ in range(count):
        A = [[Q(rng.randint(-200, 200), rng.randint(1, 50)) for _ in range(n)] for _ in range(m)]
        x0 = [Q(rng.randint(-200, 200), rng.randint(1, 50)) for _ in range(n)]
        b = [sum((a * x for a, x in zip(row, x0)), Q(0)) + Q(rng.randint(1, 100), 7) for row in A]
        out.append((A, b))
    return out


def _time(fn, items):
    t = time.perf_counter()
    res = [fn(*it) for it in items]
    return (time.perf_counter() - t) / len(items), res


def _sympy_lpmax(A, b):
    import sympy
    from sympy.solvers.simplex import lpmax

    n = len(A[0])
    xs = sympy.symbols(f"x0:{n}")
    t = sympy.Symbol("t")
    cons = [sum(sympy.Rational(int(a.numerator), int(a.denominator)) * x for a, x in zip(row, xs)) + t
            <= sympy.Rational(int(c.numerator), int(c.denominator)) for row, c in zip(A, b)]
    cons.append(t <= 1)
    val, _ = lpmax(t, cons)
    return Fraction(int(val.p), int(val.q))


def _cdd_gmp(A, b):
    import cdd.gmp

    n = len(A[0])
    rows = [[to_fraction(c)] + [-to_fraction(a) for a in row] + [Fraction(-1)] for row, c in zip(A, b)]
    rows.append([Fraction(1)] + [Fraction(0)] * n + [Fraction(-1)])
    rows.append([Fraction(0)] + [Fraction(0)] * n + [Fraction(1)])  # objective: max t
    lp = cdd.gmp.linprog_from_array(rows, obj_type=cdd.LPObjType.MAX)
    cdd.gmp.linprog_solve(lp)
    return Fraction(lp.obj_value)


def _highs(A, b):
    from symrel.exact.highs_proposal import highs_proposal as _float_proposal

    res = _float_proposal(A, b, [], [], [True] * len(A))
    return -res.fun


def run(seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for n, m, count in ((8, 40, 20), (2, 30, 40)):
        lps = _systems(rng, n, m, count)
        row = {"benchmark": f"exact LP, {n} variables x {m} rows ({count} LPs)", "ground_types": ground_types()}
        t_exact, res_exact = _time(lambda A, b: exact_simplex(A, b)["t"], lps)
        t_float_start, res_fs = _time(lambda A, b: exact_simplex(A, b, float_start=True)["t"], lps)
        t_feas, _ = _time(lambda A, b: feasibility(A, b), lps)
        assert res_exact == res_fs
        row.update({"symrel_exact_simplex_ms": 1e3 * t_exact, "symrel_float_start_ms": 1e3 * t_float_start,
                    "symrel_feasibility_auto_ms": 1e3 * t_feas})
        try:
            import cdd.gmp  # noqa: F401

            t_cdd, res_cdd = _time(_cdd_gmp, lps)
            assert [to_fraction(v) for v in res_exact] == res_cdd, "cdd.gmp and symrel disagree"
            row["cdd_gmp_ms"] = 1e3 * t_cdd
            row["symrel_over_cdd"] = t_float_start / t_cdd
        except ImportError:
            row["cdd_gmp_ms"] = None
        few = lps[:3]
        t_sym, res_sym = _time(_sympy_lpmax, few)
        assert [to_fraction(v) for v in res_exact[:3]] == res_sym, "sympy and symrel disagree"
        row["sympy_lpmax_ms"] = 1e3 * t_sym
        row["sympy_over_symrel"] = t_sym / t_float_start
        try:
            t_h, _ = _time(_highs, lps)
            row["highs_float_ms"] = 1e3 * t_h
        except Exception:  # noqa: BLE001 - scipy missing
            row["highs_float_ms"] = None
        rows.append(row)
    return rows


if __name__ == "__main__":  # pragma: no cover
    for r in run():
        print(r)
