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
