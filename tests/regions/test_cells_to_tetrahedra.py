"""ReLU and maxout nets with three inputs as CPWL functions on tetrahedral meshes: the
common refinement of the cells' facets gives a conforming mesh equal to the net."""

import random

import pytest

from symrel.errors import InputError
from symrel.exact import Q
from symrel.models import Box, DenseLayer, Polytope, ReLUNet, relu_to_maxout
from symrel.regions import net_to_cpwl_mesh
from symrel.regions.cells_to_tetrahedra import cells_to_tetrahedra


def _net(seed, h1=2, h2=2):
    rng = random.Random(seed)
    row = lambda n: [rng.randint(-3, 3) for _ in range(n)]        # noqa: E731
    return ReLUNet(3, [DenseLayer([row(3) for _ in range(h1)], [Q(rng.randint(-3, 3), 4) for _ in range(h1)]),
                       DenseLayer([row(h1) for _ in range(h2)], [Q(rng.randint(-3, 3), 4) for _ in range(h2)]),
                       DenseLayer([row(h2)], [0], "none")])


def _points(rng, n, lo=-1, hi=1):
    return [[Q(rng.randint(lo * 120, hi * 120), 120) for _ in range(3)] for _ in range(n)]


@pytest.mark.parametrize("seed", [3, 8])
def test_mesh_equals_the_net_on_the_box(seed):
    net, D = _net(seed), Box([[-1, 1]] * 3)
    f = net_to_cpwl_mesh(net, D)                     # the CPWLMesh constructor re-checks conformity
    rng = random.Random(seed)
    pts = _points(rng, 40) + [list(v) for v in D.vertices()] + [[0, 0, 0]]
    assert all(f(x) == net(x) for x in pts)
    assert f.values == net.evaluate_points(f.vertices)


def test_maxout_net_on_a_polytope():
    net = relu_to_maxout(_net(5, 2, 1))
    D = Polytope([[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, -1, -1]], [1, 1, 1, 1])    # a simplex around 0
    f = net_to_cpwl_mesh(net, D)
    rng = random.Random(1)
    inside = [x for x in _points(rng, 80) if D.contains(x)]
    assert len(inside) > 10 and all(f(x) == net(x) for x in inside)


def test_one_bend_gives_two_prisms():
    net = ReLUNet(3, [DenseLayer([[1, -1, 0]], [0], "relu"), DenseLayer([[1]], [0], "none")])   # ReLU(x - y)
    vertices, tets = cells_to_tetrahedra(net, Box([[-1, 1]] * 3))
    assert len(tets) == 16 and len(vertices) == 10


def test_four_inputs_are_refused():
    net = ReLUNet(4, [DenseLayer([[1, 0, 0, 0]], [0], "relu"), DenseLayer([[1]], [0], "none")])
    with pytest.raises(InputError, match="1, 2 or 3 inputs"):
        net_to_cpwl_mesh(net, Box([[0, 1]] * 4))


def test_facets_split_differently_on_the_two_sides_are_refined():
    """A brick wall: above z = 0 the cells are split by x = 0, below by y = 0. Their
    facets on z = 0 cross, and the pieces are the four quadrants, with a new vertex at the
    origin (a corner of no cell); the mesh is conforming, and |z| on it is exact."""
    from symrel.exact.forms import AffineForm, Row
    from symrel.models import CPWLMesh
    from symrel.regions.cells_to_tetrahedra import tetrahedra_of_cells

    def box_rows(bounds):
        rows = []
        for i, (lo, hi) in enumerate(bounds):
            rows += [Row(AffineForm(Q(-hi), {i: Q(1)}), "<"), Row(AffineForm(Q(lo), {i: Q(-1)}), "<")]
        return rows

    cells = [box_rows(b) for b in ([[-1, 0], [-1, 1], [0, 1]], [[0, 1], [-1, 1], [0, 1]],
                                   [[-1, 1], [-1, 0], [-1, 0]], [[-1, 1], [0, 1], [-1, 0]])]
    vertices, tets = tetrahedra_of_cells(cells, [(Q(-1), Q(1))] * 3)
    assert [Q(0), Q(0), Q(0)] in vertices
    f = CPWLMesh(vertices, [list(t) for t in tets], [[abs(v[2])] for v in vertices])   # checked: conforming
    rng = random.Random(2)
    assert all(f(x) == [abs(x[2])] for x in _points(rng, 60))
