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
* two simplices whose interiors meet (overlapping simplices);
* (d >= 3) two simplices with disjoint interiors that meet in more than their common
  face: facets crossing in one plane, an edge through a facet, two crossing edges, with
  no vertex of either inside the other.

Interiors are compared pairwise among simplices whose bounding boxes meet
(:class:`~symrel.models.mesh_index.GridIndex`): first by a separating facet (every
vertex of one simplex has barycentric coordinate ``<= 0`` for some facet of the other;
for d <= 2 one always exists when the interiors are disjoint), otherwise by the exact LP
``x = sum lambda_i a_i = sum mu_j b_j`` with ``lambda, mu > 0``.
Together these decide conformity exactly for d <= 2. For d >= 3 the last case is the
*common-face test*: two closed simplices a, b with shared vertices V meet exactly in
``conv(V)`` (a face of both) iff no point of ``a`` and ``b`` has a positive barycentric
coordinate (in a) at a vertex of a outside V, one exact LP. It is needed only when no
facet separates the two, or when a descent through the faces of a (facet i separates:
a and b meet in the face of b spanned by its vertices with ``lambda_i = 0``; within it,
another coordinate may be ``<= 0`` at all its vertices, and so on) does not end in a face
of b whose vertices are all shared; so every pair meets in a common face or not at all, in any
dimension.

>>> check_mesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]])
>>> check_mesh([[0, 0], [2, 0], [0, 2], [1, 1], [2, 2]], [[0, 1, 2], [1, 4, 3], [3, 4, 2]])
Traceback (most recent call last):
...
symrel.errors.InputError: simplices[0]: vertex 3 lies on the boundary of simplex 0 without being one of its vertices (a hanging vertex: the mesh is not conforming)

Cost: O(n) simplex inversions, plus O(d^2) per pair of simplices with meeting boxes (and
in d >= 3 one or two small exact LPs per pair that no facet separates, or whose
separating hyperplane holds an unshared vertex).
"""

from __future__ import annotations

import math
from typing import Sequence

from ..errors import InputError
from ..exact import Q, denominator, numerator, rational
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
    from ..exact.lp import feasibility  # needed in dimension 3 and more only: loaded then

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
    # only the signs of barycentric coordinates are read below: integer multiples of them
    # (each row and each point scaled by a positive integer) have the same signs, and cost less
    rows_of = [[_integer_vector(row) for row in s.inverse] for s in parsed]
    points = [_integer_vector(list(v) + [Q(1)]) for v in vertices]
    memo: dict[tuple[int, int], list[int]] = {}

    def coordinates(a, v):
        """(A positive multiple of) the barycentric coordinates of vertex v in simplex a."""
        lam = memo.get((a, v))
        if lam is None:
            lam = memo[(a, v)] = [sum(r * x for r, x in zip(row, points[v])) for row in rows_of[a]]
        return lam

    for k, l in index.pairs():
        # coords[(a, b)]: the coordinates in simplex a of each vertex of simplex b
        coords = {(a, b): [coordinates(a, v) for v in simplices[b]] for a, b in ((k, l), (l, k))}
        for first, second in ((k, l), (l, k)):
            _vertices_outside(first, second, simplices, coords[(first, second)], p)
        first, second = k, l
        facet = _separating_facet(coords[(k, l)])
        if facet is None:
            first, second = l, k
            facet = _separating_facet(coords[(l, k)])
        if facet is None and dim <= 2:
            raise InputError(f"simplices {k} and {l} overlap (their interiors meet)", path=f"{p}simplices[{l}]")
        if dim <= 2:
            continue
        shared = set(simplices[k]) & set(simplices[l])
        if facet is not None and _common_face_by_descent(coords[(first, second)], simplices[second], shared, facet):
            continue
        # one LP decides both: meeting interiors also meet beyond the common face
        if _meet_beyond(parsed[k], [j for j, i in enumerate(simplices[k]) if i not in shared], parsed[l]):
            if facet is None and _interiors_meet(parsed[k], parsed[l]):
                raise InputError(f"simplices {k} and {l} overlap (their interiors meet)", path=f"{p}simplices[{l}]")
            raise InputError(f"simplices {k} and {l} meet in more than a common face (their faces cross without a "
                             "vertex of either inside the other: the mesh is not conforming)",
                             path=f"{p}simplices[{l}]")


def _integer_vector(v) -> list[int]:
    """The rational vector v times the least common multiple of its denominators."""
    m = 1
    for x in v:
        m = math.lcm(m, denominator(x))
    return [numerator(x) * (m // denominator(x)) for x in v]


def _vertices_outside(k, l, simplices, coords, p):
    """No vertex of simplex l that is not a vertex of simplex k lies in closed simplex k
    (``coords``: the barycentric coordinates in k of the vertices of l)."""
    own = set(simplices[k])
    for i, lam in zip(simplices[l], coords):
        if i in own:
            continue
        if min(lam) < 0:
            continue
        if min(lam) > 0:
            raise InputError(f"simplices {k} and {l} overlap: vertex {i} of simplex {l} lies inside simplex {k}",
                             path=f"{p}simplices[{l}]")
        raise InputError(f"vertex {i} lies on the boundary of simplex {k} without being one of its vertices "
                         "(a hanging vertex: the mesh is not conforming)", path=f"{p}simplices[{k}]")


def _separating_facet(coords) -> int | None:
    """Some i such that facet i of a has every vertex of b on its outer closed side, or
    None (``coords``: the barycentric coordinates in a of the vertices of b)."""
    return next((i for i in range(len(coords[0])) if all(lam[i] <= 0 for lam in coords)), None)


def _common_face_by_descent(coords, b_ids, shared, i: int) -> bool:
    """True when a and b, with facet i of a separating them, are shown to meet in a common
    face without an LP (``coords``: the barycentric coordinates in a of b's vertices
    ``b_ids``). If ``lambda_j <= 0`` at every vertex of b's face G (first all of b), a and b
    meet within ``{lambda_j = 0}``, so in a's face there and in the face of G spanned by its
    vertices with ``lambda_j = 0``; repeat while G has an unshared vertex. Once all of G's
    vertices are shared, a and b meet in ``conv(G)``, a face of both."""
    used = {i}
    face = [(v, lam) for v, lam in zip(b_ids, coords) if lam[i] == 0]
    while not all(v in shared for v, _ in face):
        j = next((j for j in range(len(coords[0])) if j not in used and all(lam[j] <= 0 for _, lam in face)), None)
        if j is None:
            return False
        used.add(j)
        face = [(v, lam) for v, lam in face if lam[j] == 0]
    return True


def _meet_beyond(a: Simplex, outside: list[int], b: Simplex) -> bool:
    """Exact LP: some x in both closed simplices with ``sum_(i in outside) lambda_i(x) > 0``
    (lambda the barycentric coordinates in a), i.e. a and b meet beyond the face of a
    spanned by its other vertices."""
    if not outside:
        return False
    from ..exact.lp import feasibility  # needed in dimension 3 and more only: loaded then

    A, rhs = [], []
    for s in (a, b):
        for row in s.inverse:              # lambda_i(x) = row . [x; 1] >= 0
            A.append([-v for v in row[:-1]])
            rhs.append(row[-1])
    total = [sum((a.inverse[i][j] for i in outside), Q(0)) for j in range(a.dim + 1)]
    A.append([-v for v in total[:-1]])
    rhs.append(total[-1])
    return feasibility(A, rhs, strict=[False] * (len(A) - 1) + [True], method="exact").feasible
