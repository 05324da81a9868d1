"""Random models with rational weights, for tests, benchmarks and proofs/ scripts.

Weights are ``p/q`` with ``|p| <= max_num`` and ``1 <= q <= max_den``, drawn
from a :class:`random.Random` so that every instance is reproducible from a seed.

>>> import random
>>> net = random_maxout_net(random.Random(0), 2, [3, 2], rank=3)
>>> net.widths, net.layers[0].ranks
([3, 2], [3, 3, 3])
"""

from __future__ import annotations

import random as _random
from typing import Sequence

from ..exact import Q, Rational
from ..models.affine import AffineMap
from ..models.cpwl import CPWL1D
from ..models.maxout import MaxoutLayer, MaxoutNet, MaxoutUnit
from ..models.relu import DenseLayer, ReLUNet


def random_rational(rng: _random.Random, max_num: int = 100, max_den: int = 100) -> Rational:
    """A random rational ``p/q``, ``|p| <= max_num``, ``1 <= q <= max_den``."""
    return Q(rng.randint(-max_num, max_num), rng.randint(1, max_den))


def random_matrix(rng, m: int, n: int, max_num: int = 100, max_den: int = 100) -> list[list[Rational]]:
    return [[random_rational(rng, max_num, max_den) for _ in range(n)] for _ in range(m)]


def random_maxout_net(
    rng: _random.Random,
    input_dim: int,
    widths: Sequence[int],
    rank: int | Sequence[int] = 2,
    readout_dim: int | None = 1,
    max_num: int = 100,
    max_den: int = 100,
) -> MaxoutNet:
    """A maxout net with the given widths; ``rank`` is one rank for every unit or a
    range ``(lo, hi)`` drawn per unit; ``readout_dim=None`` means no read-out."""
    layers, n = [], input_dim
    for q in widths:
        units = []
        for _ in range(q):
            k = rank if isinstance(rank, int) else rng.randint(rank[0], rank[1])
            units.append(MaxoutUnit(random_matrix(rng, k, n, max_num, max_den),
                                    [random_rational(rng, max_num, max_den) for _ in range(k)], input_dim=n))
        layers.append(MaxoutLayer(units))
        n = q
    readout = None
    if readout_dim is not None:
        readout = AffineMap(random_matrix(rng, readout_dim, n, max_num, max_den),
                            [random_rational(rng, max_num, max_den) for _ in range(readout_dim)])
    return MaxoutNet(input_dim, layers, readout)


def random_relu_net(rng: _random.Random, input_dim: int, widths: Sequence[int], output_dim: int = 1,
                    max_num: int = 100, max_den: int = 100) -> ReLUNet:
    """A ReLU net with hidden ``widths`` and a final linear layer of ``output_dim``."""
    layers, n = [], input_dim
    for w in list(widths) + [output_dim]:
        act = "relu" if len(layers) < len(widths) else "none"
        layers.append(DenseLayer(random_matrix(rng, w, n, max_num, max_den),
                                 [random_rational(rng, max_num, max_den) for _ in range(w)], act))
        n = w
    return ReLUNet(input_dim, layers)


def random_cpwl1d(rng: _random.Random, breakpoints: int, max_num: int = 20, max_den: int = 10) -> CPWL1D:
    """A CPWL function with ``breakpoints`` sorted distinct rational breakpoints."""
    xs: set = set()
    while len(xs) < breakpoints:
        xs.add(random_rational(rng, max_num, max_den))
    return CPWL1D(sorted(xs), [random_rational(rng, max_num, max_den) for _ in xs])


def random_point(rng: _random.Random, dim: int, max_num: int = 100, max_den: int = 100) -> list[Rational]:
    return [random_rational(rng, max_num, max_den) for _ in range(dim)]
