"""prove_equivalence for CPWL functions on meshes: against f itself (the lattice step),
refutations of a changed vertex value and of a wrong lattice term."""

import random

import pytest

from symrel.compiler import compile_maxout, compile_model
from symrel.errors import InputError
from symrel.exact import Q
from symrel.models import Box, CPWLMesh, Polytope
from symrel.constructions import freudenthal_mesh, lattice_forms, lattice_to_maxout
from symrel.prover import prove_equivalence


def random_grid(seed, d, n, outputs=1):
    rng = random.Random(seed)
    return freudenthal_mesh([[0, 1]] * d, [n] * d,
                            lambda x: [Q(rng.randint(-30, 30), rng.randint(1, 5)) for _ in range(outputs)])


def moved(f, vertex):
    """f with the value at one vertex moved by 1/10^6."""
    values = [list(y) for y in f.values]
    values[vertex][0] += Q(1, 10**6)
    return CPWLMesh(f.vertices, f.simplices, values)


@pytest.mark.parametrize("d, n, outputs", [(2, 3, 1), (2, 2, 2), (3, 1, 1)])
def test_compile_then_prove(d, n, outputs):
    f = random_grid(d * 10 + n, d, n, outputs)
    D = Box([[0, 1]] * d)
    T = compile_model(f, D).transformer
    proof = prove_equivalence(f, T, D)
    assert proof.result == "proved", proof.obstacle
    assert any(s.rule == "cpwl-mesh-lattice" for s in proof.steps)


def test_polytope_domain_inside_the_support():
    f = random_grid(5, 2, 2)
    D = Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])
    assert prove_equivalence(f, compile_model(f, D).transformer, D).result == "proved"


def test_changed_vertex_value_is_refuted_exactly():
    f = random_grid(3, 2, 3)
    D = Box([[0, 1], [0, 1]])
    T = compile_model(f, D).transformer
    for vertex in (0, 5, len(f.vertices) - 1):
        g = moved(f, vertex)
        proof = prove_equivalence(g, T, D)
        assert proof.result == "refuted"
        x = proof.counterexample
        assert D.contains(x) and g(x) != T(x)


def test_wrong_lattice_term_is_refuted():
    f = random_grid(4, 2, 3)
    D = Box([[0, 1], [0, 1]])
    (lat,) = lattice_forms(f)
    t = max(range(len(lat.terms)), key=lambda t: len(lat.terms[t]))
    lat.terms[t] = lat.terms[t][1:]                     # one piece dropped from the largest term
    T = compile_maxout(lattice_to_maxout([lat], 2), D).transformer
    proof = prove_equivalence(f, T, D)
    assert proof.result == "refuted"
    assert f(proof.counterexample) != T(proof.counterexample)


def test_domain_outside_the_support_is_refused():
    f = random_grid(6, 2, 2)
    with pytest.raises(InputError, match="domain: the domain is not inside the support"):
        compile_model(f, Box([[0, 2], [0, 1]]))
    with pytest.raises(InputError, match="domain"):
        prove_equivalence(f, f, Box([[-1, 1], [0, 1]]))
