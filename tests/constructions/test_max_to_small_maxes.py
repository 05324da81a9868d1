"""A maximum of affine functions as a signed sum of maxima of at most n + 1 of them:
checked at random rational points against the maximum itself, and the triangulation check
rejects broken triangulations."""

import random

import pytest

from symrel.errors import InputError
from symrel.exact import Q
from symrel.constructions import max_as_small_maxes
from symrel.constructions.max_to_small_maxes import check_upper_triangulation, upper_triangulation


def _value(piece, x):
    return sum((a * xi for a, xi in zip(piece[0], x)), piece[1])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_identity_at_random_points(n):
    rng = random.Random(n)
    for _ in range(15):
        cone = rng.random() < 0.3                  # all through one point: coplanar lifted slopes
        pieces = []
        for _ in range(rng.randint(1, 8)):
            a = [Q(rng.randint(-3, 3)) for _ in range(n)]
            pieces.append((a, -sum(a) if cone else Q(rng.randint(-4, 4))))
        terms = max_as_small_maxes(pieces)
        assert all(len(F) <= n + 1 and c in (1, -1) for c, F in terms)
        for _ in range(25):
            x = [Q(rng.randint(-20, 20), rng.randint(1, 5)) for _ in range(n)]
            assert sum(c * max(_value(pieces[i], x) for i in F) for c, F in terms) == max(_value(p, x) for p in pieces)


def test_check_rejects_broken_triangulations():
    pts = [[Q(0), Q(0)], [Q(1), Q(0)], [Q(0), Q(1)], [Q(1), Q(1)]]
    hts = [Q(0), Q(0), Q(0), Q(1)]
    tri = upper_triangulation(pts, hts)
    assert check_upper_triangulation(pts, hts, tri) is None
    assert check_upper_triangulation(pts, hts, tri + [tri[0]]) is not None        # a simplex twice
    assert check_upper_triangulation(pts, hts, tri[:1]) is not None               # a simplex removed
    assert "above" in check_upper_triangulation(pts, hts, [(0, 1, 2), (1, 2, 3)])  # the other diagonal
    assert check_upper_triangulation(pts, hts[:3] + [Q(1, 10**6)], [(0, 1, 2), (1, 2, 3)]) is not None
    assert check_upper_triangulation(pts, [Q(0)] * 4, [(0, 1, 2), (1, 2, 3)]) is None   # flat: any one


def test_equal_slopes_keep_the_larger_constant():
    pieces = [([Q(1)], Q(0)), ([Q(1)], Q(2))]
    assert max_as_small_maxes(pieces) == [(1, (1,))]
