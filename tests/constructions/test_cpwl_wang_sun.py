"""The Wang-Sun form of mesh functions: exact equality with f at every vertex and at random
points, in 2-D (Delaunay, with non-convex stars) and 3-D (Freudenthal), maxima of at most
n + 1 pieces; a broken form is caught at a vertex."""

import random

import pytest

from symrel.exact import Q
from symrel.models import CPWLMesh
from symrel.constructions import WangSunForm, freudenthal_mesh, wang_sun_forms, wang_sun_mismatch
from symrel.statements.papers.a4_cpwl_functions import pyramid, random_square_mesh


def _random_points(f, rng, k=60):
    d = f.input_dim
    lo = [min(v[i] for v in f.vertices) for i in range(d)]
    hi = [max(v[i] for v in f.vertices) for i in range(d)]
    return [[l + (h - l) * Q(rng.randint(0, 997), 997) for l, h in zip(lo, hi)] for _ in range(k)]


@pytest.mark.parametrize("make", [pyramid, random_square_mesh,
                                  lambda: freudenthal_mesh([[0, 1]] * 3, [2, 1, 2], lambda x: [Q(sum(x) * 3 - 1), Q(x[0] * x[1])])])
def test_form_equals_f(make):
    f = make()
    forms = wang_sun_forms(f)
    assert len(forms) == f.output_dim
    assert wang_sun_mismatch(f, forms) is None
    rng = random.Random(3)
    for x in _random_points(f, rng):
        assert [form(x) for form in forms] == f(x)
    for form in forms:
        assert form.sizes()["max_arity"] <= f.input_dim + 1
        assert all(len(F) <= f.input_dim + 1 for _, F in form.terms)


def test_broken_form_is_caught_at_a_vertex():
    f = random_square_mesh()
    (form,) = wang_sun_forms(f)
    w, F = form.exact_terms[0]
    broken = WangSunForm(0, form.exact_pieces, [(w + Q(1, 10**6), F)] + form.exact_terms[1:])
    bad = wang_sun_mismatch(f, [broken])
    assert bad is not None
    v, o, want, got = bad
    assert got != want and f.values[v][o] == want


def test_constant_and_affine_functions():
    f = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[1], [2], [3], [4]])   # 1 + x + 2y
    (form,) = wang_sun_forms(f)
    assert wang_sun_mismatch(f, [form]) is None
    assert form.sizes()["terms"] >= 1
