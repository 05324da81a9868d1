"""Slopes and multipliers by projected gradient ascent (symrel.vnnlib.slopes): valid bounds that
climb to the LP's (symrel.vnnlib.betas.network_multipliers), and their exact check."""

import random

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")
from symrel.exact import Q  # noqa: E402
from symrel.models import DenseLayer, ReLUNet  # noqa: E402
from symrel.vnnlib import slopes  # noqa: E402
from symrel.vnnlib.betas import network_multipliers  # noqa: E402
from symrel.vnnlib.floatbounds import FloatBounds  # noqa: E402
from symrel.vnnlib.symbolic import SLOPE_BITS, box_scale, integer_net, propagate  # noqa: E402


def _net(rng, widths):
    layers = []
    for k, (a, b) in enumerate(zip(widths, widths[1:])):
        layers.append(DenseLayer([[Q(rng.randint(-8, 8), 8) for _ in range(a)] for _ in range(b)],
                                 [Q(rng.randint(-4, 4), 8) for _ in range(b)], "relu" if k < len(widths) - 2 else "none"))
    return ReLUNet(widths[0], layers)


def test_the_gradient_is_the_bounds_derivative():
    rng = random.Random(1)
    inet = integer_net(_net(rng, [4, 8, 8, 2]))
    fb = FloatBounds(inet)
    run = fb.run([-1.0] * 4, [1.0] * 4, {})
    unst = slopes._unstable(run)
    assert sum(len(u) for u in unst) > 2
    AY, AX = np.array([[1.0, -1.0]]), np.zeros((1, 4))
    alpha = [np.full((1, len(u)), 0.3) for u in unst]
    splits, beta = (), np.zeros((1, 0))
    bound, nus, corner = slopes._bound(fb, run, AY, AX, alpha, splits, beta, keep=True)
    ga, _ = slopes._gradient(fb, run, alpha, splits, nus, corner)
    for k, u in enumerate(unst):
        for j in range(len(u)):
            step = [a.copy() for a in alpha]
            step[k][0, j] += 1e-6
            moved = slopes._bound(fb, run, AY, AX, step, splits, beta)[0]
            assert abs((moved[0] - bound[0]) / 1e-6 - ga[k][0, j]) < 1e-3


def test_climbs_to_the_lp_bound_and_never_above():
    rng = random.Random(2)
    for _ in range(5):
        inet = integer_net(_net(rng, [3, 10, 10, 2]))
        fb = FloatBounds(inet)
        run = fb.run([-1.0] * 3, [1.0] * 3, {})
        AY = np.array([[1.0, -1.0], [0.0, 1.0]])
        AX = np.zeros((2, 3))
        plain = [fb.lower(run, list(r), [0.0] * 3)[0] for r in AY]
        got = slopes.optimise(fb, run, (), AY, AX, iterations=60)
        for r in range(2):
            bt, lam = network_multipliers(fb, run, [], list(AY[r]), [0.0] * 3, 0.0)
            lp = fb.lower(run, list(AY[r]), [0.0] * 3, lam=lam, alphas={})[0]
            assert plain[r] - 1e-9 <= got.bounds[r] <= lp + 1e-6
            assert got.bounds[r] >= lp - 0.05 * (abs(lp) + 1)


def test_the_exact_bound_with_the_rounded_slopes_holds():
    """The exact backward form with the optimised slopes (rounded down to 2^-16) is a lower bound:
    below the outputs at sampled points of the box."""
    rng = random.Random(3)
    net = _net(rng, [2, 6, 6, 1])
    inet = integer_net(net)
    fb = FloatBounds(inet)
    run = fb.run([-1.0, -1.0], [1.0, 1.0], {})
    got = slopes.optimise(fb, run, (), np.array([[1.0]]), np.zeros((1, 2)))
    alphas = {key: min(1 << SLOPE_BITS, max(0, int(a * (1 << SLOPE_BITS)))) for key, a in got.alphas[0].items()}
    b = propagate(inet, box_scale([-1, -1], [1, 1]))
    m = b.form_min(b.backward([Q(1)], [Q(0), Q(0)], (), alphas))
    for _ in range(50):
        x = [Q(rng.randint(-64, 64), 64) for _ in range(2)]
        assert m <= net.evaluate_exact(x)[0]


def test_a_splits_first_multiplier_keeps_the_parents_bound():
    """A multiplier not given starts where the split changes nothing (slopes._first_betas): on
    a net of one ReLU layer (whose bounds a split does not move) each part of each split starts
    at least at the parent's bound with the parent's slopes, where a multiplier started at 0
    falls below it for some part."""
    rng = random.Random(4)
    fb = FloatBounds(integer_net(_net(rng, [4, 10, 3])))
    lo, hi = [-1.0] * 4, [1.0] * 4
    root = fb.run(lo, hi, {})
    AY, AX = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0]]), np.zeros((2, 4))
    parent = slopes.optimise(fb, root, (), AY, AX, 20)
    unstable = [int(i) for i in slopes._unstable(root)[0]]
    assert len(unstable) >= 3
    below_at_zero = 0
    for i in unstable:
        for ph in (0, 1):
            run = fb.run(lo, hi, {(0, i): ph})
            start = [(parent.alphas[r], {}) for r in range(2)]
            got = slopes.optimise(fb, run, ((0, i, ph),), AY, AX, 0, start)
            assert all(b >= p - 1e-9 for b, p in zip(got.bounds, parent.bounds))
            zero = slopes.optimise(fb, run, ((0, i, ph),), AY, AX, 0, [(parent.alphas[r], {(0, i): 0.0}) for r in range(2)])
            below_at_zero += any(b < p - 1e-9 for b, p in zip(zero.bounds, parent.bounds))
    assert below_at_zero


def test_start_slopes_as_arrays_are_the_start_as_dicts():
    """``optimise``'s ``start_slopes`` (per layer an array, NaN where the rule's) start where the
    same slopes given as dicts do: the same bounds, slopes and multipliers, and the split
    neuron's slope before its split taken from them alike; a row left NaN is the rule's."""
    rng = random.Random(6)
    fb = FloatBounds(integer_net(_net(rng, [4, 9, 9, 3])))
    lo, hi = [-1.0] * 4, [1.0] * 4
    root = fb.run(lo, hi, {})
    AY, AX = np.array([[1.0, -1.0, 0.0], [0.0, 1.0, -1.0], [1.0, 0.0, -1.0]]), np.zeros((3, 4))
    parent = slopes.optimise(fb, root, (), AY, AX, 8)
    i = int(slopes._unstable(root)[0][0])
    for ph in (0, 1):
        run = fb.run(lo, hi, {(0, i): ph})
        split = ((0, i, ph),)
        dicts = [(parent.alphas[0], {}), None, (parent.alphas[2], {})]
        arrays = [np.full((3, 9), np.nan) for _ in range(2)]
        for r in (0, 2):
            for (k, c), a in parent.alphas[r].items():
                arrays[k][r, c] = a
        a = slopes.optimise(fb, run, split, AY, AX, 6, dicts)
        b = slopes.optimise(fb, run, split, AY, AX, 6, start_slopes=arrays)
        assert a.bounds == b.bounds and a.betas == b.betas and a.alphas == b.alphas
        assert all(np.array_equal(x, y) for x, y in zip(a.slopes, b.slopes))
    with pytest.raises(AssertionError):  # the test can fail: another start, other numbers
        arrays[0][:] = 0.5
        c = slopes.optimise(fb, run, split, AY, AX, 6, start_slopes=arrays)
        assert c.bounds == a.bounds
