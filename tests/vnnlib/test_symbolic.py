"""Certified bounds (symrel.vnnlib.symbolic): the limb path gives the integers of the Python path."""

import random

import pytest

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


def test_inactive_neurons_left_out_of_the_products_change_no_integer(monkeypatch):
    """The limb products leave out the neurons whose forms are 0 (inactive ones, and those a
    split sets to z <= 0): on nets biased so that many are, with splits of both phases, and on
    boxes that are a single point or thin in one input, propagate and the backward pairs give
    the integers of the Python path; where every neuron of a layer is inactive too."""
    rng = random.Random(5)
    seen = all_off = 0
    for trial in range(12):
        net = _net(rng, [3, 8, 8, 8, 2], 64)
        if trial % 3 == 0:  # a layer every neuron of which is off: its forms are all 0
            net = ReLUNet(3, [net.layers[0], DenseLayer([[0] * 8] * 8, [Q(-1)] * 8), *net.layers[2:]])
        inet = symbolic.integer_net(net)
        lo = [Q(rng.randint(-8, 0), 8) for _ in range(3)]
        hi = [v + Q(rng.randint(1, 8), 8) for v in lo]
        if trial % 4 == 1:
            hi = list(lo)  # a single point
        elif trial % 4 == 2:
            hi[0] = lo[0]  # one side empty
        box = symbolic.box_scale(lo, hi)
        fixed = {(rng.randrange(3), rng.randrange(8)): ph for ph in (0, 1, 0)}
        fast = symbolic.propagate(inet, box, fixed=fixed)
        with monkeypatch.context() as m:
            m.setattr(symbolic, "_np", None)
            plain = symbolic.propagate(inet, box, fixed=fixed)
        assert (fast.L, fast.U, fast.den, fast.relaxed, fast.states) == \
            (plain.L, plain.U, plain.den, plain.relaxed, plain.states)
        off = sum(1 for layer in fast.states for st in layer if st == 0)
        seen += off
        all_off += any(all(st == 0 for st in layer) for layer in fast.states)
        for li in (2, 3):
            want = (symbolic.layer_bounds(inet, fast.states[:li], li, box, False),
                    symbolic.layer_bounds(inet, fast.states[:li], li, box, True))
            assert symbolic.layer_bounds_pair(inet, fast.states[:li], li, box) == want
    assert seen > 20 and all_off >= 3  # (a split may set one of those neurons active)


def test_pair_on_a_grid_rounds_outward():
    rng = random.Random(3)
    net = symbolic.integer_net(_net(rng, [3, 6, 6, 2], 64))
    box = symbolic.box_scale([Q(-1), Q(0), Q(-1, 2)], [Q(1), Q(1, 3), Q(1, 2)])
    r = symbolic.propagate(net, box)
    for g in (1, 3, 1 << 40):
        lows, highs = symbolic.layer_bounds_pair(net, r.states[:1], 1, box)
        glo, ghi = symbolic.layer_bounds_pair(net, r.states[:1], 1, box, grid=g)
        assert glo == [floor(v * g) for v in lows] and ghi == [ceil(v * g) for v in highs]


def test_pair_with_other_neurons_for_each_side():
    """``ups``: the upper bounds of other neurons than the lower ones, the same numbers as
    :func:`layer_bounds` of each side (and none of a side with no neuron)."""
    rng = random.Random(5)
    for den in (64, 48):
        net = symbolic.integer_net(_net(rng, [3, 6, 6, 6, 2], den))
        lo = [Q(rng.randint(-8, 0), 8) for _ in range(3)]
        box = symbolic.box_scale(lo, [v + Q(rng.randint(1, 8), 8) for v in lo])
        r = symbolic.propagate(net, box)
        for lows, ups in (([0, 3], [1, 3, 5]), ([], [2]), ([4], [])):
            got = symbolic.layer_bounds_pair(net, r.states[:2], 2, box, lows, ups=ups)
            assert got == (symbolic.layer_bounds(net, r.states[:2], 2, box, False, lows) if lows else [],
                           symbolic.layer_bounds(net, r.states[:2], 2, box, True, ups) if ups else [])


def test_hints_change_the_work_not_the_result(monkeypatch):
    """With the floats' bounds as hints, fewer rows are substituted and the bounds are the
    same; with wrong hints (every neuron called active, or inactive) they are the same too."""
    np = pytest.importorskip("numpy")
    from symrel.vnnlib.floatbounds import FloatBounds

    rows = []
    pair = symbolic.layer_bounds_pair

    def counted(net, states, li, box, only=None, prepared=None, grid=None, ups=None):
        rows.append(len(only) + len(only if ups is None else ups))
        return pair(net, states, li, box, only, prepared, grid, ups)

    monkeypatch.setattr(symbolic, "layer_bounds_pair", counted)
    rng = random.Random(13)
    plain_rows = hinted_rows = 0
    for _ in range(6):
        net = symbolic.integer_net(_net(rng, [3, 8, 8, 8, 2], 64))
        lo = [Q(rng.randint(-8, 0), 8) for _ in range(3)]
        hi = [v + Q(rng.randint(1, 8), 8) for v in lo]
        box = symbolic.box_scale(lo, hi)
        fixed = {(1, rng.randrange(8)): rng.randrange(2)}
        want = symbolic.propagate(net, box, fixed=fixed)
        plain_rows += sum(rows)
        rows.clear()
        pre = FloatBounds(net).run([float(v) for v in lo], [float(v) for v in hi], fixed).pre
        wrong = [[(np.ones(len(l)), np.ones(len(l))) for l, _ in pre],
                 [(-np.ones(len(l)), -np.ones(len(l))) for l, _ in pre]]
        for k, hints in enumerate([pre] + wrong):
            got = symbolic.propagate(net, box, fixed=fixed, hints=hints)
            assert (got.L, got.U, got.den, got.relaxed, got.states) == \
                (want.L, want.U, want.den, want.relaxed, want.states)
            if k == 0:
                hinted_rows += sum(rows)
            rows.clear()
    assert 0 < hinted_rows < plain_rows
