"""Exact region counts that match known mathematics."""

import pytest

from symrel.errors import InputError, UndecidedError
from symrel.models import Box, CPWL1D, Polytope
from symrel.regions import count_regions

from .regions_fixtures import lines_net, tent_net


GENERIC_LINES = [[1, 0, 0], [0, 1, 0], [1, 1, -1], [1, -1, "1/3"], [2, 1, "-1/2"], [1, -3, "1/5"], [3, 1, "2/7"]]


@pytest.mark.parametrize("geometry", ["lp", "polygon"])
@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_generic_lines_give_the_arrangement_count(n, geometry):
    net = lines_net(GENERIC_LINES[:n])
    res = count_regions(net, Box([[-20, 20], [-20, 20]]), kind="activation", geometry=geometry)
    assert res.count == 1 + n + n * (n - 1) // 2


def test_lines_linear_regions_equal_activation_regions():
    # every cell has its own affine map (each ReLU adds its own gradient)
    res = count_regions(lines_net(GENERIC_LINES[:4]), Box([[-20, 20], [-20, 20]]))
    assert res.kind == "linear" and res.count == res.activation_cells == 11


def test_box_missing_crossings_counts_fewer():
    # a small box around the origin sees only the lines x = 0 and y = 0
    res = count_regions(lines_net(GENERIC_LINES[:3]), Box([["-1/10", "1/10"], ["-1/10", "1/10"]]), kind="activation")
    assert res.count == 4


@pytest.mark.parametrize("geometry", ["lp", "polygon"])
@pytest.mark.parametrize("L", [1, 2, 3, 4, 5, 6])
def test_composed_tent_map_has_two_to_the_L_pieces(L, geometry):
    assert count_regions(tent_net(L), Box([[0, 1]]), geometry=geometry).count == 2**L


def test_polygon_and_lp_geometry_agree_on_a_random_net():
    import random

    from symrel.exact import Q
    from symrel.models import DenseLayer, ReLUNet

    rng = random.Random(5)
    W1 = [[Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(2)] for _ in range(6)]
    W2 = [[Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(6)] for _ in range(4)]
    net = ReLUNet(2, [DenseLayer(W1, [Q(rng.randint(-3, 3)) for _ in range(6)]),
                      DenseLayer(W2, [Q(rng.randint(-3, 3)) for _ in range(4)]),
                      DenseLayer([[1, -1, 2, 1]], [0], "none")])
    box = Box([[-3, 3], [-3, 3]])
    a = count_regions(net, box, geometry="lp")
    b = count_regions(net, box, geometry="polygon")
    assert (a.activation_cells, a.count) == (b.activation_cells, b.count)
    assert a.activation_cells > 10


def test_linear_regions_merge_collinear_pieces_but_not_separated_ones():
    # pieces 1 and 2 are collinear (one region); pieces 1 and 4 have equal maps but are apart
    f = CPWL1D([0, 1, 2, 3, 4], [0, 1, 2, 0, 1])
    res = count_regions(f, Box([[0, 4]]))
    assert (res.activation_cells, res.count) == (4, 3)
    assert len(set(res.region_of)) == 3


def test_linear_merge_in_two_dimensions():
    # ReLU(x) + ReLU(-x) - ReLU(y) + ReLU(y): the y-line changes nothing, so 2 linear regions, 4 cells
    from symrel.models import DenseLayer, ReLUNet

    net = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, 1]], [0, 0, 0, 0]), DenseLayer([[1, 1, -1, 1]], [0], "none")])
    res = count_regions(net, Box([[-1, 1], [-1, 1]]))
    assert (res.activation_cells, res.count) == (4, 2)


def test_polytope_domain():
    tri = Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])
    # x = 1/3 and y = 1/3 cut the triangle x, y >= 0, x + y <= 1 into 4 pieces
    net = lines_net([[1, 0, "-1/3"], [0, 1, "-1/3"]])
    assert count_regions(net, tri, kind="activation").count == 4


def test_cell_limit_is_undecided():
    with pytest.raises(UndecidedError):
        count_regions(tent_net(5), Box([[0, 1]]), max_cells=10)


def test_bad_kind_and_flat_domain():
    with pytest.raises(InputError):
        count_regions(tent_net(1), Box([[0, 1]]), kind="volume")
    with pytest.raises(InputError):
        count_regions(lines_net(GENERIC_LINES[:2]), Box([[0, 0], [0, 1]]))


def test_process_pool_gives_the_same_count():
    from concurrent.futures import ProcessPoolExecutor

    net = lines_net(GENERIC_LINES[:5])
    with ProcessPoolExecutor(max_workers=2) as ex:
        res = count_regions(net, Box([[-20, 20], [-20, 20]]), kind="activation", executor=ex)
    assert res.count == 16


def test_thread_pool_and_progress(capsys):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as ex:
        res = count_regions(tent_net(4), Box([[0, 1]]), executor=ex, progress=True)
    assert res.count == 16
    assert "cells: " in capsys.readouterr().err
