"""Continuous piecewise-linear functions on a simplicial mesh in R^d (``kind: "cpwl"``).

A conforming mesh (vertices in Q^d, simplices of d + 1 vertex indices, checked by
:func:`~symrel.models.mesh_check.check_mesh`) and one output vector per vertex define
``f(x) = sum_i lambda_i(x) y_(v_i)`` on each simplex ``(v_0 .. v_d)``, where ``lambda`` are the
barycentric coordinates of x in that simplex. Neighbouring simplices agree on their common
face, so f is continuous on the union of the simplices, its *support*; outside it f is not
defined and evaluation is refused.

>>> f = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], ["1/2"]])
>>> [str(v) for v in f(["1/2", "1/2"])], [str(v) for v in f(["3/4", "3/4"])]
(['1'], ['3/4'])
>>> f([2, 0])
Traceback (most recent call last):
...
symrel.errors.InputError: the point (2, 0) lies outside the support of the CPWL function (the union of its 2 simplices)
>>> f.sizes()["simplices"], f.support_is_convex()
(2, True)

Cost: construction O(n d^3) plus the mesh check; evaluation O(d^2) per candidate simplex
of the point's grid cell (about one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import DimensionError, InputError

from ..exact import Matrix, PublicView, Q, Rational, columns, from_columns, rational, rational_str, to_public, zeros
from .base import Model, as_batch, check_dim, require_seq
from .mesh_check import check_mesh, mesh_index, simplices_of

if TYPE_CHECKING:  # sympy is the public number type, loaded only when a view is made
    import sympy


def _text(x) -> str:
    return "(" + ", ".join(rational_str(v) for v in x) + ")"


class CPWLMesh(Model):
    """A CPWL function on a conforming simplicial mesh (FORMAT.md, ``kind: "cpwl"``).

    ``vertices``: points of Q^d; ``simplices``: lists of d + 1 vertex indices;
    ``values``: one output vector per vertex, all of the same length.

    ``vertices``, ``values`` and ``pieces()`` read as (fresh) lists of sympy Rationals
    (:mod:`symrel.exact.public`); ``exact_vertices``, ``exact_values`` and
    ``exact_pieces()`` are the same numbers in ``QQ``, for the library. ``exact_geometry``
    (each simplex's barycentric inverse, :mod:`symrel.models.simplex`) and ``exact_index``
    (the grid that finds a point's simplices) are the library's working records, in ``QQ``.

    >>> f = CPWLMesh([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]], [[0], ["1/2"], [1]])
    >>> f.vertices[1], f.values[1], f.pieces()
    ([1, 0], [1/2], [[([1/2, 1], 0)]])
    """

    kind = "cpwl"
    vertices, values = PublicView(), PublicView()

    def __init__(self, vertices, simplices, values, *, input_dim: int | None = None, path: str = "", check: bool = True):
        p = f"{path}." if path else ""
        require_seq(vertices, "vertices", f"{p}vertices", min_len=1)
        require_seq(simplices, "simplices", f"{p}simplices", min_len=1)
        require_seq(values, "values", f"{p}values")
        d = input_dim if input_dim is not None else (len(vertices[0]) if isinstance(vertices[0], (list, tuple)) else 0)
        self.input_dim = check_dim(d, "input_dim", f"{p}input_dim")
        self.exact_vertices: list[list[Rational]] = []
        for i, v in enumerate(vertices):
            vp = f"{p}vertices[{i}]"
            require_seq(v, "coordinates", vp)
            if len(v) != d:
                raise DimensionError(f"expected a vertex with {d} coordinates (input_dim), got {len(v)}", path=vp)
            self.exact_vertices.append([rational(x, path=f"{vp}[{j}]") for j, x in enumerate(v)])
        if len(values) != len(self.exact_vertices):
            raise DimensionError(f"expected {len(self.exact_vertices)} values (one per vertex), got {len(values)}",
                                 path=f"{p}values")
        self.exact_values: list[list[Rational]] = []
        for i, y in enumerate(values):
            yp = f"{p}values[{i}]"
            require_seq(y, "output values", yp, min_len=1)
            if self.exact_values and len(y) != len(self.exact_values[0]):
                raise DimensionError(f"expected {len(self.exact_values[0])} numbers (the output dimension, from values[0]), "
                                     f"got {len(y)}", path=yp)
            self.exact_values.append([rational(x, path=f"{yp}[{j}]") for j, x in enumerate(y)])
        self.output_dim = len(self.exact_values[0])
        self.simplices: list[tuple[int, ...]] = [tuple(s) if isinstance(s, (list, tuple)) else s for s in simplices]
        self.exact_geometry = simplices_of(self.exact_vertices, self.simplices, d, path)
        self.exact_index = mesh_index(self.exact_vertices, self.exact_geometry)
        if check:
            check_mesh(self.exact_vertices, self.simplices, path=path, parsed=self.exact_geometry, index=self.exact_index)
        self._pieces = None

    # -- evaluation ---------------------------------------------------------------------
    def locate(self, x) -> int:
        """The first simplex holding point x (its closed simplex), or an InputError."""
        for k in self.exact_index.candidates(x):
            if self.exact_geometry[k].contains(x):
                return k
        raise InputError(f"the point {_text(x)} lies outside the support of the CPWL function "
                         f"(the union of its {len(self.simplices)} simplices)")

    def interpolate(self, k: int, x) -> list[Rational]:
        """Barycentric interpolation of the values of simplex k at x."""
        lam = self.exact_geometry[k].barycentric(x)
        out = []
        for o in range(self.output_dim):
            total = Q(0)
            for w, i in zip(lam, self.simplices[k]):
                total += w * self.exact_values[i][o]
            out.append(total)
        return out

    def _evaluate_batch(self, X: Matrix, path: str | None = None) -> Matrix:
        outs = []
        points = columns(X)
        for j, x in enumerate(points):
            try:
                k = self.locate(x)
            except InputError as err:
                raise (err.under(path if len(points) == 1 else f"{path}[{j}]") if path else err) from None
            outs.append(self.interpolate(k, x))
        return from_columns(outs, self.output_dim)

    def evaluate_matrix(self, points, *, path: str = "inputs", exact_floats: bool = False) -> Matrix:
        """As :meth:`Model.evaluate_matrix`; a point outside the support is refused, named
        by ``path``."""
        X = as_batch(points, self.input_dim, path=path, exact_floats=exact_floats)
        return self._evaluate_batch(X, path) if X.shape[1] else zeros(self.output_dim, 0)

    # -- the affine pieces ----------------------------------------------------------------
    def pieces(self) -> list[list[tuple[list[sympy.Rational], sympy.Rational]]]:
        """The exact symbolic view: for each simplex, for each output, ``(a, c)`` with
        ``f_o(x) = a . x + c`` on that simplex (sympy Rationals)."""
        return to_public(self.exact_pieces())

    def exact_pieces(self) -> list[list[tuple[list[Rational], Rational]]]:
        """:meth:`pieces` in ``QQ`` (made once)."""
        if self._pieces is None:
            self._pieces = [[s.interpolant([self.exact_values[i][o] for i in simplex]) for o in range(self.output_dim)]
                            for s, simplex in zip(self.exact_geometry, self.simplices)]
        return self._pieces

    # -- the support --------------------------------------------------------------------
    def boundary_facets(self) -> list[tuple[int, int]]:
        """``(simplex, i)`` for each facet (opposite local vertex i) no other simplex shares."""
        count: dict[frozenset, int] = {}
        for s in self.simplices:
            for i in range(len(s)):
                key = frozenset(s[:i] + s[i + 1:])
                count[key] = count.get(key, 0) + 1
        return [(k, i) for k, s in enumerate(self.simplices) for i in range(len(s))
                if count[frozenset(s[:i] + s[i + 1:])] == 1]

    def support_halfspaces(self) -> list[tuple[list[Rational], Rational, int, int]]:
        """``(a, c, simplex, i)``: the support lies in ``a . x + c >= 0`` for each boundary
        facet (the barycentric coordinate of its opposite vertex), when the support is convex."""
        out = []
        for k, i in self.boundary_facets():
            row = self.exact_geometry[k].inverse[i]
            out.append((row[:-1], row[-1], k, i))
        return out

    def support_is_convex(self) -> bool:
        """Whether the support is convex: every vertex on the inner side of every boundary
        facet's hyperplane (then the support is the intersection of those half-spaces)."""
        return self._concave_facet() is None

    def _concave_facet(self):
        for a, c, k, i in self.support_halfspaces():
            for v, x in enumerate(self.exact_vertices):
                if sum((ai * xi for ai, xi in zip(a, x)), c) < 0:
                    return k, i, v
        return None

    def check_domain(self, domain, *, path: str = "domain") -> None:
        """Raise an InputError naming the domain unless it lies in the half-space of every
        boundary facet. Their intersection lies in the support (a segment from inside the
        support to a point outside it leaves through a boundary facet, to its outer side),
        and equals it when the support is convex; so this is exact for convex supports and
        sufficient for any."""
        if domain.dim != self.input_dim:
            raise InputError(f"expected a domain of dimension {self.input_dim}, got {domain.dim}", path=path)
        for a, c, k, i in self.support_halfspaces():
            x = _violation(domain, a, c)
            if x is None:
                continue
            where = (f"its point {_text(x)} lies outside the boundary facet of simplex {k} opposite vertex "
                     f"{self.simplices[k][i]}")
            if self.support_is_convex():
                raise InputError(f"the domain is not inside the support of the CPWL function: {where}", path=path)
            raise InputError(f"the domain is not inside the half-spaces of the boundary facets of the (non-convex) "
                             f"support of the CPWL function: {where}", path=path)

    # -- sizes --------------------------------------------------------------------------
    def num_parameters(self) -> int:
        return len(self.exact_vertices) * (self.input_dim + self.output_dim)

    def sizes(self) -> dict:
        return {"kind": self.kind, "input_dim": self.input_dim, "output_dim": self.output_dim,
                "vertices": len(self.exact_vertices), "simplices": len(self.simplices), "parameters": self.num_parameters()}

    def __eq__(self, other):
        return (isinstance(other, CPWLMesh) and self.exact_vertices == other.exact_vertices
                and self.simplices == other.simplices and self.exact_values == other.exact_values)

    def __repr__(self):
        return f"CPWLMesh(R^{self.input_dim}, {len(self.simplices)} simplices, {len(self.exact_vertices)} vertices)"


def _violation(domain, a, c):
    """A point of the domain with ``a . x + c < 0``, or None (exact: box ends or LP)."""
    from ..exact import affine_range_on_box, feasibility  # a domain's support test only, not evaluation

    if hasattr(domain, "bounds"):
        lo, _ = affine_range_on_box(a, c, domain.exact_bounds)
        if lo >= 0:
            return None
        return [lo_ if ai > 0 else hi_ for ai, (lo_, hi_) in zip(a, domain.exact_bounds)]
    A, b = domain.exact_halfspaces()
    res = feasibility(list(A) + [list(a)], list(b) + [-c], strict=[False] * len(A) + [True])
    return res.point if res.feasible else None
