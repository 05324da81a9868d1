"""The checker's own semantics and reader of CPWL functions on a simplicial mesh (``kind: "cpwl"``).

A conforming mesh in R^d (vertices, simplices of d + 1 vertex indices) and one output vector
per vertex define ``f(x) = sum_i lambda_i(x) y_(v_i)`` on each simplex ``(v_0 .. v_d)``,
``lambda`` the barycentric coordinates of x in it; f is defined on the union of the simplices
(its support). The reader checks the fields (a boolean is not a number, every vertex of d
coordinates, one value vector per vertex, all of one length), then that the mesh is
*conforming* with its own check (:func:`check_conforming`, the rules of docs/format.md): every
index in range and none repeated in a simplex, every vertex used, no two vertices at one
point, no degenerate simplex, and any two simplices meet in a common face or not at all.
``exact_geometry`` holds each :class:`Simplex` (its barycentric inverse), ``exact_pieces()``
each simplex's affine piece per output, ``support_halfspaces()`` the boundary facets. Cost:
``O(n d^3)`` for the inverses, and ``O(d^2)`` per pair of simplices whose bounding boxes meet.

>>> f = READERS["cpwl"]({"symrel": 1, "kind": "cpwl", "input_dim": 1, "vertices": [[0], [1], [2]],
...     "simplices": [[0, 1], [1, 2]], "values": [[0], [1], [0]]}, "f")
>>> from symrel.exact import rational
>>> [str(v) for v in f.evaluate_exact([rational("3/2")])], len(f.support_halfspaces())
(['1/2'], 2)
"""

from __future__ import annotations

from itertools import combinations, product
from math import lcm, prod
from operator import mul

from ..exact import Q, floor
from ..exact.numbers import denominator, numerator
from ..exact.sizes import check_product_bits, fan_in_bits, lcm_bits, number_bits
from . import MalformedCertificate, beyond_limit
from . import read
from .inputs import listed, matrix, need, positive, vector
from .read import join

ZERO, ONE = Q(0), Q(1)


def inverse(B: list) -> list | None:
    """The inverse of the square matrix ``B`` (a list of rows over Q) by Gauss-Jordan
    elimination, or None when B is singular. O(n^3) exact operations."""
    n = len(B)
    R = [list(r) + [ONE if i == j else ZERO for j in range(n)] for i, r in enumerate(B)]
    for c in range(n):
        p = next((i for i in range(c, n) if R[i][c]), None)
        if p is None:
            return None
        R[c], R[p] = R[p], R[c]
        top = R[c][c]
        R[c] = [v / top for v in R[c]]
        for i in range(n):
            if i != c and R[i][c]:
                m = R[i][c]
                R[i] = [a - m * b for a, b in zip(R[i], R[c])]
    return [r[n:] for r in R]


def inverse_bits(points: list, where: str) -> int:
    """An upper bound on the bits of the numbers Gauss-Jordan elimination computes to invert the
    matrix ``B`` of the simplex of ``points`` (its columns above a row of ones): each is a ratio
    of minors of ``B`` with its rows brought to integers, whose bits are at most those of the
    rows over their common denominators added up, plus ``bits(d + 1)`` per row (Hadamard's
    bound); twice that for the products before they are reduced. Refused beyond ``product
    bits`` (and a row's common denominator beyond ``denominator bits``), :mod:`symrel.exact.sizes`.
    Cost: one pass over the coordinates."""
    d = len(points) - 1
    rows = sum(number_bits([p[i] for p in points], where=where, what="the common denominator of a simplex's row")
               for i in range(d))
    return check_product_bits(2 * (rows + (d + 1) * fan_in_bits(d + 1)), where=where,
                              what="the barycentric inverse of the simplex")


class Simplex:
    """The simplex of ``d + 1`` points of Q^d. With ``B`` the points as columns above a row of
    ones, the barycentric coordinates of x are ``lambda = B^(-1) [x; 1]``; ``inverse`` holds the
    rows of ``B^(-1)``, each ``[a_1 .. a_d, c]`` (``lambda_i(x) = a . x + c``, which vanishes on
    the facet opposite point i), or None when the simplex is degenerate (B singular)."""

    def __init__(self, points: list):
        d = len(points) - 1
        self.points, self.dim = points, d
        self.inverse = inverse([[p[i] for p in points] for i in range(d)] + [[ONE] * (d + 1)])
        self.lower = [min(p[i] for p in points) for i in range(d)]
        self.upper = [max(p[i] for p in points) for i in range(d)]

    def barycentric(self, x) -> list:
        return [sum((a * v for a, v in zip(row, x)), row[-1]) for row in self.inverse]

    def contains(self, x) -> bool:
        """Whether x lies in the closed simplex (every barycentric coordinate >= 0)."""
        return all(lo <= v <= hi for v, lo, hi in zip(x, self.lower, self.upper)) and min(self.barycentric(x)) >= 0

    def interpolant(self, values) -> tuple:
        """``(a, c)``: the affine ``a . x + c`` taking ``values[i]`` at point i (``values . B^(-1)``)."""
        coeffs = [sum((y * row[k] for y, row in zip(values, self.inverse)), ZERO) for k in range(self.dim + 1)]
        return coeffs[:-1], coeffs[-1]


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


# -- conformity ------------------------------------------------------------------------------
def simplices_of(vertices: list, simplices: list, path: str) -> tuple:
    """``(lists, cells, geometry)``: the index lists (``d + 1`` vertex indices each, in range,
    none repeated; every vertex used), :func:`grid_cells` of them (its limits are checked
    before any simplex is solved) and the :class:`Simplex` of each (a degenerate one refused)."""
    n, d = len(vertices), len(vertices[0])
    used, lists = [False] * n, []
    for k, s in enumerate(simplices):
        sp = f"{join(path, 'simplices')}[{k}]"
        s = [read.index(i, n, f"{sp}[{j}]") for j, i in enumerate(read.array(s, sp, d + 1))]
        if len(set(s)) != len(s):
            raise MalformedCertificate(f"simplex {k} repeats a vertex index ({s})", path=sp)
        for i in s:
            used[i] = True
        lists.append(s)
    if not all(used):
        raise MalformedCertificate(f"vertex {used.index(False)} belongs to no simplex",
                                   path=f"{join(path, 'vertices')}[{used.index(False)}]")
    cells = grid_cells(vertices, lists, path)
    for k, s in enumerate(lists):  # the inverses' numbers, bounded before any is computed
        inverse_bits([vertices[i] for i in s], f"{join(path, 'simplices')}[{k}]")
    geometry = [Simplex([vertices[i] for i in s]) for s in lists]
    for k in (k for k, g in enumerate(geometry) if g.inverse is None):
        raise MalformedCertificate(f"simplex {k} is degenerate: its vertices {lists[k]} are affinely dependent",
                                   path=f"{join(path, 'simplices')}[{k}]")
    return lists, cells, geometry


#: the most entries (a simplex filed under a cell) of the conformity check's grid
MAX_MESH_GRID_ENTRIES = 4_000_000
#: the most candidate pairs (two simplices filed under one cell) the conformity check compares
MAX_MESH_PAIRS = 4_000_000


def grid_cells(vertices: list, lists: list, path: str) -> dict:
    """The simplices (by number) filed under each cell of a grid of ``g^d`` equal cells on the
    box of all vertices (g the integer d-th root of the number of simplices; the cell of x_i,
    ``floor((x_i - lo_i) g / (hi_i - lo_i))``, is exact and monotone), each under every cell its
    box meets: two simplices whose boxes meet share a cell. The entries, then the pairs in a
    cell, are counted before they are built (limits ``mesh grid entries``, ``mesh pairs``): a
    conforming fan of n thin simplices has n^2 / 2 pairs whose boxes meet, from n lines."""
    d, n = len(vertices[0]), len(lists)
    lo, hi = [min(c) for c in zip(*vertices)], [max(c) for c in zip(*vertices)]
    g = 1
    while (g + 1) ** d <= n:
        g += 1

    def cell(i, x):
        return 0 if hi[i] == lo[i] else min(floor((x - lo[i]) * g / (hi[i] - lo[i])), g - 1)

    where = join(path, "simplices")
    spans = [[range(cell(i, min(c)), cell(i, max(c)) + 1) for i, c in enumerate(zip(*(vertices[v] for v in s)))]
             for s in lists]
    entries = sum(prod(len(r) for r in span) for span in spans)
    if entries > MAX_MESH_GRID_ENTRIES:
        raise beyond_limit("mesh grid entries", entries, MAX_MESH_GRID_ENTRIES, where)
    cells: dict = {}
    for k, span in enumerate(spans):
        for c in product(*span):
            cells.setdefault(c, []).append(k)
    candidates = sum(len(m) * (len(m) - 1) // 2 for m in cells.values())
    if candidates > MAX_MESH_PAIRS:
        raise beyond_limit("mesh pairs", candidates, MAX_MESH_PAIRS, where)
    return cells


def meeting_pairs(cells: dict, geometry: list):
    """Every pair ``k < l`` of simplices whose closed bounding boxes meet, each once (from :func:`grid_cells`)."""
    seen = set()
    for members in cells.values():
        for k, l in combinations(members, 2):
            if (k, l) not in seen:
                seen.add((k, l))
                a, b = geometry[k], geometry[l]
                if all(x <= v and u <= y for x, y, u, v in zip(a.lower, a.upper, b.lower, b.upper)):
                    yield k, l


def integers(v: list) -> list:
    """The rational vector v times the least common multiple of its denominators (same signs);
    that multiple is bounded first (the ``denominator bits`` limit, :mod:`symrel.exact.sizes`)."""
    lcm_bits((denominator(x) for x in v), what="the common denominator of a row of a mesh")
    m = lcm(*(denominator(x) for x in v))
    return [numerator(x) * (m // denominator(x)) for x in v]


def check_conforming(vertices: list, simplices: list, geometry: list, cells: dict, path: str) -> None:
    """Refuse (naming the simplex or vertex) a mesh that is not conforming: two vertices at one
    point; for two simplices whose boxes meet, a vertex of one in the other closed simplex and
    not its own vertex (inside: an overlap; on its boundary: a hanging vertex), or no facet of
    either separating them (every vertex of one on the outer closed side of a facet of the
    other; in dimension 1 and 2 the interiors then meet; in dimension 3 and more they can meet
    beyond a common face even so: :func:`symrel.checking.mesh_faces.check_common_face`, an exact
    LP, decides it). Only signs of barycentric coordinates are read: integer multiples serve."""
    seen: dict = {}
    for i, v in enumerate(vertices):
        j = seen.setdefault(tuple(v), i)
        if j != i:
            raise MalformedCertificate(f"vertices {j} and {i} are the same point", path=f"{join(path, 'vertices')}[{i}]")
    d = len(vertices[0])
    rows = [[integers(row) for row in g.inverse] for g in geometry]
    points = [integers(list(v) + [ONE]) for v in vertices]
    for k, l in meeting_pairs(cells, geometry):
        coords = {}
        for a, b in ((k, l), (l, k)):   # coords[a, b]: the coordinates in simplex a of the vertices of b
            coords[a, b] = [[sum(map(mul, r, points[v])) for r in rows[a]] for v in simplices[b]]
            own = set(simplices[a])
            for v, lam in zip(simplices[b], coords[a, b]):
                if v not in own and min(lam) > 0:
                    raise MalformedCertificate(f"simplices {a} and {b} overlap: vertex {v} of simplex {b} lies inside "
                                               f"simplex {a}", path=f"{join(path, 'simplices')}[{b}]")
                if v not in own and min(lam) == 0:
                    raise MalformedCertificate(f"vertex {v} lies on the boundary of simplex {a} without being one of its "
                                               "vertices (a hanging vertex: the mesh is not conforming)",
                                               path=f"{join(path, 'simplices')}[{a}]")
        first, second, facet = k, l, separating_facet(coords[k, l])
        if facet is None:
            first, second, facet = l, k, separating_facet(coords[l, k])
        if d <= 2 and facet is None:
            raise MalformedCertificate(f"simplices {k} and {l} overlap (their interiors meet)",
                                       path=f"{join(path, 'simplices')}[{l}]")
        if d > 2:
            from .mesh_faces import check_common_face   # dimension 3 and more only: loaded then

            check_common_face(geometry, simplices, k, l, (first, second, facet), coords, path)


def separating_facet(coords: list) -> int | None:
    """Some i such that facet i of a simplex has every vertex of another on its outer closed
    side (``coords``: their barycentric coordinates in the first), or None."""
    return next((i for i in range(len(coords[0])) if all(lam[i] <= 0 for lam in coords)), None)


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
    lists, cells, geometry = simplices_of(vertices, simplices, path)
    check_conforming(vertices, lists, geometry, cells, path)
    return CPWLMesh(vertices, [tuple(s) for s in lists], values, geometry)


READERS = {"cpwl": _cpwl_mesh}
