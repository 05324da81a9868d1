"""The sawtooth depth family: exactly k^(qL) regions on [0,1]^q."""

import pytest

from symrel.errors import InputError
from symrel.exact import rational as r
from symrel.models import Box
from symrel.regions import count_regions, depth_table, sawtooth_transformer


@pytest.mark.parametrize("k,L", [(2, 1), (2, 3), (3, 2), (4, 2)])
def test_sawtooth_has_k_to_the_L_pieces(k, L):
    assert count_regions(sawtooth_transformer(k, L), Box([[0, 1]])).count == k**L


def test_two_coordinates_give_k_to_the_qL():
    assert count_regions(sawtooth_transformer(2, 2, q=2), Box([[0, 1], [0, 1]])).count == 16


def test_selection_is_the_sawtooth_at_exact_points():
    tf = sawtooth_transformer(3, 1)
    # nearest centre 1/6, 1/2, 5/6; values 3u, 2 - 3u, 3u - 2
    for u, v in [("0", "0"), ("1/6", "1/2"), ("1/3", "1"), ("1/2", "1/2"), ("2/3", "0"), ("1", "1")]:
        assert tf.evaluate([u]) == [r(v)]


def test_ties_are_points_and_continuous():
    res = count_regions(sawtooth_transformer(3, 2), Box([[0, 1]]), ties=True)
    assert res.count == 9 and res.tie_cells == 8


def test_depth_table_compares_with_the_formulas():
    rows = depth_table([(2, 2, 1), (3, 1, 1)])
    assert [row["exact"] for row in rows] == [row["k^(qL)"] for row in rows] == [4, 3]
    assert rows[0]["(T-1)^(q(floor(D/3)-1))"] == 2 and rows[0]["implied_C"] == 2


def test_bad_parameters():
    with pytest.raises(InputError):
        sawtooth_transformer(1, 2)
