"""A uniform grid over the bounding boxes of simplices: candidates for point location and
for pairs of simplices that may meet.

The bounding box of all vertices is cut into ``g`` equal slabs per axis; a simplex is
filed under every grid cell its own bounding box meets. The cell of a coordinate is
``floor((x - lo) g / (hi - lo))`` (clamped), computed exactly, and is monotone in x, so a
point of a simplex's box always falls in a cell the simplex is filed under: the
candidates are complete, never a float guess.

>>> from symrel.exact import Q
>>> idx = GridIndex([[Q(0), Q(0)], [Q(1), Q(1)]], [([Q(0), Q(0)], [Q(1), Q(1)])], 2)
>>> idx.candidates([Q(1, 2), Q(1, 4)])
[0]

Cost: building O(sum of cells per box); a query O(d + candidates).
"""

from __future__ import annotations

import itertools
from typing import Sequence

from ..exact import Rational, floor


class GridIndex:
    """Boxes ``(lower, upper)`` filed under the grid cells they meet."""

    def __init__(self, bounds: Sequence[Sequence[Rational]], boxes, per_axis: int):
        (self.lo, self.hi) = (list(bounds[0]), list(bounds[1]))
        self.g = max(1, per_axis)
        self.cells: dict[tuple, list[int]] = {}
        self.boxes = list(boxes)
        for k, (lower, upper) in enumerate(self.boxes):
            ranges = [range(self._cell(i, lower[i]), self._cell(i, upper[i]) + 1) for i in range(len(lower))]
            for cell in itertools.product(*ranges):
                self.cells.setdefault(cell, []).append(k)

    def _cell(self, i: int, x: Rational) -> int:
        width = self.hi[i] - self.lo[i]
        if not width:
            return 0
        return min(max(floor((x - self.lo[i]) * self.g / width), 0), self.g - 1)

    def candidates(self, x: Sequence[Rational]) -> list[int]:
        """The boxes filed under the cell of point x (every box holding x is among them)."""
        return self.cells.get(tuple(self._cell(i, v) for i, v in enumerate(x)), [])

    def pairs(self):
        """Every pair ``k < l`` of boxes that meet (closed boxes), each once."""
        seen = set()
        for members in self.cells.values():
            for k, l in itertools.combinations(members, 2):
                if (k, l) in seen:
                    continue
                seen.add((k, l))
                (lk, uk), (ll, ul) = self.boxes[k], self.boxes[l]
                if all(a <= d and c <= b for a, b, c, d in zip(lk, uk, ll, ul)):
                    yield k, l
