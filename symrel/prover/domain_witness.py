"""The lexicographically smallest point of a bounded polytope, with the LP duals that show it
(recorded by the ``domain-box`` step of an equivalence certificate over a polytope).

A claim "for all x in D" over an empty D holds of any two models, so the checker asks for a
point of D. A point that could be moved without notice would be a number that proves nothing,
so the point is canonical: the lexicographic minimum w of D = {x : A x <= b}. Its first
coordinate is the box's lower bound ``lo_0`` (shown by the box's own dual); for k >= 1, a
vector ``y >= 0`` and multipliers ``mu`` with ``A^T y + sum_(j<k) mu_j e_j = -e_k`` and
``b^T y + sum_(j<k) mu_j w_j = -w_k`` show ``x_k >= w_k`` on the points of D that agree with w
before k. Cost: d - 1 exact LPs of m + 2k rows.

>>> from symrel.models import Polytope
>>> w, lex = lexmin_witness(Polytope([[-1, 0], [0, -1], [1, 1]], [0, 0, 1]), [(0, 1), (0, 1)])
>>> [str(v) for v in w], [[str(v) for v in y] for y, _ in lex], [[str(v) for v in mu] for _, mu in lex]
(['0', '0'], [['0', '1', '0']], [['0']])
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import Q
from ..models.domain import vertex_coordinate_bound


def lexmin_witness(domain, box) -> tuple[list, list]:
    """``(w, [(y, mu) for k = 1 .. d-1])`` for the polytope ``domain`` inside ``box`` (its exact
    bounding box, ``box[0][0]`` the minimum of x_0): module docstring."""
    from ..exact.exact_simplex import exact_simplex

    A, b = domain.exact_halfspaces()
    m, d = len(A), domain.dim
    w = [box[0][0]]
    lex = []
    for k in range(1, d):
        fixed = [[Q(1) if c == j else Q(0) for c in range(d)] for j in range(k)]
        rows = A + fixed + [[-v for v in r] for r in fixed]
        rhs = b + w + [-v for v in w]
        H = vertex_coordinate_bound(rows, rhs)
        K = Q(2 * H + 1)
        objective = [Q(1) / K if c == k else Q(0) for c in range(d)]     # t <= (H - x_k) / K
        out = exact_simplex(A + [objective], b + [Q(H) / K], C=fixed, d=w, sigma=[Q(0)] * m + [Q(1)])
        if out["status"] != "optimal" or out["t"] >= 1:
            raise InputError("expected a non-empty bounded polytope", path="domain")
        w.append(H - K * out["t"])
        y = [K * v for v in out["y"][:m]]
        mu = [K * v for v in out["z"]]
        if not _shows(A, b, w, k, y, mu):
            mu = [-v for v in mu]
        if not _shows(A, b, w, k, y, mu):
            raise InputError(f"no exact dual for coordinate {k + 1} of the lexicographic minimum", path="domain")
        lex.append((y, mu))
    return w, lex


def _shows(A, b, w, k, y, mu) -> bool:
    """Whether ``(y, mu)`` shows ``x_k >= w_k`` on D with ``x_j = w_j`` for j < k."""
    d = len(w)
    if any(v < 0 for v in y):
        return False
    for c in range(d):
        total = sum((yr * row[c] for yr, row in zip(y, A)), Q(0)) + (mu[c] if c < k else 0)
        if total != (-1 if c == k else 0):
            return False
    return sum((yr * br for yr, br in zip(y, b)), Q(0)) + sum((mj * wj for mj, wj in zip(mu, w)), Q(0)) == -w[k]
