"""The cells of a CPWL function on a mesh over a domain: its simplices, cut by the domain.

For the region counts (:func:`~symrel.regions.count_regions`) a CPWL mesh function needs no
search: on every simplex it is affine, so the cells are the simplices whose interior meets
the domain's, as open polytopes ``{x in int D : lambda_i(x) > 0}`` (``lambda`` the
barycentric coordinates, rows of the simplex's inverse), each with its affine map. The
linear regions are then merged across shared facets exactly as for any model
(:func:`~symrel.regions.merge_linear_regions`): neighbouring simplices with the same
affine piece join, and for generic values the count is the number of simplices meeting D.

>>> from symrel.models import Box, CPWLMesh
>>> f = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], [2]])   # x + y
>>> en = mesh_enumeration(f, Box([[0, 1], [0, 1]]))
>>> len(en.cells), en.cells[0].outputs
(2, ([AffineForm([0, [[0, 1], [1, 1]]])],))

Cost: one point test per simplex (its centroid), an exact LP for a simplex the centroid
test does not settle.
"""

from __future__ import annotations

from ..exact.forms import AffineForm, Row
from .cell_lp import cell_lp, domain_rows
from .enumerate_cells import Cell, Enumeration


def mesh_enumeration(f, domain) -> Enumeration:
    """The open cells (simplex interior within the domain's interior) of a mesh function."""
    f.check_domain(domain)
    base = domain_rows(domain, "open")
    cells, lps = [], 0
    for k, (simplex, geometry) in enumerate(zip(f.simplices, f.geometry)):
        rows = base + [Row(-AffineForm.from_dense(row[:-1], row[-1]), "<") for row in geometry.inverse]
        centre = [sum(p[i] for p in geometry.points) / len(geometry.points) for i in range(f.input_dim)]
        if all(row.holds_at(centre) for row in rows):
            point = centre
        else:
            lps += 1
            point, _ = cell_lp(rows, list(range(len(rows))), {}, f.input_dim)
            if point is None:
                continue
        outputs = [AffineForm.from_dense(a, c) for a, c in f.pieces()[k]]
        cells.append(Cell((f"simplex {k}",), rows, list(point), (outputs,)))
    return Enumeration(cells, [], {"lps": lps, "cells": len(cells)}, complete=True, mode="open")


