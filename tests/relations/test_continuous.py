import random

import pytest
import sympy
from mpmath import iv

from symrel.errors import InputError
from symrel.exact import Q
from symrel.relations.continuous import (
    PRECISION,
    cpwl_kernel_features,
    enclose,
    interval_bounds,
    interval_exp,
    interval_of,
    sampled_error,
    tradeoff_markdown,
    tradeoff_rows,
)

x, y = sympy.symbols("x y")
GAUSS = sympy.exp(-(x - y) ** 2)
MIN = sympy.Min(x, y)


def taylor_exp_bounds(a: Q, terms: int = 40, halvings: int = 3) -> tuple[Q, Q]:
    """Exact rational bounds of exp(a), |a| <= 4: exp(a) = exp(a / 2^s)^(2^s) and
    the Taylor remainder of exp(u), |u| <= 1/2, is at most 2 |u|^(m+1) / (m+1)!."""
    u = a / 2**halvings
    term, total = Q(1), Q(1)
    for k in range(1, terms + 1):
        term = term * u / k
        total += term
    remainder = 2 * abs(term * u) / (terms + 1)
    lo, hi = total - remainder, total + remainder
    assert lo > 0
    return lo ** (2**halvings), hi ** (2**halvings)


@pytest.mark.parametrize("a", ["0", "1", "-1", "1/3", "-7/3", "4", "-4", "1/1024", "-3/7"])
def test_exp_enclosure_contains_rational_taylor_bounds(a):
    q = Q(*map(int, (a.split("/") + ["1"])[:2]))
    old = iv.prec
    iv.prec = PRECISION
    try:
        lo, hi = interval_bounds(interval_exp(interval_of(q)))
    finally:
        iv.prec = old
    t_lo, t_hi = taylor_exp_bounds(q)
    assert lo <= t_lo <= t_hi <= hi


def test_exp_enclosure_of_a_wide_interval():
    old = iv.prec
    iv.prec = PRECISION
    try:
        lo, hi = interval_bounds(interval_exp(iv.mpf([-1, 2])))
    finally:
        iv.prec = old
    assert lo <= taylor_exp_bounds(Q(-1))[0] and taylor_exp_bounds(Q(2))[1] <= hi


def test_enclosure_of_even_powers_and_min():
    lo, hi = interval_bounds(enclose((x - y) ** 2, {x: iv.mpf([0, 1]), y: iv.mpf([0, 1])}))
    assert (lo, hi) == (Q(0), Q(1))
    lo, hi = interval_bounds(enclose(MIN, {x: iv.mpf([0, 1]), y: iv.mpf([2, 3])}))
    assert (lo, hi) == (Q(0), Q(1))


def test_unsupported_kernels_are_refused():
    with pytest.raises(InputError):
        cpwl_kernel_features(sympy.sin(x * y), (x, y), grid=2)
    with pytest.raises(InputError):
        cpwl_kernel_features(sympy.log(1 + x * y), (x, y), grid=2)
    with pytest.raises(InputError):
        cpwl_kernel_features(sympy.Float(0.5) * x, (x, y), grid=2)
    with pytest.raises(InputError):
        cpwl_kernel_features(GAUSS, (x, y), grid=0)


@pytest.mark.parametrize("kernel", [GAUSS, MIN, x * y + sympy.Rational(1, 3), sympy.exp(x - 2 * y)])
def test_nets_are_the_bilinear_interpolant(kernel):
    fit = cpwl_kernel_features(kernel, (x, y), box=((0, 1), ("-1/2", 1)), grid=4)
    # at the nodes the inner product is the rounded kernel value, exactly
    for i, xi in enumerate(fit.x_nodes):
        for j, yj in enumerate(fit.y_nodes):
            assert fit.features.value([xi], [yj]) == fit.values[i][j]
    rng = random.Random(1)
    (a, b), (c, d) = fit.box
    for _ in range(40):
        px = a + (b - a) * Q(rng.randrange(1001), 1000)
        py = c + (d - c) * Q(rng.randrange(1001), 1000)
        assert fit.features.value([px], [py]) == fit.approximant(px, py)
    assert fit.neurons <= 8 and fit.dimension == 5  # kinks without a slope change are dropped


@pytest.mark.parametrize("kernel, grid", [(GAUSS, 4), (GAUSS, 16), (MIN, 4), (MIN, 16)])
def test_certified_error_is_never_below_the_sampled_error(kernel, grid):
    fit = cpwl_kernel_features(kernel, (x, y), grid=grid)
    observed = sampled_error(fit, samples=10_000, seed=grid)
    assert observed <= float(fit.certified_error.numerator) / float(fit.certified_error.denominator)
    assert observed > 0


def test_refinement_quarters_smooth_and_halves_lipschitz_errors():
    gauss = tradeoff_rows(GAUSS, (x, y), grids=(2, 4, 8, 16))
    assert all(r["second_order"] for r in gauss)
    assert all(3.5 <= r["ratio"] <= 4.5 for r in gauss[1:])
    mins = tradeoff_rows(MIN, (x, y), grids=(2, 4, 8, 16))
    assert not any(r["second_order"] for r in mins)
    assert all(1.8 <= r["ratio"] <= 2.2 for r in mins[1:])
    assert [r["neurons"] for r in mins] == [4, 8, 16, 32]
    table = tradeoff_markdown(gauss, "gauss")
    assert table.count("\n|") == 5 + 1


def test_plot_is_optional(tmp_path):
    pytest.importorskip("matplotlib")
    from symrel.relations.continuous import plot_tradeoff

    plot_tradeoff({"min": tradeoff_rows(MIN, (x, y), grids=(2, 4))}, str(tmp_path / "p.png"))
    assert (tmp_path / "p.png").stat().st_size > 0
