"""The splits' betas proposed by float LPs (symrel.vnnlib.betas)."""

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

from symrel.vnnlib import betas, floatbounds  # noqa: E402


def _cases():
    rng = np.random.default_rng(7)
    for m in (1, 3, 8):
        for _ in range(5):
            yield rng.normal(size=5), rng.normal(size=(m, 5)), rng.normal(size=m), -np.ones(5), np.ones(5)
    # x_0 >= 2 on the unit box: infeasible
    yield np.ones(2), np.array([[-1.0, 0.0]]), np.array([-2.0]), np.zeros(2), np.ones(2)


@pytest.mark.parametrize("case", list(_cases()))
def test_lp_binding_and_linprog_agree(case, monkeypatch):
    """The direct HiGHS call and scipy's linprog (the fallback) give the same status, value
    and duals; a dual is <= 0 and the duals certify the value (weak duality: for y <= 0,
    min over the box of (c - G^T y) . x + h . y is a lower bound, here attained)."""
    if betas._highs_binding() is None:
        pytest.skip("this scipy has no HiGHS binding to call directly")
    c, G, h, lo, hi = case
    fast = betas._dense_lp(c, G, h, lo, hi)
    monkeypatch.setattr(betas, "_highs_binding", lambda: None)
    slow = betas._dense_lp(c, G, h, lo, hi)
    assert fast[0] == slow[0] and fast[0] in ("optimal", "infeasible")
    if fast[0] == "optimal":
        assert abs(fast[1] - slow[1]) <= 1e-9 * (1 + abs(slow[1]))
        y = fast[2]
        assert (y <= 1e-12).all()
        r = c - G.T @ y
        dual = float(np.minimum(r * lo, r * hi).sum() + h @ y)
        assert abs(dual - fast[1]) <= 1e-9 * (1 + abs(fast[1]))


@pytest.mark.parametrize("binding", [True, False])
def test_network_multipliers_reach_the_lp_and_refute_contradicting_splits(binding, monkeypatch):
    """With scipy's HiGHS binding and with linprog (its equality rows too): |x| on [-1, 2] with x >= 0 split: beta = 1 lifts the bound to 0, the minimum there.
    z_1 = x <= 0 and z_2 = x - 1 >= 0 contradict each other on [0, 2]: the betas lift the
    bound of -h_1 - h_2 (at most 0 everywhere) above 10."""
    from symrel.models import DenseLayer, ReLUNet
    from symrel.vnnlib.symbolic import integer_net

    if not binding:
        monkeypatch.setattr(betas, "_highs_binding", lambda: None)
    fb = floatbounds.FloatBounds(integer_net(ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]),
                                                         DenseLayer([[1, 1]], [0], "none")])))
    run = fb.run([-1.0], [2.0], {(0, 0): 1})
    bt, _ = betas.network_multipliers(fb, run, [(0, 0, 1)], [1.0], [0.0], 0.0)
    assert fb.lower(run, [1.0], [0.0])[0] < 0 <= fb.lower(run, [1.0], [0.0], [(0, 0, 1, bt[0])])[0] + 1e-12
    fb = floatbounds.FloatBounds(integer_net(ReLUNet(1, [DenseLayer([[1], [1]], [0, -1]),
                                                         DenseLayer([[-1, -1]], [0], "none")])))
    splits = [(0, 0, 0), (0, 1, 1)]
    run = fb.run([0.0], [2.0], {(0, 0): 0, (0, 1): 1})
    bt, _ = betas.network_multipliers(fb, run, splits, [1.0], [0.0], 10.0)
    assert fb.lower(run, [1.0], [0.0], [(k, i, ph, b) for (k, i, ph), b in zip(splits, bt)])[0] > 10


def test_network_slopes_beat_every_slope_on_a_grid():
    """The triangle LP's slopes: on random nets of two hidden layers, the backward bound with
    the lower slopes derived from its duals is at least the bound with any choice of slopes
    from a grid (each is a feasible point of the LP's dual, whose optimum the LP reaches), and
    at least the rule's."""
    import itertools
    import random

    from symrel.models import DenseLayer, ReLUNet
    from symrel.vnnlib.symbolic import integer_net

    rng = random.Random(7)
    for _ in range(5):
        layers = [DenseLayer([[rng.randint(-3, 3) for _ in range(2)] for _ in range(3)], [rng.randint(-2, 2) for _ in range(3)]),
                  DenseLayer([[rng.randint(-3, 3) for _ in range(3)] for _ in range(2)], [rng.randint(-2, 2) for _ in range(2)]),
                  DenseLayer([[rng.randint(-3, 3) for _ in range(2)]], [0], "none")]
        fb = floatbounds.FloatBounds(integer_net(ReLUNet(2, layers)))
        run = fb.run([-1.0, -1.0], [1.0, 1.0], {})
        unstable = [(k, i) for k, (l, u) in enumerate(run.pre) for i in range(len(l)) if l[i] < 0.0 < u[i]]
        _, lam = betas.network_multipliers(fb, run, [], [1.0], [0.0], 0.0)
        chosen = {}
        got = fb.lower(run, [1.0], [0.0], lam=lam, alphas=chosen)[0]
        assert all(0.0 <= a <= 1.0 for a in chosen.values()) and set(chosen) <= set(unstable)
        assert got >= fb.lower(run, [1.0], [0.0])[0] - 1e-9
        for grid in itertools.product([0.0, 0.25, 0.5, 0.75, 1.0], repeat=len(unstable)):
            assert got >= fb.lower(run, [1.0], [0.0], alphas=dict(zip(unstable, grid)))[0] - 1e-9


def test_one_split_beta_is_the_lp_optimum():
    """The breakpoint walk for one split row reaches the LP's value (its dual bound equals the
    LP's optimum), and says None exactly where the LP is infeasible."""
    rng = np.random.default_rng(11)
    feasible = infeasible = 0
    for t in range(400):
        A, g = rng.normal(size=5), rng.normal(size=5)
        if t % 5 == 0:
            A[rng.integers(5)] = 0.0  # a breakpoint at beta = 0
        lo, hi = -rng.random(5), rng.random(5)
        h = float(rng.normal()) * 0.5
        beta = betas._one_row_beta(A, g, h, lo, hi)
        status, value, _ = betas._dense_lp(A, g[None, :], np.array([h]), lo, hi)
        if beta is None:
            assert status == "infeasible"
            infeasible += 1
            continue
        assert status == "optimal" and beta >= 0
        r = A + beta * g
        assert abs(float(np.minimum(r * lo, r * hi).sum()) - beta * h - value) <= 1e-9 * (1 + abs(value))
        feasible += 1
    assert feasible > 300 and infeasible > 0
