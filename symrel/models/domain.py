"""Domains: boxes and H-polytopes ``{x : A x <= b}`` with rational data."""

from __future__ import annotations

import itertools
import random
from typing import TYPE_CHECKING, Iterator, Sequence

from ..errors import DimensionError, InputError

from ..exact import Matrix, PublicView, Q, Rational, dot, flat, format_matrix, format_rational, format_vector, from_rationals, matrix, rational, rows, to_public, vector
from .base import as_point, from_array, require_seq

if TYPE_CHECKING:  # sympy is the public number type, loaded only when a view is made
    import sympy


class Domain:
    """Base class of domains; ``dim`` and ``contains(x)``."""

    kind = "domain"
    dim: int

    def contains(self, x) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def exact_halfspaces(self) -> tuple[list[list[Rational]], list[Rational]]:  # pragma: no cover
        """``(A, b)`` with the domain equal to ``{x : A x <= b}``, in ``QQ`` (for the library)."""
        raise NotImplementedError

    def halfspaces(self) -> tuple[list[list[sympy.Rational]], list[sympy.Rational]]:
        """``(A, b)`` with the domain equal to ``{x : A x <= b}``, as sympy Rationals."""
        return to_public(self.exact_halfspaces())


class Box(Domain):
    """The box ``[l_1, u_1] x ... x [l_d, u_d]``.

    ``bounds``, ``lower()``, ``upper()``, ``center()``, ``vertices()`` and
    ``sample()`` and ``halfspaces()`` give sympy Rationals (the public number type of
    :mod:`symrel.exact.public`); ``exact_bounds`` and ``exact_halfspaces()`` give the
    same numbers as elements of ``QQ``, for the rest of the library.

    >>> from fractions import Fraction
    >>> D = Box([[-1, 1], ["-1/2", 2]])
    >>> D.contains([0, 2]), D.contains([0, 3])
    (True, False)
    >>> len(list(D.vertices()))
    4
    >>> D.bounds[1][0] == Fraction(-1, 2), D.center()
    (True, [0, 3/4])
    """

    kind = "box"

    def __init__(self, bounds, *, path: str = "bounds", exact_floats: bool = False):
        bounds = from_array(bounds, path)
        require_seq(bounds, "intervals", path, min_len=1)
        self.exact_bounds: list[tuple[Rational, Rational]] = []
        for i, iv in enumerate(bounds):
            if not isinstance(iv, (list, tuple)) or len(iv) != 2:
                raise InputError("expected an interval [lower, upper]", path=f"{path}[{i}]")
            lo = rational(iv[0], path=f"{path}[{i}][0]", exact_floats=exact_floats)
            hi = rational(iv[1], path=f"{path}[{i}][1]", exact_floats=exact_floats)
            if lo > hi:
                raise InputError(f"expected lower <= upper, got [{lo}, {hi}]", path=f"{path}[{i}]")
            self.exact_bounds.append((lo, hi))
        self.dim = len(self.exact_bounds)

    @classmethod
    def cube(cls, dim: int, lo=-1, hi=1) -> "Box":
        """``[lo, hi]^dim``."""
        return cls([[lo, hi]] * dim)

    @property
    def bounds(self) -> list[tuple[sympy.Rational, sympy.Rational]]:
        """The intervals ``(l_i, u_i)``, as sympy Rationals."""
        return to_public(self.exact_bounds)

    def contains(self, x) -> bool:
        pt = as_point(x, self.dim)
        return all(lo <= v <= hi for v, (lo, hi) in zip(pt, self.exact_bounds))

    def lower(self) -> list[sympy.Rational]:
        return to_public([lo for lo, _ in self.exact_bounds])

    def upper(self) -> list[sympy.Rational]:
        return to_public([hi for _, hi in self.exact_bounds])

    def center(self) -> list[sympy.Rational]:
        return to_public([(lo + hi) / 2 for lo, hi in self.exact_bounds])

    def vertices(self) -> Iterator[list[sympy.Rational]]:
        """Every vertex (2^d of them, fewer when an interval is a point)."""
        choices = [sorted({lo, hi}) for lo, hi in self.exact_bounds]
        for v in itertools.product(*choices):
            yield to_public(list(v))

    def exact_halfspaces(self):
        A, b = [], []
        for i, (lo, hi) in enumerate(self.exact_bounds):
            e = [Q(0)] * self.dim
            e[i] = Q(1)
            A.append(list(e))
            b.append(hi)
            e[i] = Q(-1)
            A.append(list(e))
            b.append(-lo)
        return A, b

    def to_polytope(self) -> "Polytope":
        A, b = self.exact_halfspaces()
        return Polytope(from_rationals(A, (len(A), self.dim)), b)

    def sample(self, n: int, seed: int = 0, denominator: int = 1000) -> list[list[Rational]]:
        """``n`` random rational points of the box (grid of the given denominator
        inside each interval), reproducible from ``seed``."""
        rng = random.Random(seed)
        pts = []
        for _ in range(n):
            pts.append([lo + (hi - lo) * Q(rng.randint(0, denominator), denominator) for lo, hi in self.exact_bounds])
        return to_public(pts)

    def contains_box(self, other: "Box") -> bool:
        return all(l1 <= l2 and h2 <= h1 for (l1, h1), (l2, h2) in zip(self.exact_bounds, other.exact_bounds))

    def to_json(self) -> dict:
        return {"symrel": 1, "kind": "box", "bounds": [[format_rational(lo), format_rational(hi)] for lo, hi in self.exact_bounds]}

    def __eq__(self, other):
        return isinstance(other, Box) and self.exact_bounds == other.exact_bounds

    def __repr__(self):
        from ..exact.display import REPR_LIMIT, short_text

        return short_text("Box(" + " x ".join(f"[{lo}, {hi}]" for lo, hi in self.exact_bounds) + ")", REPR_LIMIT)


class Polytope(Domain):
    """The H-polytope ``{x : A x <= b}``.

    ``A`` and ``b`` (an ``m x 1`` column) read as ``sympy.ImmutableMatrix`` of Rationals
    (:mod:`symrel.exact.public`), and so does ``halfspaces()``; ``exact_A``, ``exact_b`` and
    ``exact_halfspaces()`` give the
    same numbers in ``QQ``, for the rest of the library.

    >>> from fractions import Fraction
    >>> P = Polytope([[1, 1], [-1, 0], [0, -1]], ["1/2", 0, 0])   # a triangle
    >>> P.contains(["1/4", "1/4"]), P.contains([1, 1])
    (True, False)
    >>> P.A.row(0), P.b[0] == Fraction(1, 2)
    (Matrix([[1, 1]]), True)
    """

    kind = "polytope"
    A, b = PublicView(), PublicView()

    def __init__(self, A, b, *, path: str = "", exact_floats: bool = False):
        p = f"{path}." if path else ""
        A, b = from_array(A, f"{p}A"), from_array(b, f"{p}b")
        self.exact_A: Matrix = matrix(A, path=f"{p}A", exact_floats=exact_floats)
        if self.exact_A.shape[0] == 0:
            raise InputError("expected at least one inequality", path=f"{p}A")
        if self.exact_A.shape[1] == 0:
            raise DimensionError("expected at least one variable", path=f"{p}A[0]")
        self.exact_b: Matrix = vector(b, path=f"{p}b", length=self.exact_A.shape[0], exact_floats=exact_floats)
        self.dim = self.exact_A.shape[1]

    def contains(self, x) -> bool:
        pt = as_point(x, self.dim)
        return all(dot(r, pt) <= c for r, c in zip(rows(self.exact_A), flat(self.exact_b)))

    def exact_halfspaces(self):
        return rows(self.exact_A), flat(self.exact_b)

    def to_json(self) -> dict:
        return {"symrel": 1, "kind": "polytope", "A": format_matrix(self.exact_A), "b": format_vector(self.exact_b)}

    def __eq__(self, other):
        return isinstance(other, Polytope) and self.exact_A == other.exact_A and self.exact_b == other.exact_b

    def __repr__(self):
        return f"Polytope({self.exact_A.shape[0]} inequalities in R^{self.dim})"


def vertex_coordinate_bound(A, b) -> int:
    """An integer ``H`` with ``|v_i| <= H`` for every coordinate of every basic
    solution ``v`` of ``A x <= b`` (a vertex: ``A_S v = b_S`` for d independent rows S).

    Scale every row of ``[A | b]`` to integers. By Cramer's rule ``v_i = det(M_i) / det(M)``
    with ``M = A_S`` an integer matrix, so ``|det M| >= 1``, and by Hadamard's inequality
    ``|det M_i|`` is at most the product of the Euclidean norms of the rows of
    ``[A_S | b_S]``; ``H`` is the product of the d largest. Cost: O(m d) operations.

    >>> vertex_coordinate_bound([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])   # the triangle's vertices are 0/1
    2
    """
    from math import isqrt, lcm

    d = len(A[0])
    squares = []
    for row, c in zip(A, b):
        entries = [rational(v) for v in list(row) + [c]]
        scale = lcm(*(int(v.denominator) for v in entries))
        squares.append(max(1, sum(int(v * scale) ** 2 for v in entries)))
    product = 1
    for s in sorted(squares, reverse=True)[:d]:
        product *= s
    return isqrt(product) + 1


def polytope_box(domain: Polytope) -> tuple[list[tuple[Rational, Rational]], list[tuple[list, list]], list]:
    """The exact bounding box of a bounded polytope ``P = {x : A x <= b}``, with LP
    duality certificates, and the points of P where its bounds are attained.

    For each coordinate i and sense s = -1, +1 one exact LP (:func:`symrel.exact.exact_simplex.exact_simplex`)
    maximises ``s x_i`` over P; its dual optimum is ``y >= 0`` with ``A^T y = s e_i`` and
    ``b^T y = max s x_i``, which bounds ``s x_i`` on the whole of P (for x in P,
    ``s x_i = y^T A x <= y^T b``). The LP decides ``max t`` subject to P and
    ``t <= (s x_i + H) / (2H + 1)`` with H of :func:`vertex_coordinate_bound`, so
    ``t < 1`` exactly when the maximum is finite. Returns ``(box, [(y_lower, y_upper)]
    per coordinate, points)``. Cost: 2d exact LPs with m + 1 rows.

    >>> P = Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])      # a triangle
    >>> box, duals, points = polytope_box(P)
    >>> [[str(v) for v in iv] for iv in box], [str(v) for v in duals[0][1]]
    ([['0', '1'], ['0', '1']], ['1', '0', '1'])
    >>> sorted([str(v) for v in p] for p in points)
    [['0', '0'], ['0', '1'], ['1', '0']]
    """
    from ..exact.exact_simplex import exact_simplex

    A, b = domain.exact_halfspaces()
    m, d = len(A), domain.dim
    H = vertex_coordinate_bound(A, b)
    K = Q(2 * H + 1)
    sigma = [Q(0)] * m + [Q(1)]
    box, duals, points = [], [], []
    for i in range(d):
        ends = []
        for sense in (-1, 1):
            objective_row = [Q(-sense) / K if k == i else Q(0) for k in range(d)]
            out = exact_simplex(A + [objective_row], b + [Q(H) / K], sigma=sigma)
            if out["status"] != "optimal":
                raise InputError("expected a non-empty polytope (its inequalities have no common solution)",
                                 path="domain")
            if out["t"] >= 1:
                raise InputError(f"expected a bounded polytope: x_{i + 1} is unbounded {'above' if sense > 0 else 'below'}",
                                 path="domain")
            ends.append((sense * (K * out["t"] - H), [K * y for y in out["y"][:m]]))
            if out["x"] not in points:
                points.append(list(out["x"]))
        (lo, y_lo), (hi, y_hi) = ends
        box.append((lo, hi))
        duals.append((y_lo, y_hi))
    return box, duals, points
