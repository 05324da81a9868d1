"""Exact ReLU interpolation of finitely many points (symrel.constructions.interpolate)."""

import random
from fractions import Fraction

import pytest

from symrel.errors import InputError
from symrel.exact import Q, dot, rational
from symrel.fileformat import from_json, to_json
from symrel.models import ReLUNet
from symrel.constructions.interpolate import interpolating_relu_net, separating_direction


def _random_rational(rng, size=7):
    return Q(rng.randint(-size, size), rng.randint(1, size))


def _distinct_points(rng, n, d, size=5):
    seen, out = set(), []
    while len(out) < n:
        x = tuple(_random_rational(rng, size) for _ in range(d))
        if x not in seen:
            seen.add(x)
            out.append(list(x))
    return out


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5, 6])
def test_random_points_interpolated_exactly(d):
    rng = random.Random(100 + d)
    for trial in range(4):
        n = rng.randint(1, 25)
        p = rng.randint(1, 4)
        xs = _distinct_points(rng, n, d)
        ys = [[_random_rational(rng, 9) for _ in range(p)] for _ in range(n)]
        net = interpolating_relu_net(xs, ys)
        assert isinstance(net, ReLUNet)
        assert (net.input_dim, net.output_dim) == (d, p)
        assert net.num_relus <= max(n - 1, 0)
        # exact equality at every point, one by one and as a batch
        for x, y in zip(xs, ys):
            assert net(x) == y
        assert net.evaluate_points(xs) == ys


def test_points_on_a_grid_need_a_mixed_direction():
    # on a grid no coordinate axis separates, the direction must mix coordinates
    xs = [[i, j] for i in range(4) for j in range(4)]
    ys = [[Q(i * j)] for i in range(4) for j in range(4)]
    c = separating_direction([[Q(v) for v in x] for x in xs])
    assert len({dot(c, [Q(v) for v in x]) for x in xs}) == len(xs)
    net = interpolating_relu_net(xs, ys)
    assert net.evaluate_points(xs) == ys


def test_adversarial_points_fall_back_to_the_root_bound():
    # points whose differences vanish on c = (1, M) for every small M:
    # (M, -1) . (1, M) = 0, so (0,0) and (M,-1) collide at that M
    xs = [[0, 0]] + [[M, -1] for M in range(0, 20)]
    xs = [[Q(a), Q(b)] for a, b in xs]
    # (0,0) vs (0,-1) differ in a coordinate whose weight is M^1; M = 0 fails there.
    c = separating_direction(xs)
    assert c[1] >= 20  # every small M collides somewhere
    assert len({dot(c, x) for x in xs}) == len(xs)
    ys = [[Q(k)] for k in range(len(xs))]
    net = interpolating_relu_net(xs, ys)
    assert net.evaluate_points(xs) == ys


def test_collinear_targets_use_no_kinks():
    xs = [[k] for k in range(10)]
    ys = [[2 * k + 1] for k in range(10)]
    net = interpolating_relu_net(xs, ys)
    assert net.num_relus == 1  # only the start of the line
    assert [net([k])[0] for k in range(10)] == [Q(2 * k + 1) for k in range(10)]


def test_constant_targets_give_an_affine_net():
    net = interpolating_relu_net([[0], [1], [5]], [[3], [3], [3]])
    assert net.num_relus == 0
    assert all(net([x]) == [Q(3)] for x in (0, 1, 5))


def test_single_point():
    net = interpolating_relu_net([["1/2", 3]], [["-2/3", 7]])
    assert net([Q(1, 2), 3]) == [Q(-2, 3), Q(7)]


def test_duplicates_with_equal_targets_are_fine():
    xs = [[0], [1], [0], ["2/2"]]
    ys = [[1], [2], [1], [2]]
    net = interpolating_relu_net(xs, ys)
    assert [net(x)[0] for x in xs] == [Q(1), Q(2), Q(1), Q(2)]


def test_duplicates_with_different_targets_name_the_index():
    with pytest.raises(InputError) as info:
        interpolating_relu_net([[0, 1], [1, 1], ["0/5", 1]], [[1], [2], [3]])
    assert info.value.path == "targets[2]"
    assert "point 2 repeats point 0" in str(info.value)


def test_bad_shapes_are_refused_with_paths():
    with pytest.raises(InputError) as info:
        interpolating_relu_net([[0, 1], [1]], [[1], [2]])
    assert info.value.path == "points[1]"
    with pytest.raises(InputError) as info:
        interpolating_relu_net([[0], [1]], [[1]])
    assert info.value.path == "targets"
    with pytest.raises(InputError) as info:
        interpolating_relu_net([[0], [1]], [[1], [0.5]])
    assert info.value.path == "targets[1][0]"
    with pytest.raises(InputError):
        interpolating_relu_net([], [])


def test_round_trip_through_the_file_format():
    xs = [["1/3", -1], [2, "5/7"], [0, 0]]
    ys = [[1, 2], [3, "-1/9"], [0, 0]]
    net = interpolating_relu_net(xs, ys)
    back = from_json(to_json(net))
    assert back == net
    assert back.evaluate_points(xs) == [[rational(v) for v in y] for y in ys]


def test_mutated_weight_breaks_an_interpolation_point():
    from symrel.models import DenseLayer

    rng = random.Random(7)
    xs = _distinct_points(rng, 12, 3)
    ys = [[_random_rational(rng)] for _ in xs]
    net = interpolating_relu_net(xs, ys)
    W2 = net.layers[1].affine.W.tolist()  # the public view: sympy Rationals
    W2[0][-1] += Fraction(1, 10**6)
    b2 = list(net.layers[1].affine.b)
    bad = ReLUNet(3, [net.layers[0], DenseLayer(W2, b2, "none")])
    assert any(bad(x) != y for x, y in zip(xs, ys))
