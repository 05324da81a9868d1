"""symrel.vnnlib.output_bounds: the bounds are sound (against z3's exact range and the exact
range of one-input nets), an attained bound is the range itself, the budgets stop the search,
the trees are the same on any executor, and the certificates pass the trusted checker."""

import random
from fractions import Fraction

import pytest

from symrel.checking import check_certificate
from symrel.errors import InputError
from symrel.exact import Q
from symrel.fileformat.canonical import canonical_dumps
from symrel.fileformat.jsonio import loads
from symrel.models import DenseLayer, ReLUNet
from symrel.vnnlib import output_bounds
from symrel.vnnlib.output_bounds import certificate, rounded_down, search_bounds
from ..verification.cases import OVERRUN

ABS = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])   # |x|


def random_net(seed, n=2, widths=(5, 4), m=2):
    """A small ReLU net of quarter-integer weights and third-integer biases."""
    r = random.Random(seed)
    layers, k = [], n
    for w in widths:
        layers.append(DenseLayer([[Fraction(r.randint(-8, 8), 4) for _ in range(k)] for _ in range(w)],
                                 [Fraction(r.randint(-6, 6), 3) for _ in range(w)]))
        k = w
    layers.append(DenseLayer([[Fraction(r.randint(-8, 8), 4) for _ in range(k)] for _ in range(m)], [0] * m, "none"))
    return ReLUNet(n, layers)


def z3_range(net, lo, hi, j):
    """``(min, max)`` of output ``j`` over the box, exactly, by z3's optimisation over the reals."""
    z3 = pytest.importorskip("z3")
    out = []
    for minimise in (True, False):
        opt = z3.Optimize()
        xs = [z3.Real(f"x{i}") for i in range(net.input_dim)]
        for x, a, b in zip(xs, lo, hi):
            opt.add(x >= z3.RealVal(str(a)), x <= z3.RealVal(str(b)))
        h = xs
        for layer in net.layers:
            W = layer.affine.exact_W.to_list()
            b = [r[0] for r in layer.affine.exact_b.to_list()]
            z = [z3.Sum([z3.RealVal(str(w)) * v for w, v in zip(row, h)]) + z3.RealVal(str(c)) for row, c in zip(W, b)]
            h = [z3.If(v > 0, v, 0) for v in z] if layer.activation == "relu" else z
        y = z3.Real("y")
        opt.add(y == h[j])
        (opt.minimize if minimise else opt.maximize)(y)
        assert opt.check() == z3.sat
        value = opt.model()[y].as_fraction()
        out.append(Q(value.numerator, value.denominator))
    return out


def checked(net, lo, hi, found):
    return check_certificate(loads(canonical_dumps(certificate(net, lo, hi, found))))


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_the_bounds_of_small_nets_are_their_exact_range(seed):
    """Every bound of these nets is attained within the node budget, and is z3's exact minimum
    or maximum; the certificate is accepted."""
    net = random_net(seed)
    lo, hi = [Q(-1), Q(-1)], [Q(1), Q(3, 2)]
    found = search_bounds(net, lo, hi, nodes=600)
    assert found.limit is None and checked(net, lo, hi, found)["result"] == "checked"
    for b in found.objectives:
        least, greatest = z3_range(net, lo, hi, b.output)
        assert b.attained and b.bound == b.best == (least if b.side == "lower" else greatest)
        assert net.evaluate_exact(list(b.point))[b.output] == b.bound
        assert all(a <= v <= c for v, a, c in zip(b.point, lo, hi))


@pytest.mark.parametrize("seed", [100, 104, 106])
def test_bounds_not_attained_are_still_sound(seed):
    """A deeper net of three inputs on a small budget: each bound is on the right side of z3's
    range, and the best point found is on the other side; attained ones are the range."""
    net = random_net(seed, n=3, widths=(8, 6, 5))
    lo, hi = [Q(-1), Q(-1), Q(0)], [Q(1), Q(3, 2), Q(1, 3)]
    found = search_bounds(net, lo, hi, nodes=300)
    assert checked(net, lo, hi, found)["result"] == "checked"
    for b in found.objectives:
        least, greatest = z3_range(net, lo, hi, b.output)
        if b.side == "lower":
            assert b.bound <= least <= b.best
        else:
            assert b.bound >= greatest >= b.best
        assert b.attained == (b.bound == b.best)


def test_one_input_nets_reach_their_breakpoints():
    """One input, one hidden layer: the range is taken at the ends or at a breakpoint ``-b/w``
    (a third, a seventh: no halving reaches them), and both bounds are attained there."""
    net = ReLUNet(1, [DenseLayer([[1], [-1], [2], [-3]], ["-1/3", "1/3", "-2/7", "1/5"]),
                      DenseLayer([[1, 1, -1, "1/2"], [-1, 2, 1, -1]], [0, "1/9"], "none")])
    lo, hi = Q(-1), Q(1)
    points = [lo, hi] + [Q(1, 3), Q(1, 3), Q(1, 7), Q(1, 15)]
    found = search_bounds(net, [lo], [hi], nodes=400)
    for b in found.objectives:
        values = [net.evaluate_exact([x])[b.output] for x in points]
        assert b.attained and b.bound == (min(values) if b.side == "lower" else max(values))


def test_without_a_budget_the_bounds_are_the_root_boxs():
    net = random_net(3, n=3, widths=(8, 6, 5))
    lo, hi = [Q(-1), Q(-1), Q(0)], [Q(1), Q(3, 2), Q(1, 3)]
    found = search_bounds(net, lo, hi)
    assert found.limit == "no branching" and found.stats["nodes"] == 4 == found.stats["leaves"]
    assert all(b.leaves == 1 and b.tree[0].keys() == {"leaf"} for b in found.objectives)
    deeper = search_bounds(net, lo, hi, nodes=200)
    for root, b in zip(found.objectives, deeper.objectives):   # branching only tightens
        assert (root.bound <= b.bound) if b.side == "lower" else (root.bound >= b.bound)
    assert checked(net, lo, hi, found)["result"] == "checked"


def test_a_node_budget_is_kept_and_named():
    net = random_net(104, n=3, widths=(8, 6, 5))
    lo, hi = [Q(-1), Q(-1), Q(0)], [Q(1), Q(3, 2), Q(1, 3)]
    found = search_bounds(net, lo, hi, outputs=[1], nodes=41)
    assert found.limit == "nodes" and found.stats["nodes"] <= 41
    assert sum(b.nodes for b in found.objectives) == found.stats["nodes"]
    assert [(b.output, b.side) for b in found.objectives] == [(1, "lower"), (1, "upper")]


def test_a_time_budget_stops_the_search_by_its_own_clock():
    """A net whose bounds are not attained in a second: the search stops at the time, and its own
    clock says it stopped within the budget and one round. (How many rounds fit in the second
    depends on the machine's load: on a loaded one, none may; the bounds are then the root's,
    checked all the same.)"""
    net = random_net(7, n=5, widths=(24, 24, 24), m=3)
    lo, hi = [Q(-1)] * 5, [Q(1)] * 5
    found = search_bounds(net, lo, hi, timeout=1.0)
    assert found.limit == "time"
    assert found.stats["seconds"] <= 1.0 + OVERRUN
    assert checked(net, lo, hi, found)["result"] == "checked"


def test_the_trees_do_not_depend_on_the_executor():
    from symrel.parallel import WarmingProcessPool

    net = random_net(106, n=3, widths=(8, 6, 5))
    lo, hi = [Q(-1), Q(-1), Q(0)], [Q(1), Q(3, 2), Q(1, 3)]
    serial = search_bounds(net, lo, hi, nodes=120)
    pool = WarmingProcessPool(2, warmup=0)
    try:
        pooled = search_bounds(net, lo, hi, nodes=120, executor=pool)
    finally:
        pool.shutdown()
    assert canonical_dumps(certificate(net, lo, hi, serial)) == canonical_dumps(certificate(net, lo, hi, pooled))


def test_without_numpy_the_exact_bounds_choose_the_splits(monkeypatch):
    """The core install: no float bounds, no LP proposals; the halvings follow the exact form."""
    monkeypatch.setattr(output_bounds, "_np", None)
    monkeypatch.setattr(output_bounds, "network_multipliers", None)
    found = search_bounds(ABS, [Q(-1)], [Q(3, 2)], nodes=40)
    assert [(b.side, b.bound, b.attained) for b in found.objectives] == [("lower", 0, True), ("upper", Q(3, 2), True)]
    assert checked(ABS, [Q(-1)], [Q(3, 2)], found)["result"] == "checked"


def test_bad_regions_and_outputs_are_refused():
    for lo, hi, words in (([Q(0), Q(0)], [Q(1), Q(1)], "box of 1 inputs"), ([Q(1)], [Q(0)], "lower <= upper")):
        with pytest.raises(InputError, match=words):
            search_bounds(ABS, lo, hi)
    for outputs in ([1], [0, 0], []):
        with pytest.raises(InputError, match="distinct outputs"):
            search_bounds(ABS, [Q(0)], [Q(1)], outputs)


def test_a_point_box_is_its_own_bound():
    found = search_bounds(ABS, [Q(-2, 3)], [Q(-2, 3)])
    assert all(b.attained and b.bound == Q(2, 3) for b in found.objectives) and found.limit is None


def test_long_bounds_are_rounded_outward():
    q = Q(10 ** 40 + 7, 3 * 10 ** 39 + 1)
    down = rounded_down(q)
    assert down <= q and q - down < Q(1, 10 ** 18) and len(str(down)) < len(str(q))
    assert rounded_down(-q) <= -q
