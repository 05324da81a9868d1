"""The Wang-Sun form of a CPWL function on a simplicial mesh: a linear combination of
maxima of at most n + 1 affine functions (Wang and Sun 2005, Theorem 1).

Definition: ``f_o(x) = sum_t w_t max_(j in F_t) l_j(x)`` on the support, with rational
weights ``w_t`` and every ``F_t`` a set of at most n + 1 affine pieces ``l_j``.

The construction goes through the hat functions (He, Li, Xu and Zheng 2018). On a mesh,
``f = sum_v y_v phi_v`` with ``phi_v`` the hat of vertex v (1 at v, 0 at the other
vertices, affine on every simplex). With ``lambda_K`` the barycentric coordinate of v in
a simplex K of the star of v (extended affinely to R^n),

    phi_v = max(0, min_(K ∋ v) lambda_K)                                      (hat)

on the support when two facts hold, both decided at vertices: on every simplex K' of the
star, every ``lambda_K >= lambda_K'`` (so the minimum is ``lambda_K' = phi_v >= 0`` there);
on every other simplex, some ``lambda_K`` (or a convex combination of them) is ``<= 0``
(so the minimum is ``<= 0`` and the hat is 0). Both hold when the star is convex. Since
``max(0, m) = max(0, -m) + m`` and ``-min lambda = max(-lambda)``,

    phi_v = max({0} ∪ {-lambda_K}) - max({-lambda_K}),

two maxima of at most |star| + 1 affine functions, each taken apart into maxima of at
most n + 1 of them by :func:`~symrel.constructions.max_to_small_maxes.max_as_small_maxes`
(an upper-regular triangulation of their slopes, checked). Terms with the same set of
pieces are merged, and the single-piece terms add up to one affine term.

A vertex whose star fails the two facts (a non-convex star) uses the lattice form of its
hat instead (:func:`~symrel.constructions.lattice_forms` of the mesh with the values of
``phi_v``): ``phi_v = max_t min_(j in S_t) l_j``, and by inclusion-exclusion
``max_t g_t = sum_(U non-empty) (-1)^(|U|+1) min_(t in U) g_t`` with
``min_(t in U) g_t = min_(j in union S_t) l_j = -max(-l_j)``, again taken apart by
:func:`~symrel.constructions.max_to_small_maxes.max_as_small_maxes`. That costs 2^(terms) maxima,
so a hat whose lattice form has more than ``MAX_HAT_TERMS`` terms is refused with an
error naming the vertex.

>>> from symrel.models import CPWLMesh
>>> f = CPWLMesh([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]],
...              [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]], [[0], [0], [0], [0], [1]])   # a pyramid
>>> (ws,) = wang_sun_forms(f)
>>> ws.sizes()["max_arity"] <= 3, all(ws([x, y]) == f([x, y])[0] for x in range(3) for y in range(3))
(True, True)
>>> ws.sizes()      # the lattice form is one min of 4 pieces: here it is the smaller
{'terms': 11, 'pieces': 28, 'max_arity': 3}

Cost: per vertex v, O(|star| V) exact evaluations for the hat facts (V vertices) and the
small triangulation of its star's slopes; O(terms) dictionary work to merge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..errors import InputError
import sympy

from ..exact import Q, Rational, rational, rationals, to_public
from ..models.cpwl_mesh import CPWLMesh
from .cpwl_mesh_lattice import _pair_weight, lattice_forms   # _pair_weight: s u + (1 - s) w <= 0 at given vertices
from .max_to_small_maxes import max_as_small_maxes
from ..models.maxout import MaxoutLayer, MaxoutNet, MaxoutUnit

ZERO, ONE = Q(0), Q(1)


@dataclass
class WangSunForm:
    """``f_o = sum_t weight_t * max_(j in terms[t]) pieces[j]`` (one output of a mesh function).

    ``pieces`` (``[(slope, constant), ..]``), ``terms`` (``[(weight, piece indices), ..]``) and
    the value ``form(x)`` read as sympy Rationals (:mod:`symrel.exact.public`);
    ``exact_pieces`` and ``exact_terms`` hold the same numbers in ``QQ``, for the library.
    The constructor reads any numbers :func:`symrel.exact.rational` reads."""

    output: int
    exact_pieces: list[tuple[list[Rational], Rational]]
    exact_terms: list[tuple[Rational, tuple[int, ...]]]

    def __post_init__(self):
        self.exact_pieces = [(rationals(a), rational(c)) for a, c in self.exact_pieces]
        self.exact_terms = [(rational(w), tuple(F)) for w, F in self.exact_terms]

    @property
    def pieces(self) -> list[tuple[list[sympy.Rational], sympy.Rational]]:
        return to_public(self.exact_pieces)

    @property
    def terms(self) -> list[tuple[sympy.Rational, tuple[int, ...]]]:
        return to_public(self.exact_terms)

    def __call__(self, x: Sequence) -> sympy.Rational:
        """The exact value at the point x (numbers anything :func:`symrel.exact.rational` reads,
        the public sympy Rationals of ``CPWLMesh.vertices`` among them)."""
        return to_public(self.exact_value(x))

    def exact_value(self, x: Sequence) -> Rational:
        """The value at x, in ``QQ``."""
        x = [rational(xi) for xi in x]
        vals = [sum((a * xi for a, xi in zip(p[0], x)), p[1]) for p in self.exact_pieces]
        return sum((w * max(vals[j] for j in F) for w, F in self.exact_terms), ZERO)

    def sizes(self) -> dict:
        """``terms``: the number of maxima (the affine term counts as one), ``pieces``: the
        affine functions in them all, ``max_arity``: the largest maximum."""
        return {"terms": len(self.exact_terms), "pieces": sum(len(F) for _, F in self.exact_terms),
                "max_arity": max((len(F) for _, F in self.exact_terms), default=0)}

    def to_json(self) -> dict:
        from ..exact import format_rational as r

        return {"output": self.output, "pieces": [[[r(v) for v in a], r(c)] for a, c in self.exact_pieces],
                "terms": [[r(w), list(F)] for w, F in self.exact_terms]}


def _affine_value(row, x) -> Rational:
    total = row[-1]
    for a, xi in zip(row, x):
        total += a * xi
    return total


def hat_failure(f: CPWLMesh, v: int, star: list[int]) -> str | None:
    """None when ``phi_v = max(0, min_(K in star) lambda_K)`` on the support (the two facts
    of the module docstring, decided at vertices), else what fails."""
    rows = {K: f.exact_geometry[K].inverse[f.simplices[K].index(v)] for K in star}
    at = {K: [_affine_value(row, x) for x in f.exact_vertices] for K, row in rows.items()}
    for K2 in star:
        for w in f.simplices[K2]:
            for K in star:
                if w != v and at[K][w] < 0:
                    return f"lambda of simplex {K} is negative at vertex {w} of simplex {K2} (the star is not convex)"
    inside = set(star)
    nonpos = {K: sum(1 << w for w, val in enumerate(vals) if val <= 0) for K, vals in at.items()}
    for K2, s in enumerate(f.simplices):
        if K2 in inside:
            continue
        mask = sum(1 << w for w in s)
        if any(m & mask == mask for m in nonpos.values()):
            continue
        if not any(_pair_weight([at[K][i] for i in s], [at[L][i] for i in s]) is not None
                   for K in star for L in star if K < L):
            return (f"no barycentric coordinate of vertex {v} over its star is <= 0 on simplex {K2} "
                    "(the star is not convex)")
    return None


def hat_terms(f: CPWLMesh, v: int, star: list[int]) -> list[tuple[int, list[tuple[tuple, Rational]]]]:
    """``phi_v`` as ``[(sign, [(slope, constant), ..]), ..]``: signed maxima of at most n + 1
    affine functions (module docstring)."""
    d = f.input_dim
    neg = []
    for K in star:
        row = f.exact_geometry[K].inverse[f.simplices[K].index(v)]
        neg.append((tuple(-a for a in row[:-1]), -row[-1]))
    with_zero = [((ZERO,) * d, ZERO)] + neg
    out = []
    for sign, pieces in ((1, with_zero), (-1, neg)):
        for c, F in max_as_small_maxes(pieces):
            out.append((sign * c, [pieces[j] for j in F]))
    return out


MAX_HAT_TERMS = 8


def hat_terms_from_lattice(f: CPWLMesh, v: int) -> list[tuple[int, list[tuple[tuple, Rational]]]]:
    """``phi_v`` as signed maxima of at most n + 1 affine functions, through the lattice
    form of the hat and inclusion-exclusion (module docstring)."""
    import itertools


    hat = CPWLMesh(f.exact_vertices, f.simplices, [[ONE if w == v else ZERO] for w in range(len(f.exact_vertices))], check=False)
    (lat,) = lattice_forms(hat)
    if len(lat.terms) > MAX_HAT_TERMS:
        raise InputError(f"no Wang-Sun form: the hat of vertex {v} (a non-convex star) has a lattice form of "
                         f"{len(lat.terms)} terms, more than {MAX_HAT_TERMS}", path=f"vertices[{v}]")
    neg = [(tuple(-a for a in p[0]), -p[1]) for p in lat.exact_pieces]
    out = []
    for r in range(1, len(lat.terms) + 1):
        for U in itertools.combinations(lat.terms, r):
            X = sorted(set().union(*U))
            pieces = [neg[j] for j in X]
            for c, F in max_as_small_maxes(pieces):        # min_X l = -max_X(-l)
                out.append(((-1) ** (r + 1) * -c, [pieces[j] for j in F]))
    return out


def wang_sun_forms(f: CPWLMesh, *, tick=None) -> list[WangSunForm]:
    """The Wang-Sun form of every output of f (module docstring); an InputError names a
    vertex whose hat has too many lattice terms. ``tick(done, total)``, when given, is called
    before each vertex's hat (a caller's budget check: it may raise to stop the construction;
    a non-convex star costs one lattice form of the whole mesh)."""
    stars: list[list[int]] = [[] for _ in f.exact_vertices]
    for K, s in enumerate(f.simplices):
        for v in s:
            stars[v].append(K)
    hats = []
    for v, star in enumerate(stars):
        if tick is not None:
            tick(v, len(stars))
        if not star:
            hats.append([])
            continue
        convex = hat_failure(f, v, star) is None
        hats.append(hat_terms(f, v, star) if convex else hat_terms_from_lattice(f, v))
    forms = []
    d = f.input_dim
    for o in range(f.output_dim):
        weights: dict[frozenset, Rational] = {}
        slope, const = [ZERO] * d, ZERO
        for v, terms in enumerate(hats):
            y = f.exact_values[v][o]
            if not y:
                continue
            for sign, pieces in terms:
                if len(pieces) == 1:
                    (a, c), = pieces
                    slope = [s + sign * y * ai for s, ai in zip(slope, a)]
                    const += sign * y * c
                    continue
                key = frozenset(pieces)
                weights[key] = weights.get(key, ZERO) + sign * y
        pieces_index: dict[tuple, int] = {}
        terms = []
        for key in sorted((k for k, w in weights.items() if w), key=lambda k: sorted(k)):
            terms.append((weights[key], tuple(sorted(pieces_index.setdefault(p, len(pieces_index)) for p in key))))
        if any(slope) or const or not terms:
            terms.append((ONE, (pieces_index.setdefault((tuple(slope), const), len(pieces_index)),)))
        pieces = [None] * len(pieces_index)
        for (a, c), j in pieces_index.items():
            pieces[j] = (list(a), c)
        forms.append(WangSunForm(o, pieces, terms))
    return forms


def wang_sun_mismatch(f: CPWLMesh, forms: list[WangSunForm], *, tick=None):
    """The first ``(vertex, output, f value, form value)`` where a form differs from f at a
    vertex of the mesh, or None (exact evaluation at every vertex; the pieces' values at
    all vertices come from one exact matrix product). ``tick(done, total)``: as in
    :func:`wang_sun_forms`, called before each vertex."""
    from ..exact import from_rationals, rows

    d, V = f.input_dim, len(f.exact_vertices)
    X = from_rationals([list(x) + [ONE] for x in f.exact_vertices], (V, d + 1))
    for form in forms:
        P = len(form.exact_pieces)
        A = from_rationals([[a[i] for a, _ in form.exact_pieces] for i in range(d)] + [[c for _, c in form.exact_pieces]], (d + 1, P))
        for v, vals in enumerate(rows(X * A)):
            if tick is not None:
                tick(v, V)
            got = sum((w * max(vals[j] for j in F) for w, F in form.exact_terms), ZERO)
            if got != f.exact_values[v][form.output]:
                return v, form.output, f.exact_values[v][form.output], got
    return None


def wang_sun_to_maxout(forms: list[WangSunForm], input_dim: int) -> MaxoutNet:
    """The Wang-Sun forms as a maxout net with one layer and an affine read-out: one unit
    ``max_(j in F_t) l_j`` (rank at most n + 1) per term, read out with the weights
    ``w_t`` (a negative weight on a maximum is a minimum: a two-layer maxout-style net).

    >>> from symrel.models import CPWLMesh
    >>> f = CPWLMesh([[0], [1], [2]], [[0, 1], [1, 2]], [[0], [1], [0]])
    >>> net = wang_sun_to_maxout(wang_sun_forms(f), 1)
    >>> [str(net([x])[0]) for x in (0, "1/2", 1, 2)]
    ['0', '1/2', '1', '0']
    """
    from ..models.affine import AffineMap

    units, W = [], []
    for form in forms:
        row_start = len(units)
        for w, F in form.exact_terms:
            units.append(MaxoutUnit([list(form.exact_pieces[j][0]) for j in F], [form.exact_pieces[j][1] for j in F],
                                    input_dim=input_dim))
        W.append((row_start, [w for w, _ in form.exact_terms]))
    q = len(units)
    rows = [[ZERO] * q for _ in forms]
    for r, (start, ws) in enumerate(W):
        rows[r][start:start + len(ws)] = ws
    return MaxoutNet(input_dim, [MaxoutLayer(units)], AffineMap(rows, [ZERO] * len(forms), input_dim=q))

