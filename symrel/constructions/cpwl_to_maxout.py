"""CPWL function of one variable -> two-layer maxout net (Paper A, Thm 4.2).

Lattice form (Tarela-Martinez / Ovchinnikov, docs/theory.md#cpwl-functions-theorem-42): with the
affine pieces ``l_1..l_n`` of the segments (outer ones extended),

    f(x) = max_i min_{j in S_i} l_j(x),   S_i = {j : l_j >= l_i on segment i}.

Since ``min = -max(-.)``, layer 1 has one unit ``g_i = max_{j in S_i} (-l_j)``
per segment and layer 2 the single unit ``max_i (-g_i)``. Equal pieces
(collinear neighbours) and repeated sets are merged first.

>>> from symrel.models import CPWL1D
>>> f = CPWL1D([0, 1, 2, 3], [0, 1, 0, 1])     # a zigzag: two lattice sets
>>> net = cpwl_to_maxout(f)
>>> net.widths
[2, 1]
>>> all(net([x]) == f([x]) for x in ("-1", "1/4", "3/2", "3", "29/9"))
True
"""

from __future__ import annotations

from ..exact import Q
from ..models.cpwl import CPWL1D
from ..models.maxout import MaxoutLayer, MaxoutNet, MaxoutUnit


def _above_on_segment(piece, other, lo, hi) -> bool:
    """``other >= piece`` on [lo, hi] (both ends; affine, so ends suffice). Unbounded
    outer segments are checked by the slope as well."""
    (a, c), (b, d) = piece, other
    ok = True
    if lo is not None:
        ok &= b * lo + d >= a * lo + c
    if hi is not None:
        ok &= b * hi + d >= a * hi + c
    if lo is None:  # (-inf, hi]: other - piece must not decrease towards -inf
        ok &= b <= a
    if hi is None:  # [lo, +inf)
        ok &= b >= a
    return bool(ok)


def lattice_sets(f: CPWL1D) -> tuple[list[tuple], list[list[int]]]:
    """The distinct pieces and, for each segment, the set S_i (indices into them)."""
    pieces = []
    index = []
    for p in f.exact_pieces():
        if p not in pieces:
            pieces.append(p)
        index.append(pieces.index(p))
    n = len(f.exact_x) - 1
    sets = []
    for i in range(n):
        lo = f.exact_x[i] if i > 0 else None
        hi = f.exact_x[i + 1] if i < n - 1 else None
        own = pieces[index[i]]
        s = sorted(j for j, q in enumerate(pieces) if _above_on_segment(own, q, lo, hi))
        if s not in sets:
            sets.append(s)
    return pieces, sets


def cpwl_to_maxout(f: CPWL1D) -> MaxoutNet:
    """The two-layer maxout net of the lattice form; equal to ``f`` on all of R."""
    pieces, sets = lattice_sets(f)
    layer1 = MaxoutLayer(
        [MaxoutUnit([[-pieces[j][0]] for j in s], [-pieces[j][1] for j in s], input_dim=1) for s in sets]
    )
    q = len(sets)
    rows = []
    for i in range(q):
        r = [Q(0)] * q
        r[i] = Q(-1)
        rows.append(r)
    layer2 = MaxoutLayer([MaxoutUnit(rows, [Q(0)] * q, input_dim=q)])
    return MaxoutNet(1, [layer1, layer2])
