"""The lattice form of a CPWL function on a simplicial mesh, in any dimension (Paper A, Thm 4.2).

Tarela-Martinez / Ovchinnikov (THEORY.md section 2): with ``l_k`` the affine piece of f on
simplex k (equal pieces merged),

    f(x) = max_i min_(j in S_i) l_j(x),   S_i = {j : l_j >= l_i on simplex i},

one term per simplex, on a convex support. Everything is decided at vertices, exactly:
on simplex k, ``l_j >= f`` (``<= f``) iff it holds at the d + 1 vertices of k, since both
sides are affine there and ``f = l_k`` takes the vertex values. So the table ``l_j(v)`` vs
``f(v)`` over pieces j and vertices v decides every set.

Why it is f, simplex by simplex (the facts the prover records and the checker re-checks):

* *lower*: some term t has every piece ``>= f`` at the vertices of k, so ``min_t >= f``
  on k (and the max of the terms too); or, where no such term exists (see below), simplex k
  is split by the signs of crossing pieces ``l_j - f`` (``>= 0`` and ``< 0``) into parts,
  each with a term whose pieces are ``>= f`` on it (the part's own split pieces count), or
  empty (a Farkas vector);
* *upper*: for every term t, some piece ``j in S_t`` has ``l_j <= f`` at the vertices of k,
  so ``min_t <= f`` on k; where no single piece does, a convex combination
  ``sum_j w_j l_j <= f`` at the vertices does (it exists by LP duality whenever
  ``min_t <= f`` on k, which Ovchinnikov's theorem gives on a convex support).

Ovchinnikov's sets are the pieces ``>= f`` at a *point* y (for x, y in a convex domain some
piece is ``>= f`` at y and ``<= f`` at x); one set per simplex, ``l_j >= l_k`` on all of
simplex k, is in general too small in two or more variables (the upper fact fails on some
simplex; in one variable it always holds), which is why such simplices are split.
Fewer and smaller terms do as well, as long as both facts still hold: each ``S_i`` is
reduced greedily to pieces whose *upper* facts cover every simplex (a set cover), and
then only as many terms are kept as the *lower* facts need (a greedy cover of the simplices
by the terms whose pieces all lie above f on them; a term t serves simplex k iff t is a
subset of ``S_k``). :func:`lattice_forms` reports both sizes (Ovchinnikov's and the reduced).

>>> from symrel.models import CPWLMesh
>>> f = CPWLMesh([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]],
...              [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]], [[0], [0], [0], [0], [1]])   # a pyramid
>>> (lat,) = lattice_forms(f)
>>> len(lat.pieces), lat.terms, lat.sizes()["ovchinnikov"]
(4, [[0, 1, 2, 3]], {'terms': 4, 'pieces': 16})
>>> net = cpwl_mesh_to_maxout(f)
>>> all(net(x) == f(x) for x in ([0, 0], ["1/2", "1/3"], [1, 1], ["3/2", 1]))
True

Cost: O(P V d) exact operations for the table (P pieces, V vertices), O(P n) bit-set
tests for the sets (n simplices), and the greedy covers, O(terms x |S| x rounds) bit-set
operations; a small exact LP only for a (term, simplex) pair no single piece covers.
"""

from __future__ import annotations

import itertools
from math import isqrt
from dataclasses import dataclass, field

from ..errors import InputError
from ..exact import Q, Rational, feasibility, to_public
from ..models.cpwl_mesh import CPWLMesh
from ..models.maxout import MaxoutLayer, MaxoutNet, MaxoutUnit

ZERO = Q(0)


@dataclass
class Lattice:
    """``f_o = max_t min_(j in terms[t]) l_j`` for one output o of a mesh function.

    ``pieces[j] = (a, c)`` is ``l_j(x) = a . x + c``; ``lower[k]`` a term whose pieces are
    all ``>= f`` on simplex k; ``combos[(t, k)]`` the weights ``[(j, w_j), ..]`` of a convex
    combination of term t's pieces that is ``<= f`` on simplex k, for the pairs no single
    piece covers. ``ovchinnikov`` holds the sizes before the reduction.

    ``pieces``, ``lower`` and ``combos`` read as sympy Rationals (:mod:`symrel.exact.public`);
    ``exact_pieces``, ``exact_lower`` and ``exact_combos`` hold them in ``QQ``, for the library."""

    output: int
    exact_pieces: list[tuple[list[Rational], Rational]]
    terms: list[list[int]]
    exact_lower: list
    exact_combos: dict = field(default_factory=dict)
    ovchinnikov: dict = field(default_factory=dict)

    @property
    def pieces(self) -> list:
        return to_public(self.exact_pieces)

    @property
    def lower(self) -> list:
        return to_public(self.exact_lower)

    @property
    def combos(self) -> dict:
        return to_public(self.exact_combos)

    def to_json(self) -> dict:
        """The recorded form (a certificate's ``lattice`` entry): canonical rationals."""
        from ..exact import format_rational as r

        return {"output": self.output, "pieces": [[[r(v) for v in a], r(c)] for a, c in self.exact_pieces],
                "terms": [list(t) for t in self.terms], "lower": [_tree_json(t) for t in self.exact_lower],
                "combos": [[t, k, [[j, r(w)] for j, w in ws]] for (t, k), ws in sorted(self.exact_combos.items())]}

    def sizes(self) -> dict:
        return {"pieces": len(self.exact_pieces), "terms": len(self.terms),
                "term_pieces": sum(len(t) for t in self.terms), "max_term": max(len(t) for t in self.terms),
                "ovchinnikov": dict(self.ovchinnikov)}


def _tree_json(tree):
    from ..exact import format_rational as r

    if isinstance(tree, int):
        return tree
    if "split" in tree:
        return {"split": tree["split"], "above": _tree_json(tree["above"]), "below": _tree_json(tree["below"])}
    return {"empty": [[i, r(w)] for i, w in tree["empty"]]}


def _value(piece, x) -> Rational:
    a, c = piece
    total = c
    for ai, xi in zip(a, x):
        total += ai * xi
    return total


def _pair_weight(u, w):
    """A weight s in [0, 1] with ``s u_v + (1 - s) w_v <= 0`` for every v, or None."""
    lo, hi = ZERO, Q(1)
    for a, b in zip(u, w):          # s (a - b) <= -b
        if a == b:
            if b > 0:
                return None
        elif a > b:
            hi = min(hi, -b / (a - b))
        else:
            lo = max(lo, -b / (a - b))
    return lo if lo <= hi else None


def _combination(cands, diffs, k):
    """Weights on pieces ``cands`` whose combination is ``<= f`` at the vertices of simplex
    k (``diffs[j]`` = ``l_j - f`` there): a pair first, else the exact LP; or None."""
    for j1, j2 in itertools.combinations(cands, 2):
        s = _pair_weight(diffs[j1], diffs[j2])
        if s is not None:
            return [(j1, s), (j2, 1 - s)] if s not in (0, 1) else [(j1 if s == 1 else j2, Q(1))]
    if not cands:
        return None
    n = len(cands)
    A = [[-Q(1) if c == r else ZERO for c in range(n)] for r in range(n)]
    A += [[diffs[j][v] for j in cands] for v in range(len(diffs[cands[0]]))]
    res = feasibility(A, [ZERO] * len(A), [[Q(1)] * n], [Q(1)])
    if not res.feasible:
        return None
    return [(j, w) for j, w in zip(cands, res.point) if w]


def lattice_forms(f: CPWLMesh) -> list[Lattice]:
    """The reduced lattice form of each output of f (module docstring)."""
    return [_lattice(f, o) for o in range(f.output_dim)]


class _Table:
    """The vertex table of one output: ``diff[j][v] = l_j(v) - f(v)`` and its bit sets."""

    def __init__(self, f: CPWLMesh, o: int):
        self.f, self.n = f, len(f.simplices)
        self.pieces, self.piece_of = [], []
        seen: dict[tuple, int] = {}
        for per_output in f.exact_pieces():
            a, c = per_output[o]
            self.piece_of.append(seen.setdefault((tuple(a), c), len(self.pieces)))
            if self.piece_of[-1] == len(self.pieces):
                self.pieces.append((list(a), c))
        fv = [y[o] for y in f.exact_values]
        V, P = len(f.exact_vertices), len(self.pieces)
        self.diff = [[_value(p, x) - fv[v] for v, x in enumerate(f.exact_vertices)] for p in self.pieces]
        above = [sum(1 << v for v in range(V) if row[v] >= 0) for row in self.diff]
        below = [sum(1 << v for v in range(V) if row[v] <= 0) for row in self.diff]
        smask = [sum(1 << v for v in s) for s in f.simplices]
        self.cover = [sum(1 << k for k in range(self.n) if below[j] & smask[k] == smask[k]) for j in range(P)]
        self.above_cover = [sum(1 << k for k in range(self.n) if above[j] & smask[k] == smask[k]) for j in range(P)]
        self.full = (1 << self.n) - 1

    def above_on(self, k: int) -> list[int]:
        """``S_k``: the pieces ``>= f`` at every vertex of simplex k."""
        return [j for j in range(len(self.pieces)) if self.above_cover[j] >> k & 1]

    def crossing(self, k: int) -> list[int]:
        """The pieces above f at one vertex of simplex k and below at another."""
        out = []
        for j, row in enumerate(self.diff):
            vals = [row[v] for v in self.f.simplices[k]]
            if min(vals) < 0 < max(vals):
                out.append(j)
        return out

    def upper_cover(self, S):
        """A small subset of S whose pieces (or convex combinations, ``combos``) lie below f on
        every simplex, or ``(None, uncovered)``: the simplices no combination of S reaches."""
        chosen, need, combos = [], self.full, {}
        while need:
            best = max(S, key=lambda j: (self.cover[j] & need).bit_count())
            if not self.cover[best] & need:
                break
            chosen.append(best)
            need &= ~self.cover[best]
        missing = 0
        for k in (k for k in range(self.n) if need >> k & 1):
            local = {j: [self.diff[j][v] for v in self.f.simplices[k]] for j in S}
            weights = _combination([j for j in S if min(local[j]) < 0], local, k)
            if weights is None:
                missing |= 1 << k
                continue
            combos[k] = weights
            chosen += [j for j, _ in weights if j not in chosen]
        if missing:
            return None, missing
        return tuple(sorted(set(chosen))), combos

    def side_row(self, k: int, j: int, above: bool):
        """``(a, b)``: ``a . x <= b`` means ``l_j >= f`` on simplex k (above), ``a . x < b``
        means ``l_j < f`` (below, a strict row)."""
        (aj, cj), (ak, ck) = self.pieces[j], self.pieces[self.piece_of[k]]
        if above:      # f - l_j <= 0
            return [x - y for x, y in zip(ak, aj)], cj - ck
        return [y - x for x, y in zip(ak, aj)], ck - cj

    def simplex_rows(self, k: int):
        """``-lambda_i(x) <= 0``: the rows of simplex k (its barycentric coordinates >= 0)."""
        return [([-a for a in row[:-1]], row[-1]) for row in self.f.exact_geometry[k].inverse]


MAX_SPLITS = 4000


def _lower_tree(table: _Table, k: int, base: list[int], terms: dict, path: list, budget: list):
    """The lower fact for simplex k: a term whose pieces are all ``>= f`` on the region
    ``simplex k ∩ path`` (the term's key in ``terms``), or a split of the region by a crossing
    piece j into ``l_j >= f`` and ``l_j < f``, or an empty region (a Farkas vector, Motzkin's
    form for the strict rows). At a leaf past every split the pieces ``>= f`` on the region
    are those ``>= f`` at any of its points y, and Ovchinnikov's lemma (for x, y in a convex
    domain some piece is ``>= f`` at y and ``<= f`` at x) makes them a term."""
    rows = table.simplex_rows(k) + [table.side_row(k, j, up) for j, up in path]
    strict = [False] * (table.f.input_dim + 1) + [not up for _, up in path]   # below: l_j < f
    res = feasibility([r for r, _ in rows], [b for _, b in rows], strict=strict)
    if not res.feasible:
        y, _ = res.farkas
        return {"empty": [(i, w) for i, w in enumerate(y) if w]}
    S = sorted(set(base) | {j for j, up in path if up})
    key, combos = table.upper_cover(S)
    if key is not None:
        terms.setdefault(key, combos)
        return key
    missing = combos
    done = {j for j, _ in path}
    cands = [j for j in table.crossing(k) if j not in done]
    if not cands or budget[0] <= 0:
        raise InputError(f"the lattice form fails on simplex {k}: no set of pieces above f on a part of it lies below "
                         "f everywhere (is the support convex?)" if cands == [] else
                         f"the lattice form needs more than {MAX_SPLITS} splits of simplex {k}", path=f"simplices[{k}]")
    j = max(cands, key=lambda j: (table.cover[j] & missing).bit_count())
    budget[0] -= 1
    return {"split": j,
            "above": _lower_tree(table, k, base, terms, path + [(j, True)], budget),
            "below": _lower_tree(table, k, base, terms, path + [(j, False)], budget)}


def _lattice(f: CPWLMesh, o: int) -> Lattice:
    table = _Table(f, o)
    n = table.n
    S = [table.above_on(k) for k in range(n)]
    ovchinnikov = {"terms": n, "pieces": sum(len(s) for s in S)}
    reduced: dict[tuple, dict] = {}
    trees: dict[int, object] = {}
    for Sk in dict.fromkeys(tuple(s) for s in S):
        key, combos = table.upper_cover(list(Sk))
        if key is not None and (key not in reduced or len(combos) < len(reduced[key])):
            reduced[key] = combos
    # simplices whose own S_k reaches no term: split them on crossing pieces (lower trees)
    for k in range(n):
        if table.upper_cover(S[k])[0] is None:
            trees[k] = _lower_tree(table, k, S[k], reduced, [], [MAX_SPLITS])
    # keep few terms: a greedy cover of the other simplices by the terms whose pieces all lie
    # above f on them (a term t serves simplex k iff t is a subset of S_k)
    serves = {}
    for key in reduced:
        m = table.full
        for j in key:
            m &= table.above_cover[j]
        serves[key] = m
    forced = {key for tree in trees.values() for key in _leaves(tree)}
    kept: list[tuple] = sorted(forced)
    need = table.full & ~sum(1 << k for k in trees)
    for key in kept:
        need &= ~serves[key]
    while need:
        key = max(serves, key=lambda t: ((serves[t] & need).bit_count(), -len(t)))
        kept.append(key)
        need &= ~serves[key]
    kept.sort(key=lambda t: (len(t), t))
    index = {key: t for t, key in enumerate(kept)}
    lower = [_renumber(trees[k], index) if k in trees else next(t for t, key in enumerate(kept) if serves[key] >> k & 1)
             for k in range(n)]
    combos = {(t, k): w for t, key in enumerate(kept) for k, w in reduced[key].items()}
    return Lattice(o, table.pieces, [list(t) for t in kept], lower, combos, ovchinnikov)


def _leaves(tree):
    if isinstance(tree, tuple):
        yield tree
    elif "split" in tree:
        yield from _leaves(tree["above"])
        yield from _leaves(tree["below"])


def _renumber(tree, index):
    if isinstance(tree, tuple):
        return index[tree]
    if "split" in tree:
        return {"split": tree["split"], "above": _renumber(tree["above"], index),
                "below": _renumber(tree["below"], index)}
    return tree


def lattice_to_maxout(lattices: list[Lattice], input_dim: int) -> MaxoutNet:
    """The maxout net of lattice forms (``min = -max(-.)``): layer 1 has one unit
    ``g_t = max_(j in S_t) (-l_j)`` per term; the output ``max_t (-g_t)`` is one more layer,
    or, when there are more terms than ``k = max(largest term, ceil(sqrt(terms)))``, two:
    maxima of groups of at most k terms, then their maximum. (A Transformer compiled from
    it needs ``max rank + 1`` tokens, so the group size keeps that small.)"""
    units, owner = [], []
    for lat in lattices:
        for term in lat.terms:
            units.append(MaxoutUnit([[-a for a in lat.exact_pieces[j][0]] for j in term], [-lat.exact_pieces[j][1] for j in term],
                                    input_dim=input_dim))
            owner.append(lat.output)
    q = len(units)
    widest = max(len(t) for lat in lattices for t in lat.terms)
    k = max(widest, max(isqrt(len(lat.terms) - 1) + 1 for lat in lattices), 2)
    grouped = any(len(lat.terms) > k for lat in lattices)
    groups, group_owner = [], []
    for lat in lattices:
        mine = [t for t in range(q) if owner[t] == lat.output]
        size = k if grouped else len(mine)
        for g in range(0, len(mine), size):
            groups.append(mine[g:g + size])
            group_owner.append(lat.output)
    second = MaxoutLayer([MaxoutUnit([[Q(-1) if u == t else ZERO for u in range(q)] for t in group],
                                     [ZERO] * len(group), input_dim=q) for group in groups])
    if not grouped:
        return MaxoutNet(input_dim, [MaxoutLayer(units), second])
    r = len(groups)
    third = MaxoutLayer([MaxoutUnit([[Q(1) if u == g else ZERO for u in range(r)] for g in range(r) if group_owner[g] == lat.output],
                                    [ZERO] * sum(1 for g in group_owner if g == lat.output), input_dim=r)
                         for lat in lattices])
    return MaxoutNet(input_dim, [MaxoutLayer(units), second, third])


def cpwl_mesh_to_maxout(f: CPWLMesh) -> MaxoutNet:
    """The two-layer maxout net of the reduced lattice form of f; equal to f on its support
    (when convex; the prover re-checks it simplex by simplex)."""
    return lattice_to_maxout(lattice_forms(f), f.input_dim)
