"""The exact LP optimum (symrel.exact.lp_optimum): value and vertex, checked exactly."""

import itertools
import random

import pytest

from symrel.exact import Q
from symrel.exact.lp_optimum import maximise


def test_the_maximum_over_a_box_is_at_the_vertex_the_signs_point_to():
    rng = random.Random(1)
    for _ in range(20):
        n = rng.randint(1, 4)
        lo = [Q(rng.randint(-5, 0)) for _ in range(n)]
        hi = [lo[i] + Q(rng.randint(1, 5), rng.randint(1, 3)) for i in range(n)]
        A = [[Q(1) if j == i else Q(0) for j in range(n)] for i in range(n)]
        A += [[Q(-1) if j == i else Q(0) for j in range(n)] for i in range(n)]
        b = hi + [-v for v in lo]
        w = [Q(rng.randint(-4, 4), rng.randint(1, 3)) for _ in range(n)]
        w0 = Q(rng.randint(-3, 30))
        best = max(w0 + sum(a * v for a, v in zip(w, x)) for x in itertools.product(*zip(lo, hi)))
        upper = w0 + sum(max(a * l, a * u) for a, l, u in zip(w, lo, hi)) + 1
        if upper <= 0:
            continue
        out = maximise(A, b, w, w0, upper)
        if best <= 0:
            assert out is None
            continue
        value, x = out
        assert value == best and w0 + sum(a * v for a, v in zip(w, x)) == best
        assert all(l <= v <= u for v, l, u in zip(x, lo, hi))


def test_equality_rows_and_a_wrong_bound():
    A = [[Q(-1), Q(0)], [Q(0), Q(-1)], [Q(1), Q(0)]]       # x, y >= 0, x <= 3
    value, x = maximise(A, [Q(0), Q(0), Q(3)], [Q(1), Q(1)], Q(0), Q(10), C=[[Q(1), Q(-1)]], d=[Q(0)])
    assert value == 6 and x == [3, 3]
    with pytest.raises(ValueError, match="upper bound"):
        maximise(A, [Q(0), Q(0), Q(3)], [Q(1), Q(1)], Q(0), Q(2), C=[[Q(1), Q(-1)]], d=[Q(0)])
    with pytest.raises(ValueError):
        maximise(A, [Q(0), Q(0), Q(3)], [Q(1), Q(1)], Q(0), Q(0))
