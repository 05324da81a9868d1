"""The equivalence replay of a CPWL function on a mesh (:mod:`symrel.checking.equivalence` loads
it for a certificate with such a function only).

The box lies in the function's support (the exact minimum over the box of every boundary
facet's barycentric coordinate is recomputed, >= 0), and on every simplex the recorded lattice
form of each output equals f: a term with every piece ``>= f`` there and, in every term, a
piece (or the recorded convex combination of its pieces) ``<= f`` there, decided at the
simplex's vertices (the table of pieces minus values) or, where a piece crosses f inside the
simplex, by a tree of splits whose empty parts carry Farkas vectors. The equivalence replay
then replays the lattice forms as a maxout net of two or three layers, step by step.
"""

from __future__ import annotations

from math import isqrt, lcm
from operator import mul

from ..exact import Q
from ..exact.numbers import denominator, numerator
from ..exact.sizes import check_product_bits, common_denominator_bits, fan_in_bits, number_bits, weight
from . import beyond_limit
from .kernel import PAIR_MINUS_ONE, PAIR_ONE, PAIR_ZERO, pair
from .read import array, index, indices, natural, rational as strict_rational, rationals, record

ZERO, ONE = Q(0), Q(1)


def checked_lattice_layers(f, replay, name):
    """Check the step of a CPWL function on a mesh (rule ``cpwl-mesh-lattice``): the box lies in
    its support (one ``[simplex, i, min]`` per boundary facet, in
    :meth:`~symrel.checking.meshes.CPWLMesh.support_halfspaces` order, ``min`` the exact minimum
    of the facet's half-space form over the box, >= 0), and the recorded lattice form of each
    output equals f (:func:`_check_mesh_lattice`). Returns the forms as maxout layers
    (:func:`_lattice_layers`), which the equivalence replay then replays."""
    cert = replay.next("cpwl-mesh-lattice", name, ("model", "support", "lattice"))
    here = f"{replay.here}.certificate"
    box = replay.ranges[:f.input_dim]
    want = [(a, c, k, i) for a, c, k, i in f.support_halfspaces()]
    got = array(cert.get("support"), f"{here}.support")
    if len(got) != len(want):
        replay.fail(f"expected {len(want)} boundary facets (one [simplex, i, minimum] each), got {len(got)}", ".certificate.support")
    for e, ((a, c, k, i), rec) in enumerate(zip(want, got)):
        at = f"{here}.support[{e}]"
        rec = array(rec, at, 3)
        lo = c + sum((ai * (l if ai > 0 else u) for ai, (l, u) in zip(a, box)), ZERO)   # the minimum over the box
        if (natural(rec[0], f"{at}[0]"), natural(rec[1], f"{at}[1]")) != (k, i):
            replay.fail(f"expected the boundary facet of simplex {k} opposite its local vertex {i} here, got "
                        f"[{rec[0]}, {rec[1]}]", f".certificate.support[{e}]")
        if strict_rational(rec[2], f"{at}[2]") != lo or lo < 0:
            replay.fail(f"boundary facet of simplex {k} opposite local vertex {i}: expected its exact minimum over the "
                        f"box, {lo} (which must be >= 0), got {rec[2]}", f".certificate.support[{e}][2]")
    lattices = array(cert.get("lattice"), f"{here}.lattice")
    if len(lattices) != f.output_dim:
        replay.fail(f"expected one lattice form per output ({f.output_dim}), got {len(lattices)}", ".certificate.lattice")
    parsed = [_check_mesh_lattice(f, o, lat, replay, f"{here}.lattice[{o}]") for o, lat in enumerate(lattices)]
    return _lattice_layers(parsed, f.input_dim)


def _lattice_layers(lattices, d):
    """The maxout layers of the lattice forms ``f_o = max_t min_(j in S_t) l_j`` (a list of
    ``(pieces, terms)`` per output), as the prover's proof steps walk them (``min = -max(-.)``):
    layer 1 has one unit ``g_t = max_(j in S_t) (-l_j)`` per term (outputs in order); layer 2
    one unit ``max_t (-g_t)`` per output, or, when an output has more terms than
    ``k = max(largest term, ceil(sqrt(terms)), 2)``, one per group of at most k of its
    terms, and then layer 3 the maximum of each output's groups."""
    first, owner = [], []
    for o, (pieces, terms) in enumerate(lattices):
        for term in terms:
            first.append(([[(i, pair(-a[i])) for i in range(d) if a[i]] for a in (pieces[j][0] for j in term)],
                          [pair(-pieces[j][1]) for j in term]))
            owner.append(o)
    widest = max(len(t) for _, terms in lattices for t in terms)
    k = max(widest, max(isqrt(len(terms) - 1) + 1 for _, terms in lattices), 2)
    grouped = any(len(terms) > k for _, terms in lattices)
    groups, group_owner = [], []
    for o in range(len(lattices)):
        mine = [t for t in range(len(first)) if owner[t] == o]
        size = k if grouped else len(mine)
        for g in range(0, len(mine), size):
            groups.append(mine[g:g + size])
            group_owner.append(o)
    second = [([[(t, PAIR_MINUS_ONE)] for t in group], [PAIR_ZERO] * len(group)) for group in groups]
    if not grouped:
        return [first, second]
    third = []
    for o in range(len(lattices)):
        mine = [g for g in range(len(groups)) if group_owner[g] == o]
        third.append(([[(g, PAIR_ONE)] for g in mine], [PAIR_ZERO] * len(mine)))
    return [first, second, third]


#: the most operations of one output's lattice check: vertices x pieces x (d + 2) for the
#: vertex table, plus terms x simplices for the cover (both numbers the file spells out, but
#: their product is not: 30,000 of each, a megabyte, would be 10^9 products)
MAX_LATTICE_OPERATIONS = 100_000_000

#: the keys of a mesh's recorded lattice form, of a split and of an empty part (docs/format.md)
MESH_LATTICE_KEYS = ("output", "pieces", "terms", "lower", "combos")
SPLIT_KEYS, EMPTY_KEYS = ("split", "above", "below"), ("empty",)


def _check_mesh_lattice(f, o, rec, replay, where):
    """The recorded lattice form of output o (at the JSON path ``where``) equals f on every
    simplex (vertex table): pieces of d coefficients, terms of distinct piece indices, one
    lower tree per simplex (:func:`_check_lower`) and convex combinations ``[term, simplex,
    [[piece, weight], ..]]`` below f, so that every term has a piece (or a combination of
    its pieces) ``<= f`` on every simplex."""
    record(rec, where, keys=MESH_LATTICE_KEYS)
    rel = where[len(replay.here):]
    if natural(rec["output"], f"{where}.output") != o:
        replay.fail(f"expected the lattice form of output {o} here, got output {rec['output']}", f"{rel}.output")
    d, n = f.input_dim, len(f.simplices)
    pieces = []
    for j, piece in enumerate(array(rec["pieces"], f"{where}.pieces")):
        at = f"{where}.pieces[{j}]"
        a, c = array(piece, at, 2)
        pieces.append((rationals(a, f"{at}[0]", length=d), strict_rational(c, f"{at}[1]")))
    if not pieces:
        replay.fail("expected at least one piece [coefficients, constant]", f"{rel}.pieces")
    terms = [indices(t, len(pieces), f"{where}.terms[{t_i}]") for t_i, t in enumerate(array(rec["terms"], f"{where}.terms"))]
    for t_i, t in enumerate(terms):
        if not t:
            replay.fail("expected a term of at least one piece index, got an empty list", f"{rel}.terms[{t_i}]")
    if not terms:
        replay.fail("expected at least one term (a list of piece indices)", f"{rel}.terms")
    lower = array(rec["lower"], f"{where}.lower")
    if len(lower) != n:
        replay.fail(f"expected one lower term (an index or a split tree) per simplex ({n}), got {len(lower)}",
                    f"{rel}.lower")
    # the table's entries: a vertex's row over its common denominator times a piece's over theirs,
    # bounded before the table is built, its products counted by their size (symrel.exact.sizes)
    piece_bits = number_bits([t for a, c in pieces for t in (*a, c)], where=f"{where}.pieces",
                             what="the common denominator of the pieces")
    vertex_bits = max((number_bits(list(x) + [y[o]], where="inputs") for x, y in zip(f.exact_vertices, f.exact_values)),
                      default=0)
    entry_bits = check_product_bits(piece_bits + vertex_bits + fan_in_bits(d + 3), where=f"{where}.pieces",
                                    what="an entry of the table of pieces minus values")
    work = len(f.exact_vertices) * len(pieces) * (d + 2) * weight(entry_bits) + len(terms) * n + sum(map(len, terms))
    if work > MAX_LATTICE_OPERATIONS:   # the vertex table and the term-by-simplex cover, counted first
        raise beyond_limit("mesh lattice operations", work, MAX_LATTICE_OPERATIONS, f"{where}.pieces")
    at, under = _vertex_table(f, o, pieces)
    for k, tree in enumerate(lower):
        _check_lower(f, o, k, tree, pieces, terms, at, [], replay, f"{where}.lower[{k}]")
    combos = {}
    for e, combo in enumerate(array(rec["combos"], f"{where}.combos")):
        path = f"{where}.combos[{e}]"
        t, k, ws = array(combo, path, 3)
        t, k = index(t, len(terms), f"{path}[0]"), index(k, n, f"{path}[1]")
        if (t, k) in combos:
            replay.fail(f"expected each (term, simplex) once, got ({t}, {k}) again", f"{path[len(replay.here):]}")
        weights = []
        for m, entry in enumerate(array(ws, f"{path}[2]")):
            j, w = array(entry, f"{path}[2][{m}]", 2)
            weights.append((index(j, len(pieces), f"{path}[2][{m}][0]"), strict_rational(w, f"{path}[2][{m}][1]")))
        common_denominator_bits([w for _, w in weights], where=f"{path}[2]", what="the weights' common denominator")
        if len({j for j, _ in weights}) != len(weights):
            replay.fail("expected each piece once in a convex combination", f"{path[len(replay.here):]}[2]")
        if any(j not in terms[t] or w < 0 for j, w in weights) or sum((w for _, w in weights), ZERO) != 1:
            replay.fail(f"expected a convex combination of the pieces of term {t} (weights >= 0, sum 1)",
                        f"{path[len(replay.here):]}[2]")
        if any(sum((w * at[v][j] for j, w in weights), ZERO) > 0 for v in f.simplices[k]):
            replay.fail(f"the combination for term {t} lies above f at a vertex of simplex {k}", f"{path[len(replay.here):]}")
        combos[(t, k)] = weights
    for t, term in enumerate(terms):
        mine = sum(1 << j for j in set(term))
        for k in range(n):
            if not under[k] & mine and (t, k) not in combos:
                replay.fail(f"term {t} has no piece below f on simplex {k} (nor a combination in combos)",
                            f"{rel}.terms[{t}]")
    return pieces, terms


def _vertex_table(f, o, pieces):
    """``at[v][j]``, ``l_j(x_v) - f_o(x_v)`` times a positive number ``s_v`` (one per vertex v),
    for every vertex v and piece j: the integer dot product of ``[x_v, 1, -f_o(x_v)]`` and
    ``[a_j, c_j, 1]``, each put over a common denominator (V x P entries, the bulk of the rule's
    time on large meshes). Only the signs of the entries and of nonnegative combinations of one
    vertex's entries are read, which ``s_v > 0`` keeps. And ``under[k]``, the bit set of the
    pieces ``<= f`` at every vertex of simplex k (the AND of its vertices' bit sets)."""
    from .meshes import integers   # the checker's mesh reader: loaded already for a mesh

    D = lcm(*(denominator(t) for a, c in pieces for t in (*a, c)))   # bounded by the caller
    cols = [[numerator(t) * (D // denominator(t)) for t in (*a, c)] + [D] for a, c in pieces]
    at = []
    for x, y in zip(f.exact_vertices, f.exact_values):
        left = integers(list(x) + [ONE, -y[o]])
        at.append([sum(map(mul, left, col)) for col in cols])
    below = [int("".join("1" if e <= 0 else "0" for e in reversed(row)), 2) for row in at]
    under = []
    for s in f.simplices:
        m = -1
        for v in s:
            m &= below[v]
        under.append(m)
    return at, under


def _check_lower(f, o, k, tree, pieces, terms, at, path, replay, where):
    """On the part of simplex k cut out by ``path`` (``(j, True)``: ``l_j >= f``, ``(j, False)``:
    ``l_j < f``), the recorded lower tree (at the JSON path ``where``) gives a term whose pieces
    are all ``>= f`` (an index), or splits (``{split: j, above, below}``), or shows the part
    empty by a Farkas vector (``{empty: [[row, weight], ..]}``, Motzkin's form for the strict
    rows). A split repeats no piece, so the depth is at most the number of pieces."""
    rel = where[len(replay.here):]
    if isinstance(tree, dict) and "split" in tree:
        record(tree, where, keys=SPLIT_KEYS)
        j = index(tree["split"], len(pieces), f"{where}.split")
        if any(j == i for i, _ in path):
            replay.fail(f"expected a piece not split on above this part, got piece {j} again", f"{rel}.split")
        _check_lower(f, o, k, tree["above"], pieces, terms, at, path + [(j, True)], replay, f"{where}.above")
        _check_lower(f, o, k, tree["below"], pieces, terms, at, path + [(j, False)], replay, f"{where}.below")
        return
    if isinstance(tree, dict):
        record(tree, where, keys=EMPTY_KEYS)
        rows = _part_rows(f, o, k, pieces, path)
        y = {}
        for m, entry in enumerate(array(tree["empty"], f"{where}.empty")):
            i, w = array(entry, f"{where}.empty[{m}]", 2)
            i = index(i, len(rows), f"{where}.empty[{m}][0]")
            if i in y:
                replay.fail(f"expected each row of the part once, got row {i} again", f"{rel}.empty[{m}][0]")
            y[i] = strict_rational(w, f"{where}.empty[{m}][1]")
        if not y or any(w < 0 for w in y.values()):
            replay.fail(f"expected a Farkas vector of weights >= 0 on the {len(rows)} rows of the part", f"{rel}.empty")
        common_denominator_bits(y.values(), where=f"{where}.empty", what="the Farkas weights' common denominator")
        d = f.input_dim
        if any(sum((w * rows[i][0][c] for i, w in y.items()), ZERO) != 0 for c in range(d)):
            replay.fail("the Farkas vector does not cancel the rows (y^T A != 0)", f"{rel}.empty")
        total = sum((w * rows[i][1] for i, w in y.items()), ZERO)
        strict = any(rows[i][2] and w > 0 for i, w in y.items())
        if not (total < 0 or (total == 0 and strict)):
            replay.fail(f"the Farkas vector does not show the part empty (y^T b = {total})", f"{rel}.empty")
        return
    t = index(tree, len(terms), where)
    up = {j for j, side in path if side}
    for j in terms[t]:
        if j not in up and min(at[v][j] for v in f.simplices[k]) < 0:
            replay.fail(f"piece {j} of its lower term {t} lies below f at a vertex of simplex {k}, and no split "
                        "puts it above", rel)


def _part_rows(f, o, k, pieces, path):
    """``(a, b, strict)`` rows of the part: ``-lambda_i <= 0`` for simplex k, then per split
    ``f - l_j <= 0`` (above) or ``l_j - f < 0`` (below), with f's affine piece on simplex k."""
    rows = [([-a for a in row[:-1]], row[-1], False) for row in f.exact_geometry[k].inverse]
    ak, ck = f.exact_pieces()[k][o]
    for j, up in path:
        aj, cj = pieces[j]
        if up:
            rows.append(([x - y for x, y in zip(ak, aj)], cj - ck, False))
        else:
            rows.append(([y - x for x, y in zip(ak, aj)], ck - cj, True))
    return rows
