"""Random preorders and retrieval tasks for tests, benchmarks and proofs (seeded).

>>> P = random_complete_preorder(30, classes=8, seed=1)
>>> P.is_complete(), len(P.indifference_classes()) <= 8
(True, True)
>>> task = random_retrieval_task(4, 6, seed=2)
>>> len(task.queries), len(task.keys)
(4, 6)
"""

from __future__ import annotations

import random

from ..exact import Q
from .preorder import Preorder
from .task import RetrievalTask


def element_names(n: int, prefix: str = "e") -> list[str]:
    """``["e0", "e1", ...]``."""
    return [f"{prefix}{i}" for i in range(n)]


def random_complete_preorder(n: int, *, classes: int | None = None, seed: int = 0, prefix: str = "e") -> Preorder:
    """A complete preorder on n named elements: each element gets a random level
    among ``classes`` (default about n/3, so ties are common)."""
    rng = random.Random(seed)
    levels = classes if classes is not None else max(1, n // 3)
    return Preorder.from_utility({x: rng.randrange(levels) for x in element_names(n, prefix)})


def random_preorder(n: int, *, density: float = 0.3, seed: int = 0, prefix: str = "e") -> Preorder:
    """A preorder, usually incomplete: the reflexive-transitive closure of random pairs."""
    rng = random.Random(seed)
    names = element_names(n, prefix)
    pairs = [(x, y) for x in names for y in names if x != y and rng.random() < density / n]
    return Preorder.from_pairs(names, pairs).closure()


def random_retrieval_task(
    queries: int, keys: int, *, dim: int = 2, classes: int | None = None, seed: int = 0, spread: int = 20
) -> RetrievalTask:
    """A task with integer feature vectors (distinct) in ``[-spread, spread]^dim`` and a random
    complete preorder with ties per query."""
    rng = random.Random(seed)

    def points(count: int, prefix: str) -> dict:
        seen, out = set(), {}
        while len(out) < count:
            x = tuple(rng.randint(-spread, spread) for _ in range(dim))
            if x not in seen:
                seen.add(x)
                out[f"{prefix}{len(out)}"] = [Q(v) for v in x]
        return out

    key_points, query_points = points(keys, "k"), points(queries, "q")
    preorders = {
        q: random_complete_preorder(keys, classes=classes or max(2, keys // 3), seed=rng.randrange(2**31), prefix="k")
        for q in query_points
    }
    return RetrievalTask(key_points, query_points, preorders)
