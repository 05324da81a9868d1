import random

import pytest

from symrel.compiler import compile_maxout, compile_model, validate
from symrel.constructions.random import random_maxout_net
from symrel.errors import InputError
from symrel.exact import Q
from symrel.models import CPWL1D, Box, DenseLayer, Polytope, ReLUNet


def _points(box, n, seed):
    pts = Box([[lo, hi] for lo, hi in box.bounds]).sample(n, seed=seed, denominator=97)
    return pts + list(box.vertices())[:16]


@pytest.mark.parametrize("seed", range(12))
def test_random_nets_compile_and_agree_on_the_box(seed):
    rng = random.Random(seed)
    d, depth = rng.randint(1, 4), rng.randint(1, 3)
    widths = [rng.randint(1, 5) for _ in range(depth)]
    net = random_maxout_net(rng, d, widths, rank=(1, 4), max_num=8, max_den=4)
    box = Box.cube(d)
    comp = compile_maxout(net, box)
    assert validate(comp) == []
    pts = _points(box, 12, seed)
    assert comp.transformer.evaluate_points(pts) == net.evaluate_points(pts)
    assert len(comp.transformer.blocks) == 3 * depth
    assert comp.transformer.tokens == max(max(l.ranks) for l in net.layers) + 1


def random_maxout(seed, d, depth, width, rank):
    return random_maxout_net(random.Random(seed), d, [width] * depth, rank=rank, max_num=8, max_den=4)


def test_gating_bound_is_the_exact_largest_piece():
    net = random_maxout(3, 2, 2, 3, 3)
    comp = compile_maxout(net, Box.cube(2))
    # layer 1: max |a.x + c| over the box, attained at a vertex
    want = max(abs(v) for u in net.layers[0].units for x in Box.cube(2).vertices() for v in u.pieces.evaluate(x))
    assert comp.gates[0].bound == want
    comp2 = compile_maxout(net, Box.cube(2), margin="1/2")
    assert [g.bound - g2.bound for g, g2 in zip(comp2.gates, comp.gates)] == [Q(1, 2)] * 2


def test_relu_and_cpwl_compile_through_maxout():
    relu = ReLUNet(2, [DenseLayer([[1, -1], [2, 1]], [0, "-1/2"]), DenseLayer([[1, -3]], [1], "none")])
    box = Box([[-1, 2], ["-1/2", 1]])
    comp = compile_model(relu, box)
    pts = _points(box, 10, 0)
    assert comp.transformer.evaluate_points(pts) == relu.evaluate_points(pts)
    f = CPWL1D([0, 1, 2, 3], [0, 2, -1, 1])
    comp = compile_model(f, Box([[-2, 4]]))
    pts = _points(Box([[-2, 4]]), 20, 1)
    assert comp.transformer.evaluate_points(pts) == f.evaluate_points(pts)


def test_too_small_bound_breaks_the_construction():
    net = random_maxout(5, 1, 1, 2, 3)
    comp = compile_maxout(net, Box.cube(1), bounds=[0])
    pts = _points(Box.cube(1), 30, 2)
    assert comp.transformer.evaluate_points(pts) != net.evaluate_points(pts)


def test_sizes_compare_transformer_and_net():
    net = random_maxout(2, 3, 2, 4, 3)
    s = compile_maxout(net, Box.cube(3)).sizes()
    assert s["transformer"]["blocks"] == 6 and s["maxout"]["depth"] == 2
    assert s["transformer"]["tokens"] == 4 and s["transformer"]["width"] == 4 + 4 + 1 + 8


def test_bad_margin_and_unbounded_polytope_are_refused():
    net = random_maxout(2, 2, 1, 2, 2)
    with pytest.raises(InputError, match="margin"):
        compile_maxout(net, Box.cube(2), margin=-1)
    with pytest.raises(InputError, match="unbounded"):
        compile_maxout(net, Polytope([[1, 0], [0, 1], [-1, 0]], [1, 1, 1]))


def test_polytope_domain_uses_its_exact_bounding_box():
    from symrel.compiler import domain_box
    from symrel.models import polytope_box

    P = Polytope([[1, 1], [-1, 0], [0, -1], [1, -2]], [1, 0, 0, "1/2"])
    assert domain_box(P) == [(Q(0), Q(5, 6)), (Q(0), Q(1))]
    _, _, vertices = polytope_box(P)
    net = random_maxout(4, 2, 2, 3, 3)
    comp = compile_maxout(net, P)
    pts = [v for v in vertices] + [[Q(1, 3), Q(1, 3)]]
    assert comp.transformer.evaluate_points(pts) == net.evaluate_points(pts)


def test_a_wrong_model_kind_is_refused_naming_the_expected_kinds():
    relu = ReLUNet(1, [DenseLayer([[1]], [0]), DenseLayer([[1]], [0], "none")])
    with pytest.raises(InputError, match="compile_maxout takes a maxout net, got relu.*compile_model takes maxout, relu"):
        compile_maxout(relu, Box.cube(1))
    with pytest.raises(InputError, match="expected a cpwl, cpwl1d, maxout or relu model"):
        compile_model(Box.cube(1), Box.cube(1))
    assert compile_model(relu, Box.cube(1)).transformer([Q(1, 2)]) == relu([Q(1, 2)])
