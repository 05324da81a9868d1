"""The checker's own semantics and reader of domains: boxes and polytopes (docs/format.md).

* a box ``[l_1, u_1] x ... x [l_d, u_d]`` (``kind: "box"``, ``bounds``: the intervals, each
  ``lower <= upper``);
* a polytope ``{x : A x <= b}`` (``kind: "polytope"``, at least one inequality and one
  variable; it may be empty, which the claims' checkers decide).

A refusal names the JSON path. Cost: one pass over the numbers.

>>> D = READERS["box"]({"symrel": 1, "kind": "box", "bounds": [[0, 1], ["-1/2", 2]]}, "d")
>>> D.dim, [str(v) for v in D.exact_halfspaces()[1]]
(2, ['1', '0', '2', '1/2'])
"""

from __future__ import annotations

from ..exact import Q, format_rational
from . import MalformedCertificate
from .inputs import listed, matrix, need, vector
from .read import join

ZERO = Q(0)


class Box:
    """``[l_1, u_1] x ... x [l_d, u_d]``: ``exact_bounds`` the pairs ``(l_i, u_i)``, ``l_i <= u_i``."""

    kind = "box"

    def __init__(self, bounds: list):
        self.exact_bounds = [tuple(iv) for iv in bounds]
        self.dim = len(self.exact_bounds)

    def exact_halfspaces(self) -> tuple:
        """``(A, b)`` with the box equal to ``{x : A x <= b}``: ``x_i <= u_i``, ``-x_i <= -l_i``."""
        A, b = [], []
        for i, (lo, hi) in enumerate(self.exact_bounds):
            e = [ZERO] * self.dim
            e[i] = Q(1)
            A.append(list(e))
            b.append(hi)
            e[i] = Q(-1)
            A.append(list(e))
            b.append(-lo)
        return A, b


class Polytope:
    """``{x : A x <= b}``: ``A`` at least one row and one column, ``b`` one number per row."""

    kind = "polytope"

    def __init__(self, A: list, b: list):
        self._A, self._b = [list(r) for r in A], list(b)
        self.dim = len(A[0])

    def exact_halfspaces(self) -> tuple:
        return [list(r) for r in self._A], list(self._b)


def _box(obj, path: str) -> Box:
    bounds = []
    for i, iv in enumerate(listed(obj, "bounds", path)):
        lo, hi = vector(iv, f"{path}.bounds[{i}]", 2)
        if lo > hi:
            raise MalformedCertificate(f"expected lower <= upper, got [{format_rational(lo)}, {format_rational(hi)}]",
                                       path=f"{path}.bounds[{i}]")
        bounds.append((lo, hi))
    return Box(bounds)


def _polytope(obj, path: str) -> Polytope:
    A = matrix(listed(obj, "A", path), join(path, "A"))
    if not A[0]:
        raise MalformedCertificate("expected at least one variable", path=f"{path}.A[0]")
    return Polytope(A, vector(need(obj, "b", path), join(path, "b"), len(A)))


READERS = {"box": _box, "polytope": _polytope}
