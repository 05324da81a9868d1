import itertools
import random

import pytest

from symrel.errors import InputError
from symrel.exact import Q, dot
from symrel.models import Box, Polytope, polytope_box
from symrel.models.domain import vertex_coordinate_bound


def _vertices(A, b):
    """Every vertex, by solving each d x d subsystem (the test's own oracle)."""
    import sympy

    d = len(A[0])
    out = []
    for S in itertools.combinations(range(len(A)), d):
        M = sympy.Matrix([[sympy.Rational(str(v)) for v in A[r]] for r in S])
        if M.det() == 0:
            continue
        x = [Q(str(v)) for v in M.LUsolve(sympy.Matrix([sympy.Rational(str(b[r])) for r in S]))]
        if all(dot(A[r], x) <= b[r] for r in range(len(A))):
            out.append(x)
    return out


def _random_polytope(rng, d):
    A, b = Box.cube(d).exact_halfspaces()
    for _ in range(rng.randint(1, 4)):
        A.append([Q(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(d)])
        b.append(Q(rng.randint(0, 4), rng.randint(1, 4)))
    return Polytope(A, b)


@pytest.mark.parametrize("seed", range(12))
def test_bounding_box_is_exact_and_certified(seed):
    rng = random.Random(seed)
    P = _random_polytope(rng, rng.randint(1, 3))
    A, b = P.exact_halfspaces()
    box, duals, points = polytope_box(P)
    vertices = _vertices(A, b)
    H = vertex_coordinate_bound(A, b)
    for i, ((lo, hi), (y_lo, y_hi)) in enumerate(zip(box, duals)):
        assert (lo, hi) == (min(v[i] for v in vertices), max(v[i] for v in vertices))
        assert all(abs(v[i]) <= H for v in vertices)
        for sense, bound, y in ((-1, -lo, y_lo), (1, hi, y_hi)):      # LP duality certificates
            assert all(v >= 0 for v in y)
            assert [sum(yr * row[k] for yr, row in zip(y, A)) for k in range(P.dim)] == \
                [sense if k == i else 0 for k in range(P.dim)]
            assert dot(y, b) == bound
    assert all(P.contains(p) for p in points)
    for i, (lo, hi) in enumerate(box):
        assert any(p[i] == lo for p in points) and any(p[i] == hi for p in points)


def test_unbounded_and_empty_polytopes_are_refused():
    with pytest.raises(InputError, match="x_2 is unbounded above"):
        polytope_box(Polytope([[1, 0], [-1, 0], [0, -1]], [1, 1, 0]))
    with pytest.raises(InputError, match="non-empty"):
        polytope_box(Polytope([[1], [-1]], [-1, 0]))


def test_many_inequalities_cost_one_lp_per_bound():
    # C(40, 2) bases would be enumerated by vertex search; the LPs do not care
    rng = random.Random(3)
    A, b = Box.cube(2).exact_halfspaces()
    A += [[Q(rng.randint(-5, 5)), Q(rng.randint(-5, 5))] for _ in range(36)]
    b += [Q(rng.randint(2, 9)) for _ in range(36)]
    box, _, _ = polytope_box(Polytope(A, b))
    assert all(-1 <= lo <= hi <= 1 for lo, hi in box)
