import random

from symrel.exact import affine_batch, from_rationals, rows
from symrel.exact.scaled import ScaledBatch, integer_affine
from symrel.constructions.random import random_matrix


def test_scaled_affine_equals_rational_affine():
    rng = random.Random(1)
    for _ in range(20):
        m, n, N = rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 9)
        W = from_rationals(random_matrix(rng, m, n), (m, n))
        b = from_rationals(random_matrix(rng, m, 1), (m, 1))
        X = from_rationals(random_matrix(rng, n, N, 1000, 1000), (n, N))
        S = ScaledBatch.from_matrix(X).affine(*integer_affine(W, b))
        assert S.to_matrix() == affine_batch(W, b, X)
        assert S.reduced().to_matrix() == S.to_matrix()
        R = S.relu().to_matrix()
        assert rows(R) == [[max(v, 0) for v in r] for r in rows(affine_batch(W, b, X))]


def test_group_max_and_reduction_keep_values():
    X = from_rationals([[v] for v in random_matrix(random.Random(2), 1, 6)[0]], (6, 1))
    S = ScaledBatch.from_matrix(X)
    top = S.max_groups([2, 3, 1]).to_matrix()
    vals = [r[0] for r in rows(X)]
    assert [r[0] for r in rows(top)] == [max(vals[:2]), max(vals[2:5]), vals[5]]
