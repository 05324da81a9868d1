"""The lexicographic minimum of a polytope with its duals (prover.domain_witness)."""

import itertools
import random

from symrel.exact import Q
from symrel.models import Polytope
from symrel.models.domain import polytope_box
from symrel.prover.domain_witness import _shows, lexmin_witness


def _vertices(A, b, d):
    """Every vertex of {A x <= b}, by brute force over d-subsets of the rows (small cases)."""
    from symrel.exact.exact_simplex import inverse

    out = []
    for S in itertools.combinations(range(len(A)), d):
        inv = inverse([A[i] for i in S])
        if inv is None:
            continue
        x = [sum((inv[r][c] * b[S[c]] for c in range(d)), Q(0)) for r in range(d)]
        if all(sum((a * v for a, v in zip(row, x)), Q(0)) <= c for row, c in zip(A, b)):
            out.append(x)
    return out


def test_the_witness_is_the_lexicographically_smallest_vertex_with_its_duals():
    rng = random.Random(7)
    checked = 0
    for _ in range(40):
        d = rng.randint(1, 3)
        A = [[rng.randint(-3, 3) for _ in range(d)] for _ in range(rng.randint(1, 4))]
        A += [[1 if j == i else 0 for j in range(d)] for i in range(d)] + [[-1 if j == i else 0 for j in range(d)] for i in range(d)]
        b = [rng.randint(-1, 4) for _ in range(len(A) - 2 * d)] + [rng.randint(1, 3)] * (2 * d)
        P = Polytope(A, b)
        try:
            box, _, _ = polytope_box(P)
        except Exception:       # empty: no witness to find
            continue
        w, lex = lexmin_witness(P, box)
        Ae, be = P.exact_halfspaces()
        assert w == min(_vertices(Ae, be, d))
        assert all(_shows(Ae, be, w, k, y, mu) for k, (y, mu) in enumerate(lex, start=1))
        checked += 1
    assert checked >= 10
