"""Layered nets: exact evaluation, the file format (round trip and hostile files), and the
conversions from ReLU and maxout nets."""

from __future__ import annotations

import json
import random

import pytest

from symrel.constructions.random import random_maxout_net, random_point, random_relu_net
from symrel.errors import DimensionError, InputError
from symrel.fileformat import from_json, to_json
from symrel.fileformat.jsonio import loads
from symrel.models import LayeredNet, MaxGroups, Relu, SparseAffine, from_maxout_net, from_relu_net


def _net():
    return LayeredNet(2, [SparseAffine([[(0, 1)], [(0, -1)], [(1, 1)]], [0, 0, "-1/2"]), Relu(3),
                          MaxGroups([[0, 1], [2]]), SparseAffine([[(0, 1), (1, 2)]], [0])])


def test_evaluation_is_the_definition():
    net = _net()
    for x0, x1 in [("-3/4", 2), (0, 0), ("1/3", "1/2"), (5, -7)]:
        from symrel.exact import rational as q
        a, b = q(x0), q(x1)
        want = max(max(a, 0), max(-a, 0)) + 2 * max(b - q("1/2"), 0)
        assert net.evaluate_exact([x0, x1]) == [want]


@pytest.mark.parametrize("seed", range(6))
def test_relu_and_maxout_nets_convert_exactly(seed):
    rng = random.Random(seed)
    relu = random_relu_net(rng, 3, [4, 3], output_dim=2)
    maxout = random_maxout_net(rng, 3, [3, 2], rank=3)
    for model in (relu, maxout):
        layered = from_relu_net(model) if model.kind == "relu" else from_maxout_net(model)
        for _ in range(5):
            x = random_point(rng, 3)
            assert layered.evaluate_exact(x) == model.evaluate_exact(x)


def test_file_round_trip():
    net = _net()
    obj = to_json(net)
    assert obj["kind"] == "layered" and obj["ops"][2] == {"op": "max", "groups": [[0, 1], [2]]}
    again = from_json(json.loads(json.dumps(obj)))
    assert again == net and to_json(again) == obj


def _file(**change):
    obj = {"symrel": 1, "kind": "layered", "input_dim": 2,
           "ops": [{"op": "affine", "rows": [[[0, 1], [1, "1/2"]]], "b": [0]}, {"op": "relu"}]}
    obj["ops"][change.pop("at", 0)].update(change)
    return obj


@pytest.mark.parametrize("change, says", [
    ({"rows": [[[1, 1], [0, 1]]]}, "increasing order"),            # columns out of order (a duplicate hides there)
    ({"rows": [[[0, 1], [0, 1]]]}, "increasing order"),            # the same column twice
    ({"rows": [[[2, 1]]]}, "below the input width 2"),             # a column past the input
    ({"rows": [[[True, 1]]]}, "column index"),                     # a boolean is not an index
    ({"rows": [[["0", 1]]]}, "column index"),                      # a string is not an index
    ({"rows": [[[-1, 1]]]}, "column index"),                       # -1 is not the last column
    ({"rows": [[[0, 1, 2]]]}, "pair"),                             # a triple
    ({"b": [0, 0]}, "expected 1 numbers"),                              # a bias too many
    ({"extra": 1}, "only the keys"),                               # an unknown key
    ({"op": "conv"}, "op"),                                        # an unknown operator
    ({"op": "max", "rows": None, "b": None}, "only the keys"),     # a max with an affine's keys
])
def test_hostile_files_are_refused_by_name(change, says):
    with pytest.raises(InputError, match=says):
        from_json(_file(**change))


def test_a_json_float_weight_is_refused_unless_asked():
    text = '{"symrel": 1, "kind": "layered", "input_dim": 1, "ops": [{"op": "affine", "rows": [[[0, 0.5]]], "b": [0]}]}'
    with pytest.raises(InputError, match="JSON float"):
        from_json(loads(text))


def test_max_groups_need_distinct_indices_within_the_width():
    with pytest.raises(InputError, match="once in a group"):
        MaxGroups([[0, 0]])
    with pytest.raises(DimensionError):
        LayeredNet(2, [MaxGroups([[0, 2]])])
    with pytest.raises(InputError, match="at least 1"):
        MaxGroups([[]])


def test_operators_must_chain():
    with pytest.raises(DimensionError, match="reading 3 entries"):
        LayeredNet(2, [SparseAffine([[(0, 1)], [(1, 1)], [(0, 1)]]), Relu(2)])


@pytest.mark.parametrize("bad, error, says", [
    ((1, 1), InputError, "increasing order"),                 # the last column again
    ((3, 1), DimensionError, "below the input width 3"),
    ((True, 1), InputError, "column index"),
    ((2.0, 1), InputError, "column index"),
    ((2, True), InputError, "boolean"),
    ((2, 0.5), InputError, "float"),
    ([2, 1, 0], InputError, "pair"),
])
def test_a_bad_pair_after_good_ones_is_refused_by_its_path(bad, error, says):
    from symrel.exact import rational

    rows = [[(0, 1)], [(0, rational("1/2")), (1, "-3"), bad]]
    with pytest.raises(error, match=says) as err:
        SparseAffine(rows, input_dim=3)
    assert err.value.path.startswith("affine.rows[1][2]"), err.value.path
