"""Exact counts of activation regions and linear regions over a polytope domain.

* An **activation region** is a full-dimensional cell of the search tree of
  :mod:`.enumerate_cells`: a set of inputs sharing every ReLU sign, every maxout
  winner and every (singleton) argmax set, all strictly.
* A **linear region** is a connected component of the set of interior points of D
  near which f is affine (docs/theory.md, "Linear regions"). It is a union of
  activation regions carrying the same affine map, merged across shared *facets*
  through which f is affine: two cells are joined when their closures meet in a set
  of dimension d-1 and f equals their map on an open piece of it. Adjacency is decided
  exactly: the facet lies on the hyperplane H that separates the two cells (a row of one
  whose negation is a row of the other), and the cells share a facet iff the system
  "H = 0, every other row strict" is feasible, one exact LP per candidate pair (pairs
  already joined are skipped). Cells touching only in a lower-dimensional face are not
  joined, as the interior of their union is disconnected there. A continuous model is
  affine across every such facet; a hardmax Transformer, discontinuous at ties, is
  checked to be (:mod:`.facet_jumps`): where f jumps across the facet, the two cells
  stay apart.

Hardmax models are discontinuous at ties; ``ties=True`` also runs the exact
(tie-aware) enumeration and reports the lower-dimensional cells, where argmax
sets have several elements, as ``tie_cells``. Counts of full-dimensional regions
do not include them.

>>> from symrel.models import Box, CPWL1D
>>> f = CPWL1D([0, 1, 2, 3], [0, 1, 2, 0])          # two collinear pieces, then a kink
>>> r = count_regions(f, Box([[0, 3]]))
>>> r.count, r.activation_cells
(2, 3)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..errors import InputError
from ..exact import inner
from ..exact.lp import feasibility
from ..exact.display import Card
from ..exact.displayed import Displayed
from .cell_lp import cell_lp
from .enumerate_cells import Enumeration, enumerate_cells
from .facet_jumps import facet_jumps
from .program_to_decisions import is_continuous
from ..exact.forms import Row

KINDS = ("linear", "activation")


@dataclass(repr=False)
class RegionCount(Displayed):
    """The result of :func:`count_regions`. ``count`` is the number asked for
    (``kind``); ``region_of[i]`` is the linear region of cell i."""

    def _summary(self) -> str:
        return (f"{self.count} {self.kind} regions ({self.activation_cells} activation cells"
                + (f", {self.tie_cells} tie cells" if self.tie_cells else "") + ")")

    def _card(self) -> Card:
        fields = [("activation cells", self.activation_cells), ("linear regions", self.linear_regions),
                  ("LPs solved", self.stats.get("lps", 0)), ("time", f"{self.seconds:.3g} s")]
        if self.tie_cells is not None:
            fields.insert(2, ("tie cells", self.tie_cells))
        return Card(f"RegionCount: {self.count} {self.kind} regions", [f for f in fields if f[1] is not None])

    kind: str
    count: int
    activation_cells: int
    linear_regions: int | None
    seconds: float
    enumeration: Enumeration
    region_of: list | None = None
    tie_cells: int | None = None
    stats: dict = field(default_factory=dict)

    @property
    def cells(self):
        return self.enumeration.cells

    def to_json(self) -> dict:
        out = {
            "count": self.count,
            "kind": self.kind,
            "cells": self.activation_cells,
            "linear_regions": self.linear_regions,
            "time": round(self.seconds, 6),
            "lps": self.stats.get("lps", 0),
        }
        if self.tie_cells is not None:
            out["tie_cells"] = self.tie_cells
        return out


def facet_candidates(P, Q_):
    """Pairs ``(i, j)``: row i of P and row j of Q bound the same hyperplane from
    opposite sides (the only places where the closures can share a facet)."""
    keys = {}
    for i, (f, rel) in enumerate(P.rows):
        k = f.normalised()
        if k is not None:
            keys.setdefault(k, i)
    out, seen = [], set()
    for j, (f, rel) in enumerate(Q_.rows):
        k = (-f).normalised()
        if k is not None and k in keys and k not in seen:
            seen.add(k)
            out.append((keys[k], j))
    return out


def facet_evidence(P, Q_, model=None):
    """Decide exactly whether the closures of the open cells P and Q share a facet
    through which they form one linear region.

    Returns ``("adjacent", i, j, point, path)``, a point of the relative interior of the
    common facet on row i of P (= row j of Q reversed), or ``("apart", reasons)``
    with, for every candidate hyperplane, a Farkas vector over ``P.rows + Q.rows``
    (row i read as an equality, the other rows strict), the index of a parallel
    row that keeps the closures off that hyperplane, or (``model`` given, one that is not
    continuous) the tree showing that f is affine near no point of the facet
    (:func:`symrel.regions.facet_jumps.facet_jumps`); ``path`` is then the exact-mode
    path of the point (None for a continuous model)."""
    combined = P.rows + Q_.rows
    reasons = []
    for i, j in facet_candidates(P, Q_):
        h = P.rows[i][0]
        rows_, used, blocked = [], [], None
        for k, (f, rel) in enumerate(combined):
            if k == i:
                rows_.append(Row(f, "="))
                used.append(k)
                continue
            if f.is_constant():
                rows_.append(Row(f, rel))
                continue
            off = f.parallel_offset(h)
            if off is not None:
                if off > 0:  # on H this row reads off <= 0: false there
                    blocked = k
                    break
                rows_.append(Row(f, rel))
                continue
            rows_.append(Row(f, "<"))
            used.append(k)
        if blocked is not None:
            reasons.append((i, j, ("parallel", blocked)))
            continue
        point, cert = cell_lp(rows_, used, {}, len(inner(P, "witness")))
        if point is None:
            reasons.append((i, j, ("farkas", cert)))
        elif model is None:
            return ("adjacent", i, j, point, None)
        else:
            found = facet_jumps(model, P, Q_, i, point)
            if found[0] == "affine":
                return ("adjacent", i, j, found[1], found[2])
            reasons.append((i, j, found))
    return ("apart", reasons)


def share_facet(P, Q_) -> bool:
    """Whether the closures of the full-dimensional cells P and Q meet in a set of
    dimension d-1 (decided exactly, :func:`facet_evidence`)."""
    return facet_evidence(P, Q_)[0] == "adjacent"


def _find(parent: list, i: int) -> int:
    """The root of ``i`` in the union-find forest ``parent`` (with path halving)."""
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _merge_group(members, group_cells, model=None):
    """Union-find inside one group of same-map cells (``members``: their indices), pairs in
    the serial order: ``(tests, merges, apart)`` with the cells' indices (``model``: as
    for :func:`facet_evidence`)."""
    parent = list(range(len(members)))

    tests, merges, apart = 0, [], []
    for a in range(len(members)):
        for b in range(a + 1, len(members)):
            if _find(parent, a) == _find(parent, b):
                continue
            tests += 1
            ev = facet_evidence(group_cells[a], group_cells[b], model)
            if ev[0] == "adjacent":
                parent[_find(parent, b)] = _find(parent, a)
                merges.append((members[a], members[b], ev[1], ev[2], ev[3], ev[4]))
            else:
                apart.append((members[a], members[b], ev[1]))
    return tests, merges, apart


def _merge_groups(groups) -> list:
    """:func:`_merge_group` for each ``(members, cells)`` of a run of groups (one task)."""
    return [_merge_group(members, group_cells, model) for members, group_cells, model in groups]


def merge_linear_regions(cells, model_index: int = 0, evidence: bool = False, executor=None, model=None):
    """Union-find over cells with equal affine maps, joined across shared facets through
    which f is affine (docs/theory.md, "Linear regions": the components of the set where f
    is locally affine; ``model``, when it is not continuous, is checked to be affine across
    each facet, :mod:`symrel.regions.facet_jumps`; without it every shared facet joins).
    Returns ``(number of regions, region index of each cell, LPs used)``; with
    ``evidence``, also the merges ``(i, j, row_i, row_j, point, path)`` and, for every
    same-map pair left in different regions, its ``(i, j, reasons)`` from
    :func:`facet_evidence`. The groups of same-map cells are independent: with an
    ``executor``, runs of groups are tasks (:func:`symrel.parallel.map_ordered`), and the
    results, taken in the groups' order, are the serial ones."""
    from ..parallel import chunked, map_ordered

    groups: dict = {}
    for i, c in enumerate(cells):
        groups.setdefault(tuple(c.outputs[model_index]), []).append(i)
    jumpy = model if model is not None and not is_continuous(model) else None
    work = [(members, [cells[i] for i in members], jumpy) for members in groups.values() if len(members) > 1]
    done = [r for part in map_ordered(_merge_groups, chunked(work, executor) if work else [], executor) for r in part]
    parent = list(range(len(cells)))

    tests, merges, apart = 0, [], []
    for t, m, a in done:
        tests += t
        merges += m
        apart += a
        for i, j, *_ in m:
            parent[_find(parent, j)] = _find(parent, i)
    roots = {}
    region_of = [roots.setdefault(_find(parent, i), len(roots)) for i in range(len(cells))]
    if not evidence:
        return len(roots), region_of, tests
    apart = [(i, j, r) for i, j, r in apart if _find(parent, i) != _find(parent, j)]
    return len(roots), region_of, tests, merges, apart


def _is_full_dimensional(cell) -> bool:
    A, b, d = [], [], len(inner(cell, "witness"))
    for f, rel in cell.rows:
        if rel == "=" and not f.is_constant():
            return False
        if rel != "=" and not f.is_constant():
            A.append(f.to_dense(d))
            b.append(-f.const)
    if not A:
        return True
    return feasibility(A, b, strict=[True] * len(A)).feasible


def count_regions(
    model,
    domain,
    kind: str = "linear",
    executor=None,
    max_cells: int | None = None,
    progress: bool = False,
    ties: bool = False,
    geometry: str = "auto",
) -> RegionCount:
    """Count the activation or linear regions of ``model`` over ``domain`` exactly.

    ``model``: a ReLU net, maxout net, CPWL1D, CPWL mesh function (its cells are its
    simplices within D) or hardmax Transformer; ``domain``:
    a :class:`~symrel.models.Box` or :class:`~symrel.models.Polytope` with
    non-empty interior. ``kind``: ``"linear"`` (default) or ``"activation"``.
    ``executor``: any :class:`concurrent.futures.Executor`. ``max_cells``: raise
    :class:`~symrel.errors.UndecidedError` beyond that many cells. ``ties``:
    also count the lower-dimensional tie cells (exact, tie-aware enumeration).
    ``geometry``: how each outcome is decided, ``"lp"`` (exact LP) or, for 1-D and
    2-D inputs, ``"polygon"`` (exact polygon clipping); ``"auto"`` picks polygons
    when they apply. Both are exact and give the same counts.

    Cost: one exact LP per outcome not settled by the parent's witness, then one
    per candidate pair of same-map cells for the linear count (for a hardmax Transformer,
    also one tie-aware enumeration of each common facet found, :mod:`.facet_jumps`).

    >>> from symrel.models import Box, ReLUNet, DenseLayer
    >>> lines = ReLUNet(2, [DenseLayer([[1, 0], [0, 1], [1, 1]], [0, 0, -1]), DenseLayer([[1, 1, 1]], [0], "none")])
    >>> count_regions(lines, Box([[-5, 5], [-5, 5]]), kind="activation").count   # 1 + 3 + 3
    7
    """
    if kind not in KINDS:
        raise InputError(f"expected kind 'linear' or 'activation', got {kind!r}", path="kind")
    t0 = time.perf_counter()
    if ties and getattr(model, "kind", None) == "cpwl":
        raise InputError("a CPWL function on a mesh is continuous: it has no tie cells", path="--ties")
    en = enumerate_cells([model], domain, mode="open", executor=executor, max_cells=max_cells,
                         progress=progress, geometry=geometry)
    stats = dict(en.stats)
    linear, region_of = None, None
    if kind == "linear":
        linear, region_of, tests = merge_linear_regions(en.cells, executor=executor, model=model)
        stats["adjacency_tests"] = tests
    tie_cells = None
    if ties:
        ex = enumerate_cells([model], domain, mode="exact", executor=executor, max_cells=max_cells)
        tie_cells = sum(1 for c in ex.cells if not _is_full_dimensional(c))
    n = len(en.cells)
    count = linear if kind == "linear" else n
    return RegionCount(kind, count, n, linear, time.perf_counter() - t0, en, region_of, tie_cells, stats)


