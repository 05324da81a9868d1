"""CPWL functions on simplicial meshes (kind "cpwl"): evaluation against barycentric
interpolation written here independently, the lattice form, bad meshes."""

import random
from fractions import Fraction


def F(v):
    """A Fraction of an int, a Fraction or an exact symrel rational."""
    return Fraction(v) if isinstance(v, (int, Fraction)) else to_fraction(v)


import pytest

from symrel.errors import InputError
from symrel.exact import Q, to_fraction
from symrel.fileformat import dumps, loads_object
from symrel.models import Box, CPWLMesh, Polytope
from symrel.constructions import cpwl_mesh_to_maxout, freudenthal_mesh, lattice_forms


# -- an independent reference: Cramer-free barycentric coordinates by Gauss-Jordan on Fractions
def _solve(M, rhs):
    n = len(M)
    A = [list(map(F, row)) + [F(r)] for row, r in zip(M, rhs)]
    for c in range(n):
        p = next(r for r in range(c, n) if A[r][c] != 0)
        A[c], A[p] = A[p], A[c]
        A[c] = [v / A[c][c] for v in A[c]]
        for r in range(n):
            if r != c and A[r][c] != 0:
                A[r] = [a - A[r][c] * b for a, b in zip(A[r], A[c])]
    return [A[r][n] for r in range(n)]


def reference(vertices, simplices, values, x):
    """Barycentric interpolation by brute force over every simplex holding x (all must agree)."""
    found = set()
    d = len(x)
    for s in simplices:
        pts = [[F(v) for v in vertices[i]] for i in s]
        M = [[p[k] for p in pts] for k in range(d)] + [[1] * (d + 1)]
        lam = _solve(M, [F(v) for v in x] + [1])
        if min(lam) >= 0:
            found.add(tuple(sum(l * F(values[i][o]) for l, i in zip(lam, s)) for o in range(len(values[0]))))
    assert len(found) == 1, found
    return list(found.pop())


def jittered_grid(rng, d, n, outputs=1):
    """A Freudenthal grid on [0,1]^d with interior vertices moved by random small rationals
    (conforming: the moves are far below a grid step) and random values."""
    def values(x):
        return [Q(rng.randint(-40, 40), rng.randint(1, 9)) for _ in range(outputs)]

    f = freudenthal_mesh([[0, 1]] * d, [n] * d, values)
    verts = []
    for v in f.vertices:
        if all(0 < c < 1 for c in v):
            v = [c + Q(rng.randint(-1, 1), 8 * n * rng.randint(1, 3)) for c in v]
        verts.append(v)
    return CPWLMesh(verts, f.simplices, f.values)      # checked again, from scratch


def random_points(rng, d, k):
    return [[Q(rng.randint(0, 60), 60) for _ in range(d)] for _ in range(k)]


@pytest.mark.parametrize("d, n", [(2, 4), (3, 2)])
def test_evaluation_is_barycentric_interpolation(d, n):
    rng = random.Random(100 + d)
    f = jittered_grid(rng, d, n, outputs=2)
    for x in random_points(rng, d, 25) + [v for v in f.vertices[:5]]:
        assert [to_fraction(v) for v in f(x)] == reference(f.vertices, f.simplices, f.values, x)


@pytest.mark.parametrize("d, n", [(1, 5), (2, 4), (3, 2)])
def test_lattice_form_equals_f(d, n):
    rng = random.Random(7 * d)
    f = jittered_grid(rng, d, n, outputs=2 if d == 2 else 1)
    net = cpwl_mesh_to_maxout(f)
    for x in random_points(rng, d, 30) + f.vertices:
        assert net(x) == f(x)
    for lat in lattice_forms(f):
        s = lat.sizes()
        assert s["terms"] <= s["ovchinnikov"]["terms"] and s["term_pieces"] <= s["ovchinnikov"]["pieces"]


def test_pyramid_is_one_min():
    f = CPWLMesh([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]], [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]],
                 [[0], [0], [0], [0], [1]])
    (lat,) = lattice_forms(f)
    assert lat.terms == [[0, 1, 2, 3]] and lat.sizes()["ovchinnikov"] == {"terms": 4, "pieces": 16}


def test_round_trip_and_values():
    f = jittered_grid(random.Random(3), 2, 2, outputs=2)
    assert loads_object(dumps(f)) == f
    g = loads_object('{"symrel": 1, "kind": "cpwl", "input_dim": 2, "vertices": [[0, 0], [1, 0], [0, 1], [1, 1]],'
                     ' "simplices": [[0, 1, 2], [1, 3, 2]], "values": [[0], [1], [1], ["1/2"]]}')
    assert g(["3/4", "3/4"]) == [Q(3, 4)]


SQUARE = [[0, 0], [1, 0], [0, 1], [1, 1]]


@pytest.mark.parametrize("vertices, simplices, values, fragment", [
    ([[0, 0], [1, 1], [2, 2]], [[0, 1, 2]], [[0]] * 3, "simplex 0 is degenerate"),
    (SQUARE, [[0, 1, 2], [1, 3, 2], [0, 1, 3]], [[0]] * 4, "overlap"),
    ([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]], [[0, 1, 2], [1, 3, 4], [4, 3, 2]], [[0]] * 5, "hanging vertex"),
    ([[0, 0], [1, 0], [0, 1], [1, 1], ["1/4", "1/4"]], [[0, 1, 2], [1, 3, 2], [4, 1, 2]], [[0]] * 5, "overlap"),
    ([[0, 0], [4, 0], [0, 4], [1, -1], [3, 3], [1, 4]], [[0, 1, 2], [3, 4, 5]], [[0]] * 6, "overlap"),  # crossing, no vertex inside
    (SQUARE, [[0, 1, 2], [1, 3, 2]], [[0], [1], [1, 2], [0]], "values[2]: expected 1 numbers"),
    (SQUARE, [[0, 1, 2], [1, 3, 7]], [[0]] * 4, "simplices[1]"),
    (SQUARE, [[0, 1, 2]], [[0]] * 4, "vertex 3 belongs to no simplex"),
    ([[0, 0], [1, 0], [0, 1], [1, 0]], [[0, 1, 2], [3, 2, 0]], [[0]] * 4, "vertices 1 and 3 are the same point"),
])
def test_bad_meshes_are_refused_naming_the_simplex(vertices, simplices, values, fragment):
    with pytest.raises(InputError) as err:
        CPWLMesh(vertices, simplices, values)
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_overlap_in_3d_by_lp():
    # two tetrahedra crossing through each other's faces without a vertex inside the other
    verts = [[0, 0, 0], [4, 0, 0], [0, 4, 0], [0, 0, 4], [1, 1, -1], [5, 1, 1], [1, 5, 1], [1, 1, 1]]
    with pytest.raises(InputError, match="overlap"):
        CPWLMesh(verts, [[0, 1, 2, 3], [4, 5, 6, 7]], [[0]] * 8)


# two tetrahedra on either side of the plane z = 0 with disjoint interiors, touching in it
# in crossing lower-dimensional faces, with no vertex of either inside the other
CROSSING_3D = {
    "facets crossing in one plane": [[0, 0, 0], [3, 0, 0], [0, 3, 0], [1, 1, 1],      # a hexagram
                                     [2, 2, 0], [-1, 2, 0], [2, -1, 0], [1, 1, -1]],
    "an edge across a facet": [[0, 0, 0], [3, 0, 0], [0, 3, 0], [1, 1, 1],
                               [-1, 1, 0], [3, 1, 0], [1, -2, -1], [1, 3, -1]],
}


@pytest.mark.parametrize("case", sorted(CROSSING_3D))
def test_faces_crossing_in_3d_are_not_conforming(case):
    with pytest.raises(InputError, match="more than a common face") as err:
        CPWLMesh(CROSSING_3D[case], [[0, 1, 2, 3], [4, 5, 6, 7]], [[0]] * 8)
    assert err.value.path == "simplices[1]" and "simplices 0 and 1" in str(err.value)


def test_conforming_3d_meshes_pass_the_common_face_test():
    rng = random.Random(4)
    f = freudenthal_mesh([[0, 1]] * 3, [2, 2, 2], lambda x: [Q(rng.randint(-9, 9))])
    g = CPWLMesh(f.vertices, f.simplices, f.values)      # checked again, with the common-face test
    assert len(g.simplices) == 48
    # two tetrahedra sharing one vertex, separated by no facet of either: the LP confirms the common face
    CPWLMesh([[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [-2, 0, -3], [-2, 3, -3], [1, -2, 1]],
             [[0, 1, 2, 3], [0, 4, 5, 6]], [[0]] * 7)


def test_outside_the_support():
    f = CPWLMesh(SQUARE, [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], [0]])
    with pytest.raises(InputError, match=r"the point \(2, 0\) lies outside the support"):
        f([2, 0])
    with pytest.raises(InputError, match="inputs\\[1\\]: the point"):
        f.evaluate_batch([[0, 0], [-1, 0]])
    f.check_domain(Box([[0, 1], [0, 1]]))
    with pytest.raises(InputError, match=r"domain: the domain is not inside the support.*\(2, "):
        f.check_domain(Box([[0, 2], [0, 1]]))
    with pytest.raises(InputError, match="not inside the support"):
        f.check_domain(Polytope([[1, 1], [-1, 0], [0, -1]], [3, 0, 0]))
    f.check_domain(Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0]))


def test_non_convex_support_domain_check():
    # an L shape: three unit squares; the box of the missing square is refused
    verts = [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1], [0, 2], [1, 2]]
    simp = [[0, 1, 4], [0, 4, 3], [1, 2, 5], [1, 5, 4], [3, 4, 7], [3, 7, 6]]
    f = CPWLMesh(verts, simp, [[i] for i in range(8)])
    assert not f.support_is_convex()
    f.check_domain(Box([[0, 1], [0, 1]]))
    with pytest.raises(InputError, match="non-convex"):
        f.check_domain(Box([[0, 2], [0, 2]]))
    assert cpwl_mesh_to_maxout(f)(["1/2", "3/2"]) == f(["1/2", "3/2"])


def test_delaunay_mesh_of_random_points():
    from symrel.constructions import delaunay_mesh

    rng = random.Random(9)
    pts = [[0, 0], [1, 0], [0, 1], [1, 1]] + [[Q(rng.randint(1, 99), 100), Q(rng.randint(1, 99), 100)] for _ in range(25)]
    pts = list({tuple(p): p for p in pts}.values())
    vals = [[Q(rng.randint(-9, 9), 2)] for _ in pts]
    f = delaunay_mesh(pts, vals)
    assert f.support_is_convex() and len(f.simplices) == 2 * len(pts) - 4 - 2
    for x in random_points(rng, 2, 15):
        assert f(x) == reference(f.vertices, f.simplices, f.values, x)
    net = cpwl_mesh_to_maxout(f)                        # the lattice form, with split simplices if needed
    assert all(net(x) == f(x) for x in random_points(rng, 2, 40))
