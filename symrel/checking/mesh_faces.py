"""The common-face test of the checker's mesh reader, in dimension 3 and more
(:func:`symrel.checking.meshes.check_conforming` loads it there only, with the exact LP).

In dimension d >= 3 two simplices a and b whose interiors a facet keeps apart can still meet
in more than a common face: facets crossing in one plane, an edge through a facet, two
crossing edges, with no vertex of either inside the other. With V the vertices they share,
a and b meet exactly in ``conv(V)`` (a face of both) iff no point of both has a positive
barycentric coordinate (in a) at a vertex of a outside V: one exact LP
(:func:`symrel.exact.lp.feasibility`, method exact). It is needed only when a descent through
the faces of b does not end in shared vertices first (:func:`_common_face_by_descent`), and
when no facet separates a and b a second LP tells an overlap from a crossing, for the message.
Cost: O(d^2) per pair, and one or two LPs of O(d) rows for the pairs the descent leaves.
"""

from __future__ import annotations

from ..exact import Q
from . import MalformedCertificate
from .read import join


def check_common_face(geometry, simplices, k, l, separation, coords, path) -> None:
    """Simplices k and l (``geometry``: their :class:`~symrel.checking.meshes.Simplex`) meet in
    a common face or not at all; ``separation`` is ``(first, second, facet)``, a facet of
    simplex ``first`` with the vertices of ``second`` on its outer closed side (facet None:
    none found), and ``coords[a, b]`` the barycentric coordinates in a of b's vertices."""
    first, second, facet = separation
    shared = set(simplices[k]) & set(simplices[l])
    if facet is not None and _common_face_by_descent(coords[first, second], simplices[second], shared, facet):
        return
    # one LP decides both: meeting interiors also meet beyond the common face
    if _meet_beyond(geometry[k], [j for j, i in enumerate(simplices[k]) if i not in shared], geometry[l]):
        where = f"{join(path, 'simplices')}[{l}]"
        if facet is None and _interiors_meet(geometry[k], geometry[l]):
            raise MalformedCertificate(f"simplices {k} and {l} overlap (their interiors meet)", path=where)
        raise MalformedCertificate(f"simplices {k} and {l} meet in more than a common face (their faces cross without "
                                   "a vertex of either inside the other: the mesh is not conforming)", path=where)


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


def _meet_beyond(a, outside: list, b) -> bool:
    """Exact LP: some x in both closed simplices with ``sum_(i in outside) lambda_i(x) > 0``
    (lambda the barycentric coordinates in a): a and b meet beyond the face of a spanned by
    its other vertices."""
    if not outside:
        return False
    from ..exact.lp import feasibility

    A, rhs = [], []
    for s in (a, b):
        for row in s.inverse:              # lambda_i(x) = row . [x; 1] >= 0
            A.append([-v for v in row[:-1]])
            rhs.append(row[-1])
    total = [sum((a.inverse[i][j] for i in outside), Q(0)) for j in range(a.dim + 1)]
    A.append([-v for v in total[:-1]])
    rhs.append(total[-1])
    return feasibility(A, rhs, strict=[False] * (len(A) - 1) + [True], method="exact").feasible


def _interiors_meet(a, b) -> bool:
    """Exact LP: some x = sum lambda_i a_i = sum mu_j b_j with every lambda_i, mu_j > 0."""
    from ..exact.lp import feasibility

    d = a.dim
    n = 2 * (d + 1)
    A = [[Q(-1) if c == r else Q(0) for c in range(n)] for r in range(n)]
    C = [[a.points[i][k] for i in range(d + 1)] + [-b.points[j][k] for j in range(d + 1)] for k in range(d)]
    C.append([Q(1)] * (d + 1) + [Q(0)] * (d + 1))
    C.append([Q(0)] * (d + 1) + [Q(1)] * (d + 1))
    return feasibility(A, [Q(0)] * n, C, [Q(0)] * d + [Q(1), Q(1)], strict=[True] * n, method="exact").feasible
