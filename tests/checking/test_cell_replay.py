"""The limits of the cell checker's replay, checked before anything is replayed."""

import pytest

import json

from symrel.checking.cell_replay import MAX_VALUE_DIGITS, check_limits, decisions, growth_digits
from symrel.checking.inputs import read_input
from symrel.errors import LimitError
from symrel.fileformat import dumps

from ..regions.regions_fixtures import jump_transformer


def _net(depth, weight, width=1):
    """A ReLU net of one input, as the checker reads it (its own semantics)."""
    layers = [{"W": [[weight]] * width, "b": [0] * width, "activation": "relu"}]
    layers += [{"W": [[weight] * width] * width, "b": [0] * width, "activation": "relu"} for _ in range(depth - 1)]
    return read_input({"symrel": 1, "kind": "relu", "input_dim": 1, "layers": layers})


def test_the_growth_bound_adds_the_digits_of_every_layer():
    one, ten = growth_digits(_net(1, "1e100"), 1), growth_digits(_net(10, "1e100"), 1)
    assert 100 < one < 110 and 1000 < ten < 1100      # depth x digits, plus a little per fan-in


def test_a_path_is_no_longer_than_the_decisions():
    assert decisions([_net(3, 1, width=4)]) == 12
    assert decisions([read_input(json.loads(dumps(jump_transformer())))]) == 3 * 2    # three queries, two comparisons each


def test_the_growth_limit_is_named():
    with pytest.raises(LimitError, match="the growth limit") as err:
        check_limits([_net(12, "1e9999")], 1, paths=1)
    assert str(MAX_VALUE_DIGITS) in str(err.value)


def test_the_work_limit_is_named():
    wide = _net(3, 1, width=100)
    assert check_limits([wide], 1, paths=100) == 300
    with pytest.raises(LimitError, match="the work limit"):
        check_limits([wide], 1, paths=100_000)
