"""The checker's own mesh reader (checking.meshes, checking.mesh_faces) refuses every
non-conforming mesh the library's mesh check refuses, with the same words and path, and
accepts the conforming ones, in dimensions 2 and 3."""

import random

import pytest

from symrel.checking import MalformedCertificate
from symrel.checking.inputs import read_input
from symrel.constructions import freudenthal_mesh
from symrel.errors import InputError
from symrel.exact import Q, rational
from symrel.models import CPWLMesh

SQUARE = [[0, 0], [1, 0], [0, 1], [1, 1]]
TETRAS_CROSSING = [[0, 0, 0], [4, 0, 0], [0, 4, 0], [0, 0, 4], [1, 1, -1], [5, 1, 1], [1, 5, 1], [1, 1, 1]]
FACETS_CROSSING = [[0, 0, 0], [3, 0, 0], [0, 3, 0], [1, 1, 1], [2, 2, 0], [-1, 2, 0], [2, -1, 0], [1, 1, -1]]
EDGE_ACROSS_FACET = [[0, 0, 0], [3, 0, 0], [0, 3, 0], [1, 1, 1], [-1, 1, 0], [3, 1, 0], [1, -2, -1], [1, 3, -1]]
TWO_TETRAS = [[0, 1, 2, 3], [4, 5, 6, 7]]


def _read(vertices, simplices, values):
    obj = {"symrel": 1, "kind": "cpwl", "input_dim": len(vertices[0]), "vertices": vertices, "simplices": simplices,
           "values": values}
    return read_input(obj, "inputs.f.object")


@pytest.mark.parametrize("vertices, simplices, fragment", [
    ([[0, 0], [1, 1], [2, 2]], [[0, 1, 2]], "simplex 0 is degenerate"),
    (SQUARE, [[0, 1, 2], [1, 3, 2], [0, 1, 3]], "overlap"),
    ([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]], [[0, 1, 2], [1, 3, 4], [4, 3, 2]], "hanging vertex"),
    ([[0, 0], [1, 0], [0, 1], [1, 1], ["1/4", "1/4"]], [[0, 1, 2], [1, 3, 2], [4, 1, 2]], "overlap"),
    ([[0, 0], [4, 0], [0, 4], [1, -1], [3, 3], [1, 4]], [[0, 1, 2], [3, 4, 5]], "overlap"),
    (SQUARE, [[0, 1, 2]], "vertex 3 belongs to no simplex"),
    ([[0, 0], [1, 0], [0, 1], [1, 0]], [[0, 1, 2], [3, 2, 0]], "vertices 1 and 3 are the same point"),
    (SQUARE, [[0, 1, 1]], "repeats a vertex index"),
    (TETRAS_CROSSING, TWO_TETRAS, "overlap"),
    (FACETS_CROSSING, TWO_TETRAS, "more than a common face"),
    (EDGE_ACROSS_FACET, TWO_TETRAS, "more than a common face"),
])
def test_the_checker_refuses_what_the_library_refuses(vertices, simplices, fragment):
    values = [[0]] * len(vertices)
    with pytest.raises(InputError) as library:
        CPWLMesh(vertices, simplices, values, path="inputs.f.object")
    with pytest.raises(MalformedCertificate) as checker:
        _read(vertices, simplices, values)
    assert fragment in checker.value.message and fragment in library.value.message
    assert checker.value.path == library.value.path


@pytest.mark.parametrize("simplices, path", [([[0, 1, 7]], "simplices[0][2]"), ([[0, 1]], "simplices[0]"),
                                             ([[0, 1, True]], "simplices[0][2]"), ([[0, 1, "2"]], "simplices[0][2]")])
def test_a_simplex_is_d_plus_one_vertex_indices(simplices, path):
    with pytest.raises(MalformedCertificate) as err:
        _read(SQUARE, simplices, [[0]] * 4)
    assert err.value.path == f"inputs.f.object.{path}"


def test_conforming_meshes_are_read_with_their_values():
    rng = random.Random(4)
    f = freudenthal_mesh([[0, 1]] * 3, [2, 2, 2], lambda x: [Q(rng.randint(-9, 9))])
    g = _read([[str(v) for v in p] for p in f.vertices], [list(s) for s in f.simplices],
              [[str(v) for v in y] for y in f.values])
    assert len(g.simplices) == 48
    for p in ([Q(1, 3), Q(1, 2), Q(3, 4)], [Q(0), Q(1), Q(1, 5)]):
        assert g.evaluate_exact(p) == f(p)
    # two tetrahedra sharing one vertex, separated by no facet of either: the LP confirms the common face
    _read([[0, 0, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [-2, 0, -3], [-2, 3, -3], [1, -2, 1]],
          [[0, 1, 2, 3], [0, 4, 5, 6]], [[0]] * 7)
    h = _read(SQUARE, [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], ["1/2"]])
    assert h.evaluate_exact([rational("3/4"), rational("3/4")]) == [Q(3, 4)]
    assert [(k, i) for _, _, k, i in h.support_halfspaces()] == [(0, 1), (0, 2), (1, 0), (1, 2)]


@pytest.mark.parametrize("limit, name", [("MAX_MESH_GRID_ENTRIES", "mesh grid entries"),
                                         ("MAX_MESH_PAIRS", "mesh pairs")])
def test_the_conformity_check_counts_its_work_before_doing_it(monkeypatch, limit, name):
    # the same conforming fan under lower limits: refused with the limit's name (CheckLimit,
    # exit 2), and read when the limits are the checker's
    from symrel.checking import CheckLimit, meshes

    fan = [[0, 0]] + [[4, k] for k in range(9)]
    simplices = [[0, k + 1, k + 2] for k in range(8)]
    values = [[0]] * len(fan)
    assert len(_read(fan, simplices, values).exact_geometry) == 8
    monkeypatch.setattr(meshes, limit, 5)
    with pytest.raises(CheckLimit, match=f"limit '{name}'") as err:
        _read(fan, simplices, values)
    assert err.value.path == "inputs.f.object.simplices"
