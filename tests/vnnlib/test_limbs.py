"""Integer matrices as int64 limbs (symrel.vnnlib.limbs) against Python integers."""

import random

import pytest

np = pytest.importorskip("numpy")
from symrel.vnnlib import limbs  # noqa: E402


def _rows(rng, m, n, bits):
    return [[rng.randint(-(1 << bits), 1 << bits) for _ in range(n)] for _ in range(m)]


def test_operations_agree_with_python_integers():
    rng = random.Random(5)
    for _ in range(80):
        m, k, n = rng.randint(1, 5), rng.choice([1, 3, 7, 600]), rng.randint(1, 4)  # k = 600: the int64 product
        A, W = _rows(rng, m, k, rng.randint(0, 150)), _rows(rng, k, n, rng.randint(0, 90))
        XA = limbs.from_ints(A)
        assert limbs.to_ints(XA) == A
        assert limbs.to_ints(limbs.matmul(XA, limbs.from_ints(W))) == \
            [[sum(a * w for a, w in zip(r, c)) for c in zip(*W)] for r in A]
        sh = rng.randint(-60, 200)
        assert limbs.to_ints(limbs.floor_shift(XA, sh)) == [[v >> sh if sh >= 0 else v << -sh for v in r] for r in A]
        F = _rows(rng, m, k, 16)
        assert limbs.to_ints(limbs.scale(XA, np.array(F, dtype=np.int64))) == \
            [[a * f for a, f in zip(r, g)] for r, g in zip(A, F)]
        assert limbs.negative(XA).tolist() == [[v < 0 for v in r] for r in A]
        B = _rows(rng, m, k, rng.randint(0, 150))
        assert limbs.to_ints(limbs.add(XA, limbs.from_ints(B))) == [[a + b for a, b in zip(r, s)] for r, s in zip(A, B)]


def test_extreme_limbs_stay_exact():
    B = limbs.LIMB_BITS
    for a, w in ((-(1 << 3 * B), -(1 << 2 * B)), ((1 << 3 * B) - 1, (1 << 2 * B) - 1)):
        got = limbs.to_ints(limbs.matmul(limbs.from_ints([[a] * 512]), limbs.from_ints([[w]] * 512)))
        assert got == [[512 * a * w]]


def test_too_many_terms_is_refused():
    with pytest.raises(limbs.TooWide):
        limbs.matmul(np.zeros((1, 1, 1 << 17), dtype=np.int64), np.zeros((1, 1 << 17, 1), dtype=np.int64))


def _value(X):
    """The integers of a limb matrix, whatever its limbs (sum of limb l times 2^(B l))."""
    return [[sum(int(X[l, i, j]) << (limbs.LIMB_BITS * l) for l in range(X.shape[0])) for j in range(X.shape[2])]
            for i in range(X.shape[1])]


def _normalized(X):
    top, rest = X[-1], X[:-1]
    return bool((rest >= 0).all() and (rest < 1 << limbs.LIMB_BITS).all() and (top >= -(1 << limbs.LIMB_BITS)).all()
                and (top < 1 << limbs.LIMB_BITS).all())


def test_normalize_keeps_the_integers_and_the_fewest_limbs():
    """normalize (the top limb's extremes read once) on raw int64 limbs of every size up to
    2^61: the same integers, normalized, with a top limb that does not fold into the one below
    (unless one limb is all); carries that need new limbs, all-zero and all-minus-one tops,
    and an empty matrix."""
    rng = random.Random(9)
    B = limbs.LIMB_BITS
    for _ in range(400):
        L, m, n = rng.randint(1, 5), rng.randint(1, 4), rng.randint(1, 4)
        bits = rng.choice([0, 1, B - 1, B, B + 1, 40, 61])
        X = np.array([[[rng.randint(-(1 << bits), (1 << bits) - 1) if bits else rng.choice([-1, 0])
                        for _ in range(n)] for _ in range(m)] for _ in range(L)], dtype=np.int64)
        want = _value(X)
        got = limbs.normalize(X)
        assert _value(got) == want and _normalized(got)
        assert got.shape[0] == 1 or not ((got[-1] >= -1).all() and (got[-1] <= 0).all())
        assert np.array_equal(X, X) and _value(X) == want  # not fresh: the argument is left alone
    empty = limbs.normalize(np.zeros((3, 0, 2), dtype=np.int64))
    assert empty.shape == (1, 0, 2)


def test_matmul_of_every_limb_count_and_degenerate_shapes():
    """matmul (one addition per limb of A) against Python integers for limb counts 1 to 4 on
    either side, signs mixed; zero rows and a zero inner dimension give zeros of the right shape."""
    rng = random.Random(4)
    for _ in range(60):
        m, k, n = rng.randint(1, 4), rng.randint(1, 6), rng.randint(1, 4)
        ba, bw = rng.choice([3, 30, 60, 80]), rng.choice([3, 30, 60, 80])
        A = [[rng.randint(-(1 << ba), 1 << ba) for _ in range(k)] for _ in range(m)]
        W = [[rng.randint(-(1 << bw), 1 << bw) for _ in range(n)] for _ in range(k)]
        assert limbs.to_ints(limbs.matmul(limbs.from_ints(A), limbs.from_ints(W))) == \
            [[sum(a * w for a, w in zip(r, c)) for c in zip(*W)] for r in A]
    got = limbs.matmul(np.zeros((2, 0, 3), dtype=np.int64), limbs.from_ints([[1, 2], [3, 4], [5, 6]]))
    assert got.shape[1:] == (0, 2)
    got = limbs.matmul(np.zeros((1, 2, 0), dtype=np.int64), np.zeros((1, 0, 3), dtype=np.int64))
    assert limbs.to_ints(got) == [[0, 0, 0], [0, 0, 0]]
