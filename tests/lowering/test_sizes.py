"""symrel.lowering.sizes: the bound is above the bits an exact run computes, for every kind,
and a run beyond the limit is refused before it starts."""

import random

import pytest

from symrel.constructions.random import random_maxout_net
from symrel.errors import LimitError
from symrel.exact import Q
from symrel.exact.sizes import arithmetic_limits, number_bits
from symrel.lowering import lower
from symrel.lowering.sizes import check_program, program_bits
from symrel.models import CPWL1D, DenseLayer, ReLUNet


def _bits(values):
    return max(max(int(v.numerator).bit_length(), int(v.denominator).bit_length()) for v in values)


def _net(rng, depth, width):
    def num():
        return Q(rng.randrange(-10 ** 6, 10 ** 6), rng.randrange(1, 10 ** 6))
    layers, k = [], 2
    for i in range(depth):
        m = 1 if i == depth - 1 else width
        layers.append(DenseLayer([[num() for _ in range(k)] for _ in range(m)], [num() for _ in range(m)],
                                 "none" if i == depth - 1 else "relu"))
        k = m
    return ReLUNet(2, layers)


@pytest.mark.parametrize("seed", range(10))
def test_the_bound_is_above_the_outputs_bits(seed):
    rng = random.Random(seed)
    net = _net(rng, rng.randrange(1, 6), rng.randrange(1, 6))
    x = [Q(rng.randrange(-100, 100), rng.randrange(1, 100)) for _ in range(2)]
    assert _bits(net.evaluate_exact(x)) <= program_bits(lower(net), number_bits(x))


def test_other_kinds_have_a_bound_too():
    for model in (random_maxout_net(random.Random(1), 2, [3, 2]), CPWL1D(["0", "1/3", "1"], ["0", "2/7", "1"])):
        x = [Q(1, 5)] * model.input_dim
        assert _bits(model.evaluate_exact(x)) <= program_bits(lower(model), number_bits(x))


def test_a_deep_chain_is_refused_before_the_run():
    net = ReLUNet(1, [DenseLayer([["1234567/7654321"]], ["1/3"], "relu") for _ in range(40)]
                  + [DenseLayer([[1]], [0], "none")])
    with arithmetic_limits(product_bits=1000), pytest.raises(LimitError, match="limit 'product bits'"):
        check_program(lower(net), 1)
    assert check_program(lower(net), 1) > 1000


def test_a_compiled_transformer_has_a_bound_above_its_outputs_and_far_inside_the_limit():
    from symrel.compiler import compile_maxout
    from symrel.models import Box

    net = random_maxout_net(random.Random(2), 2, [3, 2])
    tf = compile_maxout(net, Box([["-1", "1"], ["-1", "1"]])).transformer
    x = [Q(1, 3), Q(-2, 7)]
    bits = program_bits(lower(tf), number_bits(x))
    assert _bits(tf.evaluate_exact(x)) <= bits < 20_000


def test_a_layered_net_is_bounded_from_its_sparse_operators_and_not_densified():
    from symrel.lowering.sizes import model_bits
    from symrel.models import LayeredNet, MaxGroups, Relu, SparseAffine

    rows = [[(j, Q(1, 3 + 2 * (i + j))) for j in range(i, min(i + 4, 5000))] for i in range(5000)]
    net = LayeredNet(5000, [SparseAffine(rows, [0] * 5000), Relu(5000), MaxGroups([[i, i + 1] for i in range(0, 5000, 2)])])
    x = [Q(1, 7)] * 5000
    bits = model_bits(net, number_bits(x))
    assert _bits(net.evaluate_exact(x)) <= bits
    with arithmetic_limits(denominator_bits=1000), pytest.raises(LimitError, match=r"ops\[0\]: limit 'denominator bits'"):
        model_bits(net, 1)
