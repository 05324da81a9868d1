"""Forms as int64 limbs (symrel.vnnlib.limb_forms) against the Python rows of symbolic, and the
limb forward pass of propagate against the Python one on nets of many inputs."""

import random

import pytest

np = pytest.importorskip("numpy")
from symrel.exact import Q  # noqa: E402
from symrel.models import DenseLayer, ReLUNet  # noqa: E402
from symrel.vnnlib import limb_forms, limbs, symbolic  # noqa: E402


def _rows(rng, m, n, bits):
    return [[rng.randint(-(1 << bits), 1 << bits) for _ in range(n)] for _ in range(m)]


def _box(rng, n):
    lo = [Q(rng.randint(-9, 9), rng.choice([7, 10, 1 << 5])) for _ in range(n)]
    return symbolic.box_scale(lo, [v + Q(rng.randint(0, 9), rng.choice([3, 10])) for v in lo])


def test_pad_keeps_the_integers_and_the_normal_form():
    rng = random.Random(1)
    for _ in range(100):
        A = _rows(rng, 2, 3, rng.randint(0, 120))
        X = limbs.from_ints(A)
        for L in range(X.shape[0], X.shape[0] + 3):
            Y = limb_forms.pad(X, L)
            assert Y.shape[0] == L and limbs.to_ints(Y) == A
            assert (Y[:-1] >= 0).all() and (Y[:-1] < (1 << limbs.LIMB_BITS)).all()


def test_extremes_and_rounding_are_the_rows_of_symbolic():
    rng = random.Random(2)
    for _ in range(40):
        n, m = rng.randint(1, 40), rng.randint(1, 5)
        box = _box(rng, n)
        lb = limb_forms.limb_box(box)
        A, c = _rows(rng, m, n, rng.randint(0, 140)), [rng.randint(-(1 << 90), 1 << 90) for _ in range(m)]
        X = limbs.from_ints(A)
        rows = [r + [v] for r, v in zip(A, c)]
        assert limb_forms.extremes(X, c, lb, True) == [symbolic._row_min(r, box) for r in rows]
        assert limb_forms.extremes(X, c, lb, False) == [symbolic._row_max(r, box) for r in rows]
        den = 1 << rng.randint(0, 120)
        for upper in (False, True):
            R, rc = limb_forms.round_forms(X, c, den, lb, upper)
            assert [r + [v] for r, v in zip(limbs.to_ints(R), rc)] == \
                [symbolic._round_row(r, box, den, upper) for r in rows]


def _net(rng, widths, dens):
    layers = []
    for k, (a, b) in enumerate(zip(widths, widths[1:])):
        W = [[Q(rng.randint(-2 ** 20, 2 ** 20), rng.choice(dens)) for _ in range(a)] for _ in range(b)]
        layers.append(DenseLayer(W, [Q(rng.randint(-2 ** 16, 2 ** 16), rng.choice(dens)) for _ in range(b)],
                                 "relu" if k < len(widths) - 2 else "none"))
    return ReLUNet(widths[0], layers)


def test_the_limb_forward_pass_is_the_python_one(monkeypatch):
    """float32-like denominators (up to 2^45) on 32 and 40 inputs, with and without splits, each
    twice (the second from the passes kept): the same forms, relaxations and states."""
    rng = random.Random(3)
    unstable = 0
    for trial in range(4):
        n = rng.choice([32, 40])
        net = symbolic.integer_net(_net(rng, [n, 12, 12, 12, 3], [2 ** 20, 2 ** 30, 2 ** 45]))
        lo = [Q(rng.randint(-8, 0), 10) for _ in range(n)]
        box = symbolic.box_scale(lo, [v + Q(rng.randint(1, 8), 7) for v in lo])
        for fixed in ({}, {(1, 2): 1, (0, 3): 0}, {(2, 0): 0}):
            symbolic._FORWARD.clear()
            for _ in range(2):
                fast = symbolic.propagate(net, box, fixed=fixed)
                with monkeypatch.context() as m:
                    m.setattr(symbolic, "LIMB_FORWARD_INPUTS", 10 ** 9)
                    plain = symbolic.propagate(net, box, fixed=fixed)
                assert (fast.L, fast.U, fast.den, fast.relaxed, fast.states) == \
                    (plain.L, plain.U, plain.den, plain.relaxed, plain.states)
                unstable += len(fast.relaxed)
    assert unstable > 0


def test_a_non_dyadic_net_takes_the_python_path():
    rng = random.Random(4)
    net = symbolic.integer_net(_net(rng, [32, 6, 2], [3, 7]))
    box = symbolic.box_scale([Q(0)] * 32, [Q(1)] * 32)
    assert symbolic._propagate_limbs(net, box, True, {}, None) is None
    assert symbolic.propagate(net, box).den > 0
