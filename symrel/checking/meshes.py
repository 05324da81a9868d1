"""The checker's own semantics and reader of CPWL functions on a simplicial mesh (``kind: "cpwl"``).

A conforming mesh in R^d (vertices, simplices of d + 1 vertex indices) and one output vector
per vertex define ``f(x) = sum_i lambda_i(x) y_(v_i)`` on each simplex ``(v_0 .. v_d)``,
``lambda`` the barycentric coordinates of x in it; f is defined on the union of the simplices
(its support). The reader checks the fields (a boolean is not a number, every vertex of d
coordinates, one value vector per vertex, all of one length) and then that the mesh is
conforming, with the library's mesh check (:func:`symrel.models.mesh_check.check_mesh`: no
repeated or unused vertex, no degenerate simplex, no overlap, no hanging vertex, simplices
meeting in common faces; its exact LP, :mod:`symrel.exact.lp`, is loaded only in dimension 3
and more). ``exact_geometry`` holds each simplex's barycentric inverse
(:class:`symrel.models.simplex.Simplex`), ``exact_pieces()`` each simplex's affine piece per
output, ``support_halfspaces()`` the boundary facets. Cost: the mesh check's, plus
``O(n d^3)`` for the inverses.

>>> f = READERS["cpwl"]({"symrel": 1, "kind": "cpwl", "input_dim": 1, "vertices": [[0], [1], [2]],
...     "simplices": [[0, 1], [1, 2]], "values": [[0], [1], [0]]}, "f")
>>> from symrel.exact import rational
>>> [str(v) for v in f.evaluate_exact([rational("3/2")])], len(f.support_halfspaces())
(['1/2'], 2)
"""

from __future__ import annotations

from ..errors import InputError
from ..exact import from_rationals
from ..models.mesh_check import check_mesh, mesh_index, simplices_of
from . import MalformedCertificate
from .inputs import listed, matrix, need, positive, vector
from .read import join


class CPWLMesh:
    """A CPWL function on a conforming simplicial mesh (module docstring)."""

    kind = "cpwl"

    def __init__(self, vertices: list, simplices: list, values: list, geometry: list):
        self.exact_vertices, self.simplices, self.exact_values = vertices, simplices, values
        self.exact_geometry = geometry
        self.input_dim, self.output_dim = len(vertices[0]), len(values[0])
        self._pieces = None

    def __eq__(self, other):
        return type(other) is CPWLMesh and (other.exact_vertices, other.simplices, other.exact_values) == (
            self.exact_vertices, self.simplices, self.exact_values)

    __hash__ = None

    def exact_pieces(self) -> list:
        """For each simplex, for each output, ``(a, c)`` with ``f_o(x) = a . x + c`` on it."""
        if self._pieces is None:
            self._pieces = [[g.interpolant([self.exact_values[i][o] for i in s]) for o in range(self.output_dim)]
                            for g, s in zip(self.exact_geometry, self.simplices)]
        return self._pieces

    def support_halfspaces(self) -> list:
        """``(a, c, simplex, i)`` for each boundary facet (the facet opposite local vertex i of a
        simplex, which no other simplex shares): ``a . x + c`` is that barycentric coordinate."""
        count: dict = {}
        for s in self.simplices:
            for i in range(len(s)):
                key = frozenset(s[:i] + s[i + 1:])
                count[key] = count.get(key, 0) + 1
        out = []
        for k, s in enumerate(self.simplices):
            for i in range(len(s)):
                if count[frozenset(s[:i] + s[i + 1:])] == 1:
                    row = self.exact_geometry[k].inverse[i]
                    out.append((row[:-1], row[-1], k, i))
        return out

    def evaluate_exact(self, x) -> list:
        """``f(x)`` on the first simplex holding x; a point outside the support is refused."""
        if len(x) != self.input_dim:
            raise ValueError(f"expected a point of {self.input_dim} coordinates, got {len(x)}")
        for k, g in enumerate(self.exact_geometry):
            if g.contains(x):
                return [sum((a * v for a, v in zip(w, x)), c) for w, c in self.exact_pieces()[k]]
        raise MalformedCertificate("expected a point of the support of the CPWL function", path="input")

    def evaluate_matrix(self, points) -> object:
        outs = [self.evaluate_exact(p) for p in points]
        return from_rationals([[y[k] for y in outs] for k in range(self.output_dim)], (self.output_dim, len(outs)))


def _cpwl_mesh(obj, path: str) -> CPWLMesh:
    d = positive(need(obj, "input_dim", path), join(path, "input_dim"))
    vertices = matrix(listed(obj, "vertices", path), join(path, "vertices"), cols=d)
    simplices = listed(obj, "simplices", path)
    raw = listed(obj, "values", path, min_len=0)
    if len(raw) != len(vertices):
        raise MalformedCertificate(f"expected {len(vertices)} values (one per vertex), got {len(raw)}",
                                   path=join(path, "values"))
    values = []
    for i, y in enumerate(raw):
        values.append(vector(y, f"{path}.values[{i}]", len(values[0]) if values else None))
        if not values[-1]:
            raise MalformedCertificate("expected at least one output value", path=f"{path}.values[{i}]")
    try:   # the index checks, the simplices' inverses, then conformity: refusals name the simplex or vertex
        geometry = simplices_of(vertices, simplices, d, path)
        check_mesh(vertices, simplices, path=path, parsed=geometry, index=mesh_index(vertices, geometry))
    except InputError as err:
        raise MalformedCertificate(err.message, path=err.path) from None
    return CPWLMesh(vertices, [tuple(s) for s in simplices], values, geometry)


READERS = {"cpwl": _cpwl_mesh}
