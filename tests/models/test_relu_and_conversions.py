import random

import pytest
import sympy

from symrel.exact import to_sympy
from symrel.fileformat import to_json
from symrel.models import CPWL1D, DenseLayer, ReLUNet
from symrel.constructions import cpwl_to_maxout, relu_to_maxout, to_maxout
from symrel.constructions.random import random_cpwl1d, random_point, random_relu_net


def sympy_eval_relu(obj, x):
    R = sympy.Rational
    h = list(x)
    for L in obj["layers"]:
        h = [sum((R(w) * v for w, v in zip(row, h)), R(0)) + R(b) for row, b in zip(L["W"], L["b"])]
        if L["activation"] == "relu":
            h = [sympy.Max(0, v) for v in h]
    return h


@pytest.mark.parametrize("seed", range(5))
def test_relu_nets_agree_with_sympy_and_with_their_maxout_form(seed):
    rng = random.Random(100 + seed)
    d = rng.randint(1, 4)
    net = random_relu_net(rng, d, [rng.randint(1, 6) for _ in range(rng.randint(1, 3))], output_dim=2)
    m = relu_to_maxout(net)
    assert m.depth == len(net.layers) - 1
    obj = to_json(net)
    pts = [random_point(rng, d, 30, 7) for _ in range(40)]
    for p, y, ym in zip(pts, net.evaluate_points(pts), m.evaluate_points(pts)):
        assert [to_sympy(v) for v in y] == sympy_eval_relu(obj, [to_sympy(v) for v in p])
        assert y == ym


def test_relu_layers_without_activation_in_the_middle_are_folded():
    net = ReLUNet(1, [DenseLayer([[1]], [1], "none"), DenseLayer([[2], [-1]], [0, 0], "relu"), DenseLayer([[1, 1]], [0], "none")])
    m = to_maxout(net)
    assert m.depth == 1
    for x in ("-3", "-1", "0", "5/2"):
        assert m([x]) == net([x])


def test_purely_affine_relu_net():
    net = ReLUNet(2, [DenseLayer([[1, 2]], [3], "none")])
    assert to_maxout(net)([1, 1]) == net([1, 1]) == [6]


@pytest.mark.parametrize("seed", range(8))
def test_cpwl_lattice_form_is_exact_everywhere(seed):
    rng = random.Random(seed)
    f = random_cpwl1d(rng, rng.randint(2, 9))
    net = cpwl_to_maxout(f)
    pts = [[x] for x in f.x] + [[(a + b) / 2] for a, b in zip(f.x, f.x[1:])]
    pts += [[f.x[0] - 5], [f.x[-1] + 5]] + [random_point(rng, 1, 50, 9) for _ in range(30)]
    assert net.evaluate_points(pts) == f.evaluate_points(pts)


def test_cpwl_validation():
    from symrel.errors import InputError

    with pytest.raises(InputError, match=r"x\[2\]: expected strictly increasing"):
        CPWL1D([0, 1, 1], [0, 0, 0])
    with pytest.raises(InputError, match="at least 2"):
        CPWL1D([0], [0])
