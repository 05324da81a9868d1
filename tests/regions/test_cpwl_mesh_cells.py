"""Linear regions of CPWL functions on meshes: one per simplex for generic values, fewer by
exactly the merges of neighbouring simplices sharing a plane."""

import random

import pytest

from symrel.exact import Q
from symrel.models import Box, freudenthal_mesh
from symrel.regions import count_regions


def grid(n, values, d=2):
    return freudenthal_mesh([[0, 1]] * d, [n] * d, values)


@pytest.mark.parametrize("d, n", [(2, 4), (3, 2)])
def test_generic_values_give_one_region_per_simplex(d, n):
    rng = random.Random(d)
    f = grid(n, lambda x: [Q(rng.randint(-999, 999), rng.randint(1, 99))], d)
    r = count_regions(f, Box([[0, 1]] * d))
    assert r.count == r.activation_cells == len(f.simplices)


def test_planar_neighbours_merge():
    rng = random.Random(5)
    plane = lambda x: x[0] - 2 * x[1] + 3            # noqa: E731
    # on [0, 1/2]^2 (the four vertices of one grid cell of a 2 x 2 grid) the values lie on a plane
    f = grid(2, lambda x: [plane(x) if max(x) <= Q(1, 2) else Q(rng.randint(-999, 999), 7)])
    r = count_regions(f, Box([[0, 1], [0, 1]]))
    assert len(f.simplices) == 8 and r.count == 8 - 1
    assert count_regions(grid(3, lambda x: [plane(x)]), Box([[0, 1], [0, 1]])).count == 1


def test_domain_inside_the_support_only():
    from symrel.errors import InputError

    f = grid(2, lambda x: [x[0] * x[1]])
    assert count_regions(f, Box([[0, "1/2"], [0, "1/2"]])).count == 2
    with pytest.raises(InputError, match="not inside the support"):
        count_regions(f, Box([[0, 2], [0, 1]]))


def test_plot_2d(tmp_path):
    pytest.importorskip("matplotlib")
    from symrel.regions.plot import save_regions_plot

    rng = random.Random(2)
    f = grid(3, lambda x: [Q(rng.randint(-9, 9))])
    out = save_regions_plot(count_regions(f, Box([[0, 1], [0, 1]])), tmp_path / "mesh.png")
    assert (tmp_path / "mesh.png").stat().st_size > 0 and out
