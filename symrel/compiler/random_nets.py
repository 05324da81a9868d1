"""Random maxout nets with small rational weights, for tests and benchmarks.

>>> net = random_maxout(seed=1, input_dim=2, depth=2, width=3, rank=2)
>>> net.widths, net.layers[0].ranks
([3, 3], [2, 2, 2])
"""

from __future__ import annotations

import random

from ..exact import Q
from ..models import AffineMap, MaxoutLayer, MaxoutNet, MaxoutUnit


def _r(rng: random.Random, den: int):
    return Q(rng.randint(-2 * den, 2 * den), rng.randint(1, den))


def random_maxout(seed: int, input_dim: int, depth: int, width: int, rank: int,
                  *, denominator: int = 4, outputs: int = 1, vary: bool = False) -> MaxoutNet:
    """A maxout net with ``depth`` layers of ``width`` units of rank ``rank`` (with ``vary``,
    widths in 1..width and ranks in 1..rank), weights ``p/q`` with |p/q| <= 2 and
    ``q <= denominator``, and a random affine read-out with ``outputs`` rows."""
    rng = random.Random(seed)
    n, layers = input_dim, []
    for _ in range(depth):
        q = rng.randint(1, width) if vary else width
        units = []
        for _ in range(q):
            k = rng.randint(1, rank) if vary else rank
            units.append(MaxoutUnit([[_r(rng, denominator) for _ in range(n)] for _ in range(k)],
                                    [_r(rng, denominator) for _ in range(k)], input_dim=n))
        layers.append(MaxoutLayer(units))
        n = q
    readout = AffineMap([[_r(rng, denominator) for _ in range(n)] for _ in range(outputs)],
                        [_r(rng, denominator) for _ in range(outputs)], input_dim=n)
    return MaxoutNet(input_dim, layers, readout)
