"""Validation of a simplicial mesh: the conditions FORMAT.md puts on a ``cpwl`` file.

A mesh (vertices in Q^d, simplices of d + 1 vertex indices) is *conforming* when every
simplex is non-degenerate, interiors are disjoint, and any two simplices meet in a common
face or not at all. :func:`check_mesh` refuses, with an :class:`~symrel.errors.InputError`
naming the simplex or vertex:

* an index out of range or repeated in a simplex; a vertex no simplex uses;
  two vertices at the same point;
* a degenerate simplex (affinely dependent vertices);
* a vertex lying in a closed simplex that does not have it as a vertex: inside it
  (overlapping simplices) or on its boundary (a hanging vertex, a non-conforming mesh);
* two simplices whose interiors meet (overlapping simplices).

Interiors are compared pairwise among simplices whose bounding boxes meet
(:class:`~symrel.models.mesh_index.GridIndex`): first by a separating facet (every
vertex of one simplex has barycentric coordinate ``<= 0`` for some facet of the other;
for d <= 2 one always exists when the interiors are disjoint), otherwise by the exact LP
``x = sum lambda_i a_i = sum mu_j b_j`` with ``lambda, mu > 0``.
Together these decide conformity exactly for d <= 2. For d >= 3 one configuration is
not detected: two simplices with disjoint interiors touching along a common plane in
crossing lower-dimensional faces, with no vertex of either inside the other.

>>> check_mesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]])
>>> check_mesh([[0, 0], [2, 0], [0, 2], [1, 1], [2, 2]], [[0, 1, 2], [1, 4, 3], [3, 4, 2]])
Traceback (most recent call last):
...
symrel.errors.InputError: simplices[0]: vertex 3 lies on the boundary of simplex 0 without being one of its vertices (a hanging vertex: the mesh is not conforming)

Cost: O(n) simplex inversions, plus O(d^2) per pair of simplices with meeting boxes (and
one small exact LP per pair no facet separates, in d >= 3).
"""

from __future__ import annotations

from typing import Sequence

from ..errors import InputError
from ..exact import Q, feasibility, rational
from .mesh_index import GridIndex
from .simplex import Simplex


def _text(p) -> str:
    from ..exact import rational_str

    return "(" + ", ".join(rational_str(v) for v in p) + ")"


def simplices_of(vertices, simplices, dim: int, path: str = "") -> list[Simplex]:
    """The :class:`Simplex` of each index list, after the index checks."""
    p = f"{path}." if path else ""
    n = len(vertices)
    out = []
    used = [False] * n
    for k, s in enumerate(simplices):
        sp = f"{p}simplices[{k}]"
        if not isinstance(s, (list, tuple)):
            raise InputError(f"expected a simplex (a list of {dim + 1} vertex indices), got {type(s).__name__}", path=sp)
        if len(s) != dim + 1:
            raise InputError(f"expected {dim + 1} vertex indices (a simplex of R^{dim}), got {len(s)}", path=sp)
        for i in s:
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
                raise InputError(f"expected vertex indices from 0 to {n - 1}, got {i!r}", path=sp)
            used[i] = True
        if len(set(s)) != len(s):
            raise InputError(f"simplex {k} repeats a vertex index ({list(s)})", path=sp)
        simplex = Simplex([vertices[i] for i in s])
        if simplex.inverse is None:
            raise InputError(f"simplex {k} is degenerate: its vertices {list(s)} are affinely dependent", path=sp)
        out.append(simplex)
    if n and not all(used):
        i = used.index(False)
        raise InputError(f"vertex {i} belongs to no simplex", path=f"{p}vertices[{i}]")
    return out


def mesh_index(vertices, simplices: Sequence[Simplex]) -> GridIndex:
    """The grid index of the simplices' bounding boxes (about one simplex per cell)."""
    d = len(vertices[0])
    lo = [min(v[i] for v in vertices) for i in range(d)]
    hi = [max(v[i] for v in vertices) for i in range(d)]
    per_axis = max(1, round(len(simplices) ** (1 / d)))
    return GridIndex((lo, hi), [(s.lower, s.upper) for s in simplices], per_axis)


def _interiors_meet(a: Simplex, b: Simplex) -> bool:
    """Exact LP: some x = sum lambda_i a_i = sum mu_j b_j with every lambda_i, mu_j > 0."""
    d = a.dim
    n = 2 * (d + 1)
    A = [[Q(-1) if c == r else Q(0) for c in range(n)] for r in range(n)]
    C = [[a.points[i][k] for i in range(d + 1)] + [-b.points[j][k] for j in range(d + 1)] for k in range(d)]
    C.append([Q(1)] * (d + 1) + [Q(0)] * (d + 1))
    C.append([Q(0)] * (d + 1) + [Q(1)] * (d + 1))
    return feasibility(A, [Q(0)] * n, C, [Q(0)] * d + [Q(1), Q(1)], strict=[True] * n, method="exact").feasible


def check_mesh(vertices, simplices, *, path: str = "", parsed: list[Simplex] | None = None, index=None) -> None:
    """Raise an InputError naming the simplex or vertex unless the mesh is conforming."""
    p = f"{path}." if path else ""
    vertices = [[rational(x) for x in v] for v in vertices]
    dim = len(vertices[0]) if vertices else 0
    if parsed is None:
        parsed = simplices_of(vertices, simplices, dim, path)
    seen: dict[tuple, int] = {}
    for i, v in enumerate(vertices):
        j = seen.setdefault(tuple(v), i)
        if j != i:
            raise InputError(f"vertices {j} and {i} are the same point {_text(v)}", path=f"{p}vertices[{i}]")
    index = index if index is not None else mesh_index(vertices, parsed)
    for k, l in index.pairs():
        for first, second in ((k, l), (l, k)):
            _vertices_outside(first, second, simplices, vertices, parsed, p)
        if _separated(parsed[k], parsed[l]) or _separated(parsed[l], parsed[k]):
            continue
        if dim <= 2 or _interiors_meet(parsed[k], parsed[l]):
            raise InputError(f"simplices {k} and {l} overlap (their interiors meet)", path=f"{p}simplices[{l}]")


def _vertices_outside(k, l, simplices, vertices, parsed, p):
    """No vertex of simplex l that is not a vertex of simplex k lies in closed simplex k."""
    own = set(simplices[k])
    for i in simplices[l]:
        if i in own:
            continue
        lam = parsed[k].barycentric(vertices[i])
        if min(lam) < 0:
            continue
        if min(lam) > 0:
            raise InputError(f"simplices {k} and {l} overlap: vertex {i} of simplex {l} lies inside simplex {k}",
                             path=f"{p}simplices[{l}]")
        raise InputError(f"vertex {i} lies on the boundary of simplex {k} without being one of its vertices "
                         "(a hanging vertex: the mesh is not conforming)", path=f"{p}simplices[{k}]")


def _separated(a: Simplex, b: Simplex) -> bool:
    """Some facet of a has every vertex of b on its outer closed side."""
    coords = [a.barycentric(q) for q in b.points]
    return any(all(lam[i] <= 0 for lam in coords) for i in range(a.dim + 1))
