"""ReLU and maxout nets with any number of inputs as CPWL functions on simplicial meshes:
cells cut where they do not meet face to face, pieces triangulated by pulling with one
global vertex order, giving a conforming mesh equal to the net."""

import random

import pytest

from symrel.errors import UndecidedError
from symrel.exact import Q
from symrel.exact.forms import AffineForm, Row
from symrel.models import Box, CPWLMesh, DenseLayer, Polytope, ReLUNet
from symrel.constructions import relu_to_maxout
from symrel.regions import net_to_cpwl_mesh
from symrel.regions.cells_to_simplices import cells_to_simplices, simplices_of_cells


def _net(seed, d=3, h1=2, h2=2):
    rng = random.Random(seed)
    row = lambda n: [rng.randint(-3, 3) for _ in range(n)]        # noqa: E731
    return ReLUNet(d, [DenseLayer([row(d) for _ in range(h1)], [Q(rng.randint(-3, 3), 4) for _ in range(h1)]),
                       DenseLayer([row(h1) for _ in range(h2)], [Q(rng.randint(-3, 3), 4) for _ in range(h2)]),
                       DenseLayer([row(h2)], [0], "none")])


def _points(rng, n, d=3, lo=-1, hi=1):
    return [[Q(rng.randint(lo * 120, hi * 120), 120) for _ in range(d)] for _ in range(n)]


def _simplex_domain(d):
    """{x >= -1 coordinatewise, sum x <= 1}: a simplex around 0."""
    return Polytope([[-1 if i == j else 0 for j in range(d)] for i in range(d)] + [[1] * d], [1] * d + [1])


@pytest.mark.parametrize("d, seed", [(1, 2), (2, 3), (2, 8), (3, 3), (3, 8)])
def test_mesh_equals_the_net_on_the_box(d, seed):
    net, D = _net(seed, d), Box([[-1, 1]] * d)
    f = net_to_cpwl_mesh(net, D)                     # the CPWLMesh constructor re-checks conformity
    rng = random.Random(seed)
    pts = _points(rng, 40, d) + [list(v) for v in D.vertices()] + [[0] * d]
    assert all(f(x) == net(x) for x in pts)
    assert f.exact_values == net.evaluate_points(f.exact_vertices)


@pytest.mark.parametrize("d, seed", [(4, 3), (5, 1)])
def test_mesh_equals_the_net_in_higher_dimension(d, seed):
    net, D = _net(seed, d, 2, 1), _simplex_domain(d)
    f = net_to_cpwl_mesh(net, D)                     # conforming: checked, including the common-face test
    rng = random.Random(seed)
    inside = [x for x in _points(rng, 60, d) if D.contains(x)]
    assert len(inside) > 5 and all(f(x) == net(x) for x in inside)
    assert f.exact_values == net.evaluate_points(f.exact_vertices)


def test_maxout_net_on_a_polytope():
    net = relu_to_maxout(_net(5, 3, 2, 1))
    D = Polytope([[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, -1, -1]], [1, 1, 1, 1])    # a simplex around 0
    f = net_to_cpwl_mesh(net, D)
    rng = random.Random(1)
    inside = [x for x in _points(rng, 80) if D.contains(x)]
    assert len(inside) > 10 and all(f(x) == net(x) for x in inside)


def test_one_bend_gives_two_prisms():
    """ReLU(x - y) on a cube in R^3 and R^4: two prisms (a triangle times a cube of one
    dimension less), each pulled into 3 (3-D) or 12 (4-D) simplices, no new vertices."""
    for d, simplices in ((3, 6), (4, 24)):
        net = ReLUNet(d, [DenseLayer([[1, -1] + [0] * (d - 2)], [0], "relu"), DenseLayer([[1]], [0], "none")])
        vertices, simplexes = cells_to_simplices(net, Box([[-1, 1]] * d))
        assert len(simplexes) == simplices and len(vertices) == 2 ** d


def _box_rows(bounds):
    rows = []
    for i, (lo, hi) in enumerate(bounds):
        rows += [Row(AffineForm(Q(-hi), {i: Q(1)}), "<"), Row(AffineForm(Q(lo), {i: Q(-1)}), "<")]
    return rows


def test_a_hanging_vertex_is_cut_away():
    """Three rectangles, the corner (0, 0) of two hanging on the edge of the third: that
    cell is cut by y = 0, and the mesh has 8 triangles."""
    cells = [_box_rows(b) for b in ([[-1, 0], [-1, 1]], [[0, 1], [-1, 0]], [[0, 1], [0, 1]])]
    stats = {}
    vertices, triangles = simplices_of_cells(cells, [(Q(-1), Q(1))] * 2, stats=stats)
    assert len(triangles) == 8 and [Q(-1), Q(0)] in vertices
    assert stats == {"cells": 3, "contacts": 3, "cuts": 1, "pieces": 4}
    CPWLMesh(vertices, [list(t) for t in triangles], [[0]] * len(vertices))          # checked: conforming


@pytest.mark.parametrize("d", [3, 4])
def test_facets_split_differently_on_the_two_sides_are_refined(d):
    """A brick wall: above x_d = 0 the cells are split by x_1 = 0, below by x_2 = 0. Their
    facets on x_d = 0 cross, and the cells are cut into the quadrants (a new vertex at
    the origin's (d - 2)-flat, a corner of no cell); the mesh is conforming, and |x_d| on it is exact."""
    def bounds(b1, b2, bd):
        return [b1, b2] + [[-1, 1]] * (d - 3) + [bd]

    cells = [_box_rows(b) for b in (bounds([-1, 0], [-1, 1], [0, 1]), bounds([0, 1], [-1, 1], [0, 1]),
                                    bounds([-1, 1], [-1, 0], [-1, 0]), bounds([-1, 1], [0, 1], [-1, 0]))]
    vertices, simplices = simplices_of_cells(cells, [(Q(-1), Q(1))] * d)
    assert [Q(0)] * d in vertices if d == 3 else [Q(0), Q(0), Q(-1), Q(0)] in vertices
    f = CPWLMesh(vertices, [list(t) for t in simplices], [[abs(v[-1])] for v in vertices])   # checked: conforming
    rng = random.Random(2)
    assert all(f(x) == [abs(x[-1])] for x in _points(rng, 60, d))


def test_simplex_limit_is_named():
    net = _net(3, 3)
    with pytest.raises(UndecidedError, match="simplex limit of 5 simplices"):
        net_to_cpwl_mesh(net, Box([[-1, 1]] * 3), max_simplices=5)


def _kd_boxes(rng, bounds, depth):
    """A random k-d tree of boxes: neighbours meet in parts of facets, in every dimension."""
    if depth == 0 or rng.random() < 0.25:
        return [bounds]
    k = rng.randrange(len(bounds))
    lo, hi = bounds[k]
    cut = lo + (hi - lo) * Q(rng.randint(1, 3), 4)
    return (_kd_boxes(rng, bounds[:k] + [[lo, cut]] + bounds[k + 1:], depth - 1)
            + _kd_boxes(rng, bounds[:k] + [[cut, hi]] + bounds[k + 1:], depth - 1))


def _volume_times_factorial(points):
    """|det(p_1 - p_0, ..., p_d - p_0)| by exact elimination (written apart from the library)."""
    m = [[a - b for a, b in zip(p, points[0])] for p in points[1:]]
    det = Q(1)
    for c in range(len(m)):
        r = next((r for r in range(c, len(m)) if m[r][c]), None)
        if r is None:
            return Q(0)
        m[c], m[r] = m[r], m[c]
        det *= m[c][c]
        for s in range(c + 1, len(m)):
            t = m[s][c] / m[c][c]
            m[s] = [x - t * y for x, y in zip(m[s], m[c])]
    return abs(det)


@pytest.mark.parametrize("d, seed", [(2, 2), (2, 5), (3, 0), (3, 5), pytest.param(4, 0, marks=pytest.mark.slow)])
def test_k_d_trees_of_boxes_give_conforming_meshes_of_the_box(d, seed):
    """Hanging vertices and facets cut differently on either side everywhere: the mesh is
    conforming (checked), its volume is the box's, and a linear function on it is exact."""
    import math

    boxes = _kd_boxes(random.Random(seed), [[Q(-1), Q(1)]] * d, 4)
    vertices, simplices = simplices_of_cells([_box_rows(b) for b in boxes], [(Q(-1), Q(1))] * d)
    f = CPWLMesh(vertices, [list(s) for s in simplices], [[sum(v) + 1] for v in vertices])
    assert len(boxes) > 1
    assert sum(_volume_times_factorial([vertices[i] for i in s]) for s in simplices) == 2 ** d * math.factorial(d)
    rng = random.Random(seed)
    assert all(f(x) == [sum(x) + 1] for x in _points(rng, 30, d))
