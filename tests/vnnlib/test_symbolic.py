"""Certified bounds (symrel.vnnlib.symbolic): the limb path gives the integers of the Python path."""

import random

from symrel.exact import Q, ceil, floor
from symrel.models import DenseLayer, ReLUNet
from symrel.vnnlib import symbolic


def _net(rng, widths, den):
    layers = []
    for k, (a, b) in enumerate(zip(widths, widths[1:])):
        W = [[Q(rng.randint(-64, 64), den) for _ in range(a)] for _ in range(b)]
        layers.append(DenseLayer(W, [Q(rng.randint(-16, 16), den) for _ in range(b)],
                                 "relu" if k < len(widths) - 2 else "none"))
    return ReLUNet(widths[0], layers)


def test_pair_of_backward_bounds_agrees_with_layer_bounds():
    rng = random.Random(7)
    checked = relaxed = 0
    for den in (64, 48):  # 48: not a power of two, the Python path throughout
        for _ in range(3):
            net = symbolic.integer_net(_net(rng, [3, 6, 6, 6, 2], den))
            lo = [Q(rng.randint(-8, 0), 8) for _ in range(3)]
            box = symbolic.box_scale(lo, [v + Q(rng.randint(1, 8), 8) for v in lo])
            r = symbolic.propagate(net, box)
            relaxed += len(r.relaxed)
            for li in (1, 2):
                only = [i for i in range(6) if i % 2 == li % 2]
                want = (symbolic.layer_bounds(net, r.states[:li], li, box, False, only),
                        symbolic.layer_bounds(net, r.states[:li], li, box, True, only))
                assert symbolic.layer_bounds_pair(net, r.states[:li], li, box, only) == want
                assert all(a <= b for a, b in zip(*want))
                checked += 1
    assert checked == 12 and relaxed > 0  # unstable neurons: the intercepts' path is taken


def test_propagate_is_the_same_without_numpy(monkeypatch):
    rng = random.Random(11)
    for den in (64, 48):
        net = symbolic.integer_net(_net(rng, [3, 6, 6, 6, 2], den))
        lo = [Q(rng.randint(-8, 0), 8) for _ in range(3)]
        box = symbolic.box_scale(lo, [v + Q(rng.randint(1, 8), 8) for v in lo])
        fast = symbolic.propagate(net, box, fixed={(1, 2): 1})
        with monkeypatch.context() as m:
            m.setattr(symbolic, "_np", None)
            plain = symbolic.propagate(net, box, fixed={(1, 2): 1})
        assert (fast.L, fast.U, fast.den, fast.relaxed, fast.states) == \
            (plain.L, plain.U, plain.den, plain.relaxed, plain.states)


def test_pair_on_a_grid_rounds_outward():
    rng = random.Random(3)
    net = symbolic.integer_net(_net(rng, [3, 6, 6, 2], 64))
    box = symbolic.box_scale([Q(-1), Q(0), Q(-1, 2)], [Q(1), Q(1, 3), Q(1, 2)])
    r = symbolic.propagate(net, box)
    for g in (1, 3, 1 << 40):
        lows, highs = symbolic.layer_bounds_pair(net, r.states[:1], 1, box)
        glo, ghi = symbolic.layer_bounds_pair(net, r.states[:1], 1, box, grid=g)
        assert glo == [floor(v * g) for v in lows] and ghi == [ceil(v * g) for v in highs]
