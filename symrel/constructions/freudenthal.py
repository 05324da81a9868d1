"""The Freudenthal (Kuhn) triangulation of a box, and CPWL functions on it.

Cut the box ``[l_1, u_1] x .. x [l_d, u_d]`` into ``n_1 x .. x n_d`` equal cells; cell c
(its lowest grid corner) is cut into d! simplices, one per permutation ``pi`` of the axes:
``c, c + e_pi(1), c + e_pi(1) + e_pi(2), .., c + e_1 + .. + e_d`` (grid steps). The cells are
all cut the same way, along the main diagonal, so the simplices meet face to face: the
mesh is conforming by construction (Kuhn 1960).

>>> f = freudenthal_mesh([[0, 1], [0, 1]], [2, 2], lambda x: [x[0] * x[1]])
>>> len(f.vertices), len(f.simplices)
(9, 8)
>>> [str(v) for v in f(["1/4", "1/4"])]     # x*y interpolated on the cell [0, 1/2]^2
['1/8']

Cost: ``prod(n_i) d!`` simplices, ``prod(n_i + 1)`` vertices.
"""

from __future__ import annotations

import itertools
from typing import Sequence

from ..errors import InputError
from ..exact import Q, rational
from ..models.cpwl_mesh import CPWLMesh


def freudenthal_simplices(divisions: Sequence[int]) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """The grid points (index tuples, in lexicographic order) and the simplices (indices
    into them) of the Freudenthal triangulation of the ``divisions`` grid."""
    d = len(divisions)
    points = list(itertools.product(*[range(n + 1) for n in divisions]))
    number = {p: i for i, p in enumerate(points)}
    simplices = []
    for corner in itertools.product(*[range(n) for n in divisions]):
        for perm in itertools.permutations(range(d)):
            cur = list(corner)
            simplex = [number[tuple(cur)]]
            for axis in perm:
                cur[axis] += 1
                simplex.append(number[tuple(cur)])
            simplices.append(tuple(simplex))
    return points, simplices


def freudenthal_mesh(bounds, divisions: Sequence[int], values) -> CPWLMesh:
    """The CPWL function on the Freudenthal triangulation of the box ``bounds`` with
    ``divisions[i]`` steps along axis i. ``values`` is a function of the exact grid point
    (returning a number or a list of numbers) or a list of output vectors, one per grid
    point in lexicographic order of the grid indices."""
    if len(bounds) != len(divisions) or not bounds:
        raise InputError(f"expected one division count per interval, got {len(divisions)} for {len(bounds)}",
                         path="divisions")
    for i, n in enumerate(divisions):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InputError(f"expected a number of steps >= 1, got {n!r}", path=f"divisions[{i}]")
    box = [(rational(lo), rational(hi)) for lo, hi in bounds]
    for i, (lo, hi) in enumerate(box):
        if not lo < hi:
            raise InputError(f"expected lower < upper, got [{lo}, {hi}]", path=f"bounds[{i}]")
    grid, simplices = freudenthal_simplices(divisions)
    vertices = [[lo + (hi - lo) * Q(g, n) for g, (lo, hi), n in zip(p, box, divisions)] for p in grid]
    if callable(values):
        vals = []
        for x in vertices:
            y = values(x)
            vals.append(list(y) if isinstance(y, (list, tuple)) else [y])
    else:
        vals = list(values)
    # conforming by construction: only the cheap checks (indices, degeneracy) are run
    return CPWLMesh(vertices, simplices, vals, check=False)


