"""The float proposals of counterexamples (symrel.vnnlib.attack) and how the engine uses them:
restarts, each disjunct climbed on its own, the parent's best point as a start and as the
order of the search (symrel.vnnlib.worker, symrel.vnnlib.engine)."""

import pytest

from symrel.exact import rational as q
from symrel.models import DenseLayer, ReLUNet
from symrel.vnnlib import LinearAtom, VnnProperty
from symrel.vnnlib.attack import FloatNet, margin, propose, propose_with_margin

np = pytest.importorskip("numpy")  # the climbs (without numpy: sampling only)

# y = |x - 3/10| and -y: a peak of -|x - 3/10| at 3/10
PEAK = FloatNet([([[1.0], [-1.0]], [-0.3, 0.3], True), ([[-1.0, -1.0]], [0.0], False)])


def test_batch_margin_follows_the_disjunct_a_row_owns():
    from symrel.vnnlib.attack import _batch_margin

    net = FloatNet([([[1.0]], [0.0], False)])  # y = x
    low, high = [([0.0], [1.0], 0.0)], [([0.0], [-1.0], -5.0)]  # y <= 0, y >= 5
    X = np.array([[1.0], [1.0], [1.0]])
    m, g = _batch_margin(net, [low, high], X, np.array([-1, 0, 1]))
    assert list(m) == [-1.0, -1.0, -4.0]  # the whole margin is the better of the two
    assert list(g[:, 0]) == [-1.0, -1.0, 1.0]  # each row climbs its own disjunct


def test_halved_steps_reach_a_narrow_peak_that_decaying_steps_miss():
    near = [([0.0], [-1.0], 1e-7)]  # -|x - 3/10| >= -1e-7
    x, m = propose_with_margin(PEAK, [near], [0.0], [1.0], seed=1, starts=1, steps=60, halving=True)
    assert m >= 0 and abs(x[0] - 0.3) <= 1e-7
    _, m = propose_with_margin(PEAK, [near], [0.0], [1.0], seed=1, starts=1, steps=12)
    assert m < 0


def test_a_hint_is_a_start():
    at = [([0.0], [-1.0], 0.0)]  # -|x - 3/10| >= 0: only x = 3/10
    assert propose(PEAK, [at], [0.0], [1.0], seed=1, starts=1, steps=0, hints=[[0.3]]) == [0.5]  # no room: the centre
    x = propose(PEAK, [at], [0.0], [1.0], seed=1, starts=2, steps=0, hints=[[0.3]])
    assert x == [0.3] and margin(PEAK, [at], x) >= 0


def test_each_disjunct_climbed_on_its_own_finds_the_one_that_can_be_met():
    # y0 = x, y1 = 1 - 4|x - 3/10| on [0, 1]: unsafe y0 >= 6/5 (never) or y1 >= 1 - 1e-6 (near 3/10).
    # From x >= 1/2 the whole margin is y0's (above y1's), and climbs it to x = 1
    net = FloatNet([([[1.0], [1.0], [-1.0]], [0.0, -0.3, 0.3], True),
                    ([[1.0, 0.0, 0.0], [0.0, -4.0, -4.0]], [0.0, 1.0], False)])
    far, near = [([0.0], [-1.0, 0.0], -1.2)], [([0.0], [0.0, -1.0], -(1 - 1e-6))]
    starts = [[0.9]]  # the centre and 0.9: the whole margin climbs y0 from both
    x, m = propose_with_margin(net, [far, near], [0.0], [1.0], seed=2, starts=2, steps=40, hints=starts,
                               halving=True)
    assert m < 0 and x == [1.0]
    x, m = propose_with_margin(net, [far, near], [0.0], [1.0], seed=2, starts=3, steps=40, hints=starts,
                               halving=True, by_disjunct=True)  # a third start climbs y1 alone
    assert m >= 0 and abs(x[0] - 0.3) <= 1e-6


def atom(x, y, rhs):
    return LinearAtom(tuple(q(v) for v in x), tuple(q(v) for v in y), q(rhs))


def box(lo, hi):
    conj = []
    for i in range(len(lo)):
        e = [0] * len(lo)
        e[i] = 1
        conj.append(atom(e, [0], hi[i]))
        conj.append(atom([-v for v in e], [0], str(-q(lo[i]))))
    return (tuple(conj),)


# |x0| + |x1| - 1
NET = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0]),
                  DenseLayer([[1, 1, 1, 1]], [-1], "none")])


def test_the_restarts_find_what_the_boxes_attacks_missed(monkeypatch):
    """With the attacks on the search's boxes silenced, a counterexample (``f >= 0.99`` near
    the box's corners) is found by the restarts on the root, and it is exact."""
    from symrel.vnnlib import engine, worker

    monkeypatch.setattr(worker, "attack", lambda *a, **k: (None, None))
    monkeypatch.setattr(engine, "RESTART_EVERY", 4)
    p = VnnProperty(2, 1, box(["-1", "-1"], ["1", "1"]), ((atom([0, 0], [-1], "-99/100"),),), "0" * 64, "inline")
    v = engine.decide(NET, p, timeout=60)
    assert v.status == "sat" and v.stats["restarts"] >= 1
    assert abs(v.witness_x[0]) + abs(v.witness_x[1]) - 1 == v.witness_y[0] >= q("99/100")


def test_the_part_holding_the_best_point_is_first():
    from symrel.vnnlib.node import InputSplit, ReluSplit
    from symrel.vnnlib.problem import prepare, region_box
    from symrel.vnnlib.worker import _side

    p = VnnProperty(2, 1, box(["-1", "-1"], ["1", "1"]), ((atom([0, 0], [-1], "-3"),),), "0" * 64, "inline")
    lo, hi, _ = region_box(p.input_region[0], 2, "input disjunct 0")
    problem = prepare(NET, p, [(lo, hi, ())])
    best = ((0.25, -0.5), -1.0)
    assert _side(problem, InputSplit(0), lo, hi, best) == 1  # x0 = 1/4 > 0, the middle
    assert _side(problem, InputSplit(1, q("-3/4")), lo, hi, best) == 1
    assert _side(problem, InputSplit(1), lo, hi, best) == 0
    assert _side(problem, ReluSplit(0, 1), lo, hi, best) == 0  # -x0 < 0: the neuron's phase 0
    assert _side(problem, ReluSplit(0, 3), lo, hi, best) == 1
    assert _side(problem, InputSplit(0), lo, hi, None) == 0
