"""The cell search for 1-D and 2-D inputs by exact polygon clipping instead of LPs.

An outcome is kept iff the cell clipped by its rows has positive area (:mod:`symrel.regions.polygons`);
the witness is an interior point of the clipped polygon. Only open cells, no
certificates (there are no Farkas vectors). Cost: O(vertices) exact operations per
outcome.

>>> from symrel.models import Box
>>> [str(v) for p in domain_polygon(Box([[0, 1], [0, 2]])) for v in p]
['0', '0', '1', '0', '1', '2', '0', '2']
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exact import Q
from . import polygons
from .cell_lp import domain_rows
from .search import Cell, CellSearch, SearchNode

ZERO = Q(0)


@dataclass
class Clipped:
    """A node's cell as an exact polygon and a box around it (for a cheap bound)."""

    polygon: list
    box: list


class PolygonSearch(CellSearch):
    """Open cells of 1-D and 2-D inputs decided by exact polygon geometry: the
    node's ``active`` slot holds its :class:`Clipped` polygon."""

    def expand(self, node: SearchNode):
        state, path, rows, witness = node.state, node.path, node.rows, node.witness
        poly, box = node.active.polygon, node.active.box
        self.stats["nodes"] += 1
        choices = self.runner.choices(state)
        if choices is None:
            return Cell(path, rows, witness, self.runner.outputs(state)), []
        kept = []
        for ch in choices:
            sub, ok = poly, True
            if len(ch.rows) == 1 and not ch.rows[0].is_constant():
                # cheap tests first: the witness inside, or the cell's bounding box outside
                f = ch.rows[0].form
                if f.value_at(witness) < ZERO:
                    kept.append((ch, None))
                    continue
                if f.minimum_on_box(box) >= ZERO:
                    continue
            for f, rel in ch.rows:
                if f.is_constant():
                    ok = f.const < 0
                elif not polygons.meets_open(sub, f):
                    ok = False
                else:
                    sub = polygons.clip(sub, f)
                if not ok:
                    break
            if ok and len(ch.rows) > 1 and polygons.area2(sub) == 0:
                ok = False
            if ok:
                kept.append((ch, sub))
        self.stats["polygon_tests"] = self.stats.get("polygon_tests", 0) + len(choices)
        if len(kept) == 1:  # the outcome holds on the whole cell: same polygon, same witness
            ch = kept[0][0]
            return None, [SearchNode(self.runner.take(state, ch), path + (ch.label,), rows + list(ch.rows),
                                     node.active, witness)]
        children = []
        for ch, sub in kept:
            if sub is None:  # clip what the cheap test let through unclipped
                sub = polygons.clip(poly, ch.rows[0].form)
            children.append(SearchNode(self.runner.take(state, ch), path + (ch.label,), rows + list(ch.rows),
                                       Clipped(sub, polygons.bounding_box(sub)), polygons.simple_interior_point(sub)))
        return None, children


def domain_polygon(domain):
    """The domain as an exact polygon (None when it is unbounded or not 1-D/2-D)."""
    from ..models import Box

    if domain.dim > 2:
        return None
    if isinstance(domain, Box):
        return polygons.box_polygon(domain.exact_bounds)
    big = Q(10**9)
    poly = polygons.box_polygon([(-big, big)] * domain.dim)
    for f, _ in domain_rows(domain, "open"):
        poly = polygons.clip(poly, f)
    if not poly or any(abs(v) == big for p in poly for v in p):
        return None
    return poly


def use_polygons(geometry, mode, domain, record_empty) -> bool:
    """Whether ``geometry`` (``"lp"``, ``"polygon"``, ``"auto"``) asks for, and the
    search allows, the polygon search."""
    if geometry == "lp":
        return False
    ok = mode == "open" and not record_empty and domain_polygon(domain) is not None
    if geometry == "polygon" and not ok:
        raise ValueError("polygon geometry needs the open mode, a bounded 1-D or 2-D domain and no certificates")
    return ok


def polygon_root(node: SearchNode, domain) -> SearchNode:
    """The root node of the polygon search, from the root of the LP search."""
    poly = domain_polygon(domain)
    return SearchNode(node.state, node.path, node.rows, Clipped(poly, polygons.bounding_box(poly)),
                      polygons.simple_interior_point(poly))
