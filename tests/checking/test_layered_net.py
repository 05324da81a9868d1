"""The checker's reader of layered nets (symrel.checking.layered_net): an affine op's rows are
read pair by pair with their values remembered by JSON value, and every pair that is not an
int column in order with an int or string value is still refused, naming its path."""

import pytest

from symrel.checking import MalformedCertificate
from symrel.checking.layered_net import read_layered
from symrel.exact import rational


def net(rows, b=None):
    return {"input_dim": 3, "ops": [{"op": "affine", "rows": rows, "b": b or [0] * len(rows)},
                                    {"op": "relu"}, {"op": "max", "groups": [list(range(len(rows)))]}]}


ROWS = [[[0, 1], [2, "1/2"]], [[1, 1], [2, "1/2"]], [[0, -1]]]


def test_repeated_weights_read_as_the_same_numbers():
    got = read_layered(net(ROWS), "x")
    assert got.ops[0][1] == [[(0, 1), (2, rational("1/2"))], [(1, 1), (2, rational("1/2"))], [(0, -1)]]
    assert got.evaluate_exact([rational(2), rational(0), rational(4)]) == [rational(4)]


@pytest.mark.parametrize("edit, path, says", [
    (lambda r: r[1].__setitem__(0, [1, True]), "x.ops[0].rows[1][0][1]", "boolean"),    # 1 was read before
    (lambda r: r[1].__setitem__(1, [2, 0.5]), "x.ops[0].rows[1][1][1]", "exact rational"),
    (lambda r: r[1].__setitem__(1, [2, ["1/2"]]), "x.ops[0].rows[1][1][1]", "exact rational"),
    (lambda r: r[1].__setitem__(1, [True, "1/2"]), "x.ops[0].rows[1][1][0]", "boolean"),
    (lambda r: r[1].__setitem__(1, [3, "1/2"]), "x.ops[0].rows[1][1][0]", "0..2"),
    (lambda r: r[1].__setitem__(1, [-1, "1/2"]), "x.ops[0].rows[1][1][0]", "0..2"),
    (lambda r: r[1].__setitem__(1, [1, "1/2"]), "x.ops[0].rows[1][1][0]", "increasing order"),
    (lambda r: r[1].__setitem__(1, [2, "1/2", 0]), "x.ops[0].rows[1][1]", "2 entries"),
    (lambda r: r[1].__setitem__(1, (2, "1/2")), "x.ops[0].rows[1][1]", "list"),
    (lambda r: r.__setitem__(2, {"0": 1}), "x.ops[0].rows[2]", "list"),
    (lambda r: r[2].__setitem__(0, [0, "1/0"]), "x.ops[0].rows[2][0][1]", "denominator 0"),
])
def test_a_tampered_pair_is_refused_naming_it(edit, path, says):
    rows = [[list(p) for p in row] for row in ROWS]
    edit(rows)
    with pytest.raises(MalformedCertificate) as err:
        read_layered(net(rows), "x")
    assert err.value.path == path and says in err.value.message, (err.value.path, err.value.message)
