"""Reproducible random relation tables, for tests, benchmarks and demos.

>>> rel = random_gram_relation(5, 3, seed=1)
>>> rel.shape, rel.is_symmetric(), gram_rank(rel)
((5, 5), True, 3)
"""

from __future__ import annotations

import random

from ..exact import Q, Rational, from_rationals
from .table import Relation


def random_rational(rng: random.Random, size: int = 5, max_den: int = 3) -> Rational:
    """A rational ``a/b`` with ``|a| <= size`` and ``1 <= b <= max_den``."""
    return Q(rng.randint(-size, size), rng.randint(1, max_den))


def random_points(n: int, d: int, seed: int = 0, size: int = 20) -> list[list[Rational]]:
    """n distinct random rational points in R^d."""
    rng = random.Random(seed)
    seen, out = set(), []
    while len(out) < n:
        p = tuple(random_rational(rng, size, 4) for _ in range(d))
        if p not in seen:
            seen.add(p)
            out.append(list(p))
    return out


def random_gram_relation(n: int, rank: int, seed: int = 0, d: int = 2, size: int = 3, max_den: int = 3) -> Relation:
    """A symmetric PSD relation ``R = B B^T`` (B random ``n x rank``, so
    ``rank R <= rank``, equality almost surely) on n random points of R^d."""
    rng = random.Random(seed)
    B = from_rationals([[random_rational(rng, size, max_den) for _ in range(rank)] for _ in range(n)], (n, rank))
    return Relation(random_points(n, d, seed + 1), B * B.transpose())


def random_relation(n: int, m: int, rank: int, seed: int = 0, dx: int = 2, dy: int = 3) -> Relation:
    """An ``n x m`` relation ``R = B C^T`` of rank at most ``rank`` between random points."""
    rng = random.Random(seed)
    B = from_rationals([[random_rational(rng) for _ in range(rank)] for _ in range(n)], (n, rank))
    C = from_rationals([[random_rational(rng) for _ in range(rank)] for _ in range(m)], (m, rank))
    return Relation(random_points(n, dx, seed + 1), B * C.transpose(), random_points(m, dy, seed + 2))


def gram_rank(relation: Relation) -> int:
    """The rank of the table (Matrix rank)."""
    return relation.exact_R.rank()
