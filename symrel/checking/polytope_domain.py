"""The domain-box step of an equivalence certificate on a polytope (:mod:`symrel.checking.equivalence`
loads it for a polytope domain only): the polytope lies in the recorded box (LP duality, one
pair of dual vectors per coordinate), and it is not empty (a recorded point of it, its
lexicographic minimum, shown so by dual vectors), so that a claim over it is not vacuous.
"""

from __future__ import annotations

from ..exact import Q
from ..exact.sizes import check_product_bits, fan_in_bits, number_bits

ZERO = Q(0)


def _bounded(A, b, *vectors, replay) -> None:
    """Refuse, before they are computed, sums of recorded multipliers times the rows ``A``, ``b``
    whose numbers could pass the arithmetic limits (:mod:`symrel.exact.sizes`): the bits of
    the rows and of each vector over their common denominators, added."""
    rows = number_bits([v for row in A for v in row] + list(b), where="inputs.domain.object")
    for vec in vectors:
        check_product_bits(rows + number_bits(vec, where=replay.here + replay.field()) + fan_in_bits(len(A) + 1),
                           where=replay.here + replay.field(), what="a combination of the domain's rows")


def check_polytope_box(P, box, duals, replay):
    """The polytope ``{x : A x <= b}`` lies in the box: for each coordinate i, vectors
    ``y, y' >= 0`` with ``A^T y = -e_i``, ``A^T y' = e_i``, ``b^T y = -lo_i``, ``b^T y' = hi_i``."""
    A, b = P.exact_halfspaces()
    if len(box) != P.dim or not isinstance(duals, list) or len(duals) != P.dim:
        replay.fail("one interval and one pair of dual vectors per coordinate expected")
    for i, ((lo, hi), pair) in enumerate(zip(box, duals)):
        replay.where = f".certificate.duals[{i}]"
        if not isinstance(pair, list) or len(pair) != 2:
            replay.fail(f"coordinate {i}: expected a pair of dual vectors [y, y']")
        for sense, bound, y in ((-1, -lo, pair[0]), (1, hi, pair[1])):
            if not isinstance(y, list) or len(y) != len(A):
                replay.fail(f"coordinate {i}: a dual vector must have one entry >= 0 per inequality")
            y = [replay.number(v, f"[{(sense + 1) // 2}][{r}]") for r, v in enumerate(y)]
            if any(v < 0 for v in y):
                replay.fail(f"coordinate {i}: a dual vector must have one entry >= 0 per inequality")
            _bounded(A, b, y, replay=replay)
            if any(sum((yr * row[k] for yr, row in zip(y, A)), ZERO) != (sense if k == i else 0) for k in range(P.dim)):
                replay.fail(f"coordinate {i}: A^T y is not {'+' if sense > 0 else '-'}e_{i}")
            if sum((yr * br for yr, br in zip(y, b)), ZERO) != bound:
                replay.fail(f"coordinate {i}: b^T y differs from the recorded bound")


def check_witness(P, box, first, replay):
    """The recorded witness w is the lexicographically smallest point of the polytope
    ``D = {x : A x <= b}``: it lies in D; ``w_0`` is the box's lower bound ``lo_0`` (the minimum
    of x_0 over D, by the box's dual); and for k >= 1 the recorded ``[y, mu]`` (``y >= 0``, one
    entry per inequality; ``mu``, k entries of any sign) has ``A^T y + sum_(j<k) mu_j e_j = -e_k``
    and ``b^T y + sum_(j<k) mu_j w_j = -w_k``, so ``x_k >= w_k`` on the points of D that agree
    with w before k.

    So D is not empty (a claim "for all x in D" over an empty D would hold of any two models),
    and the point is canonical: no number of the record can move without notice. Cost:
    O(d^2 m) operations for d coordinates and m inequalities."""
    replay.where = ".certificate.witness"
    point = first.get("witness")
    if not isinstance(point, list) or len(point) != P.dim:
        replay.fail(f"a polytope domain needs a recorded point of it (witness: {P.dim} coordinates, its "
                    "lexicographic minimum), so that the claim is not vacuous")
    w = [replay.number(v, f"[{i}]") for i, v in enumerate(point)]
    A, b = P.exact_halfspaces()
    _bounded(A, b, w, replay=replay)
    for r, (row, c) in enumerate(zip(A, b)):
        if sum((a * v for a, v in zip(row, w)), ZERO) > c:
            replay.fail(f"the witness is not a point of the domain: it violates inequality {r}")
    if w[0] != box[0][0]:
        replay.fail(f"the witness's first coordinate {w[0]} is not the box's lower bound {box[0][0]}")
    lex = first.get("lex")
    replay.where = ".certificate.lex"
    if not isinstance(lex, list) or len(lex) != P.dim - 1:
        replay.fail(f"expected {P.dim - 1} pairs [y, mu] showing the witness lexicographically smallest")
    for k, entry in enumerate(lex, start=1):
        replay.where = f".certificate.lex[{k - 1}]"
        if not isinstance(entry, list) or len(entry) != 2 or not isinstance(entry[0], list) \
                or not isinstance(entry[1], list) or len(entry[0]) != len(A) or len(entry[1]) != k:
            replay.fail(f"expected [y, mu]: y with one entry per inequality, mu with {k} entries")
        y = [replay.number(v, f"[0][{r}]") for r, v in enumerate(entry[0])]
        mu = [replay.number(v, f"[1][{j}]") for j, v in enumerate(entry[1])]
        if any(v < 0 for v in y):
            replay.fail("y must be >= 0")
        _bounded(A, b, y, mu + w, replay=replay)
        for c in range(P.dim):
            total = sum((yr * row[c] for yr, row in zip(y, A) if yr), ZERO) + (mu[c] if c < k else ZERO)
            if total != (-1 if c == k else 0):
                replay.fail(f"A^T y + sum mu_j e_j is not -e_{k} (coordinate {c})")
        if sum((yr * br for yr, br in zip(y, b)), ZERO) + sum((mj * wj for mj, wj in zip(mu, w)), ZERO) != -w[k]:
            replay.fail(f"b^T y + sum mu_j w_j is not -w_{k}: the witness is not the lexicographic minimum")
