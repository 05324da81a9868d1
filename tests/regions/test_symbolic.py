import random

import sympy

from symrel.compiler import compile_model
from symrel.exact import to_sympy
from symrel.models import Box
from symrel.constructions.random import random_maxout_net
from symrel.regions import piecewise_view, sawtooth_transformer


def test_sawtooth_piecewise_view_matches_exact_evaluation_including_ties():
    t = sawtooth_transformer(3, 1)
    [expr] = piecewise_view(t, Box([[0, 1]]))
    for i in range(13):
        x = sympy.Rational(i, 12)
        assert expr.subs("x1", x) == to_sympy(t([str(x)])[0])


def test_compiled_transformer_view_equals_the_nets_max_form():
    net = random_maxout_net(random.Random(5), 1, [2], rank=2, max_num=5, max_den=3)
    D = Box([[-1, 1]])
    [pw] = piecewise_view(compile_model(net, D).transformer, D)
    [mx] = net.to_sympy()
    for i in range(-8, 9):
        x = sympy.Rational(i, 8)
        assert pw.subs("x1", x) == mx.subs("x1", x)
