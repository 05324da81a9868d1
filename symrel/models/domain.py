"""Domains: boxes and H-polytopes ``{x : A x <= b}`` with rational data."""

from __future__ import annotations

import itertools
import random
from typing import Iterator, Sequence

from ..errors import DimensionError, InputError
from ..exact import Matrix, Q, Rational, dot, flat, format_matrix, format_rational, format_vector, from_rationals, matrix, rational, rows, vector
from .base import as_point, require_seq


class Domain:
    """Base class of domains; ``dim`` and ``contains(x)``."""

    kind = "domain"
    dim: int

    def contains(self, x) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def halfspaces(self) -> tuple[list[list[Rational]], list[Rational]]:  # pragma: no cover
        """``(A, b)`` with the domain equal to ``{x : A x <= b}``."""
        raise NotImplementedError


class Box(Domain):
    """The box ``[l_1, u_1] x ... x [l_d, u_d]``.

    >>> D = Box([[-1, 1], ["-1/2", 2]])
    >>> D.contains([0, 2]), D.contains([0, 3])
    (True, False)
    >>> len(list(D.vertices()))
    4
    """

    kind = "box"

    def __init__(self, bounds, *, path: str = "bounds"):
        require_seq(bounds, "intervals", path, min_len=1)
        self.bounds: list[tuple[Rational, Rational]] = []
        for i, iv in enumerate(bounds):
            if not isinstance(iv, (list, tuple)) or len(iv) != 2:
                raise InputError("expected an interval [lower, upper]", path=f"{path}[{i}]")
            lo = rational(iv[0], path=f"{path}[{i}][0]")
            hi = rational(iv[1], path=f"{path}[{i}][1]")
            if lo > hi:
                raise InputError(f"expected lower <= upper, got [{lo}, {hi}]", path=f"{path}[{i}]")
            self.bounds.append((lo, hi))
        self.dim = len(self.bounds)

    @classmethod
    def cube(cls, dim: int, lo=-1, hi=1) -> "Box":
        """``[lo, hi]^dim``."""
        return cls([[lo, hi]] * dim)

    def contains(self, x) -> bool:
        pt = as_point(x, self.dim)
        return all(lo <= v <= hi for v, (lo, hi) in zip(pt, self.bounds))

    def lower(self) -> list[Rational]:
        return [lo for lo, _ in self.bounds]

    def upper(self) -> list[Rational]:
        return [hi for _, hi in self.bounds]

    def center(self) -> list[Rational]:
        return [(lo + hi) / 2 for lo, hi in self.bounds]

    def vertices(self) -> Iterator[list[Rational]]:
        """Every vertex (2^d of them, fewer when an interval is a point)."""
        choices = [sorted({lo, hi}) for lo, hi in self.bounds]
        for v in itertools.product(*choices):
            yield list(v)

    def halfspaces(self):
        A, b = [], []
        for i, (lo, hi) in enumerate(self.bounds):
            e = [Q(0)] * self.dim
            e[i] = Q(1)
            A.append(list(e))
            b.append(hi)
            e[i] = Q(-1)
            A.append(list(e))
            b.append(-lo)
        return A, b

    def to_polytope(self) -> "Polytope":
        A, b = self.halfspaces()
        return Polytope(from_rationals(A, (len(A), self.dim)), b)

    def sample(self, n: int, seed: int = 0, denominator: int = 1000) -> list[list[Rational]]:
        """``n`` random rational points of the box (grid of the given denominator
        inside each interval), reproducible from ``seed``."""
        rng = random.Random(seed)
        pts = []
        for _ in range(n):
            pts.append([lo + (hi - lo) * Q(rng.randint(0, denominator), denominator) for lo, hi in self.bounds])
        return pts

    def contains_box(self, other: "Box") -> bool:
        return all(l1 <= l2 and h2 <= h1 for (l1, h1), (l2, h2) in zip(self.bounds, other.bounds))

    def to_json(self) -> dict:
        return {"symrel": 1, "kind": "box", "bounds": [[format_rational(lo), format_rational(hi)] for lo, hi in self.bounds]}

    def __eq__(self, other):
        return isinstance(other, Box) and self.bounds == other.bounds

    def __repr__(self):
        return "Box(" + " x ".join(f"[{lo}, {hi}]" for lo, hi in self.bounds) + ")"


class Polytope(Domain):
    """The H-polytope ``{x : A x <= b}``.

    >>> P = Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])   # a triangle
    >>> P.contains(["1/2", "1/2"]), P.contains([1, 1])
    (True, False)
    """

    kind = "polytope"

    def __init__(self, A, b, *, path: str = ""):
        p = f"{path}." if path else ""
        self.A: Matrix = matrix(A, path=f"{p}A")
        if self.A.shape[0] == 0:
            raise InputError("expected at least one inequality", path=f"{p}A")
        if self.A.shape[1] == 0:
            raise DimensionError("expected at least one variable", path=f"{p}A[0]")
        self.b: Matrix = vector(b, path=f"{p}b", length=self.A.shape[0])
        self.dim = self.A.shape[1]

    def contains(self, x) -> bool:
        pt = as_point(x, self.dim)
        return all(dot(r, pt) <= c for r, c in zip(rows(self.A), flat(self.b)))

    def halfspaces(self):
        return rows(self.A), flat(self.b)

    def to_json(self) -> dict:
        return {"symrel": 1, "kind": "polytope", "A": format_matrix(self.A), "b": format_vector(self.b)}

    def __eq__(self, other):
        return isinstance(other, Polytope) and self.A == other.A and self.b == other.b

    def __repr__(self):
        return f"Polytope({self.A.shape[0]} inequalities in R^{self.dim})"
