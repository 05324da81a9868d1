"""The search tree: witnesses satisfy their rows, empty branches carry Farkas vectors."""

from symrel.models import Box
from symrel.regions import enumerate_cells

from .regions_fixtures import lines_net, small_relu_net, tie_transformer


def test_every_witness_satisfies_every_row_of_its_cell():
    res = enumerate_cells([small_relu_net()], Box([[-1, 1], [-1, 1]]), record_empty=True)
    assert res.cells and res.empty
    for cell in res.cells:
        assert all(row.holds_at(cell.witness) for row in cell.rows)


def test_open_cells_of_a_line_arrangement_are_full_dimensional_witnesses():
    res = enumerate_cells([lines_net([[1, 0, 0], [0, 1, 0]])], Box([[-1, 1], [-1, 1]]))
    assert sorted(c.path for c in res.cells) == [("+", "+"), ("+", "-"), ("-", "+"), ("-", "-")]


def test_exact_mode_finds_the_tie_cell():
    res = enumerate_cells([tie_transformer()], Box([[-1, 1]]), mode="exact")
    eq_cells = [c for c in res.cells if any(rel == "=" for _, rel in c.rows)]
    assert len(res.cells) == 3 and len(eq_cells) == 1 and eq_cells[0].witness == [0]


def test_open_mode_skips_the_tie():
    assert len(enumerate_cells([tie_transformer()], Box([[-1, 1]])).cells) == 2
