import random

import pytest

from symrel.compiler import compile_maxout
from symrel.errors import InputError
from symrel.exact import Q, rows
from symrel.models import Box, Polytope
from symrel.constructions.random import random_maxout_net
from symrel.softmax.examples import selection_transformer
from symrel.exact.forms import AffineForm
from symrel.softmax.ranges import analyse, linear_pairs


@pytest.mark.parametrize("seed", range(5))
def test_ranges_contain_every_hardmax_state(seed):
    rng = random.Random(seed)
    d, depth = rng.randint(1, 3), rng.randint(1, 3)
    net = random_maxout_net(rng, d, [rng.randint(1, 3) for _ in range(depth)], rank=(1, 3), max_num=6, max_den=3)
    D = Box.cube(d)
    T = compile_maxout(net, D).transformer
    plan = analyse(T, D)
    assert not plan.obstacles
    assert all(h.kind == "max" for b in plan.blocks if b.heads for h in b.heads)
    for x in D.sample(15, seed=seed) + list(D.vertices()):
        states = T.exact_states(x)
        for b, bp in enumerate(plan.blocks):
            Z = rows(states[b + 1])
            for t in range(T.tokens):
                for r in range(T.width):
                    assert bp.lo[t][r] <= Z[r][t] <= bp.hi[t][r]
        y = T(x)
        assert all(lo <= v <= hi for v, (lo, hi) in zip(y, plan.output_ranges))


def test_move_block_is_recognised_as_linear_pairs():
    net = random_maxout_net(random.Random(1), 2, [2], rank=2, max_num=5, max_den=2)
    plan = analyse(compile_maxout(net, Box.cube(2)).transformer, Box.cube(2))
    move = plan.blocks[2].feedforward
    assert len(move.pairs) * 2 == len(move.W1) and not move.singles
    # the move keeps the range of O exactly: X_i after the move has the unit's range
    comp = compile_maxout(net, Box.cube(2))
    for i, (lo, hi) in enumerate(comp.gates[0].unit_ranges):
        assert (plan.blocks[2].lo[0][comp.layout.X(i)], plan.blocks[2].hi[0][comp.layout.X(i)]) == (lo, hi)


def test_linear_pairs_need_all_three_negations():
    W1 = [AffineForm(Q(0), dict(r)) for r in ([(0, Q(1))], [(0, Q(-1))], [(1, Q(2))], [(1, Q(-2))])]
    W2 = [[(0, Q(1))], [(0, Q(-1))], [(1, Q(1))], [(1, Q(1))]]  # second pair: W2 not negated
    pairs, singles = linear_pairs(W1, [Q(0)] * 4, W2)
    assert pairs == [(0, 1)] and singles == [2, 3]


def test_selection_head_and_its_margin():
    T, D = selection_transformer(delta=Q(1, 2))
    plan = analyse(T, D)
    (head,) = plan.blocks[0].heads
    assert head.kind == "selection" and head.winners == [[0]] * 3 and head.margins == [Q(1, 2)] * 3


def test_keys_with_one_constant_key_vector_are_tied():
    T, D = selection_transformer(delta=Q(0))  # every key is 0: hardmax averages all three
    (head,) = analyse(T, D).blocks[0].heads
    assert head.kind == "selection" and head.winners == [[0, 1, 2]] * 3
    T, D = selection_transformer(delta=Q(-1))  # token 0 loses by 1, tokens 1 and 2 tie
    (head,) = analyse(T, D).blocks[0].heads
    assert head.winners == [[1, 2]] * 3 and head.margins == [Q(1)] * 3


def test_a_head_without_margin_is_an_obstacle():
    T, D = selection_transformer(query_reads_x=True)  # token 0 wins for x > 0 only
    plan = analyse(T, D)
    assert plan.obstacles and "no key wins by a proven margin" in plan.obstacles[0]


def test_domain_must_be_a_box_of_the_right_dimension():
    T, D = selection_transformer()
    with pytest.raises(InputError, match="box"):
        analyse(T, Polytope([[1]], [1]))
    with pytest.raises(InputError, match="dimension"):
        analyse(T, Box.cube(2))
