"""Exact cell enumeration: every cell of one or more models over a domain.

The search tree over the decisions of the models (:mod:`symrel.regions.search`; :mod:`symrel.regions.polygon_search`
for 1-D and 2-D inputs) is run from the domain's root node, in this process or split
across an executor (:mod:`symrel.regions.parallel`). The result lists the cells, with witness points,
and every empty branch with its Farkas vector (``record_empty=True``), which is what a
certificate needs (:mod:`symrel.regions.cell_json`).

>>> from symrel.models import Box, CPWL1D
>>> res = enumerate_cells([CPWL1D([0, 1, 2, 3], [0, 1, 0, 1])], Box([[0, 3]]))
>>> len(res.cells), [c.path for c in res.cells]
(3, [('s0',), ('s1',), ('s2',)])
"""

from __future__ import annotations

import time

from ..errors import InputError, UndecidedError
from ..model_kinds import kind_of
from .cell_json import farkas_json, row_values
from .cell_lp import cell_lp, domain_rows
from .program_to_decisions import Runner
from .parallel import box_of, run_parallel
from .polygon_search import PolygonSearch, polygon_root, use_polygons
from .search import Cell, CellSearch, EmptyBranch, Enumeration, SearchNode

__all__ = ["Cell", "EmptyBranch", "Enumeration", "enumerate_cells", "farkas_json", "row_values"]


def root_node(runner: Runner, domain, mode) -> SearchNode:
    """The root of the search: the domain's rows, all active, and a point of the domain."""
    rows = domain_rows(domain, mode)
    active = list(range(len(rows)))
    point, _ = cell_lp(rows, active, {}, domain.dim)
    if point is None:
        raise InputError(
            "the domain is empty" if mode == "exact" else "the domain has empty interior (open cells need a full-dimensional domain)",
            path="domain",
        )
    return SearchNode(runner.start(), (), rows, active, point)


def enumerate_cells(
    models,
    domain,
    *,
    mode: str = "open",
    executor=None,
    max_cells: int | None = None,
    progress: bool = False,
    record_empty: bool = False,
    on_limit: str = "raise",
    geometry: str = "lp",
    budget=None,
    on_cell=None,
    check=None,
) -> Enumeration:
    """Every cell of ``models`` (a list, run jointly on the same input) over ``domain``.

    ``mode``: ``"open"`` (full-dimensional cells; rows strict) or ``"exact"``
    (a partition of the domain, ties as equalities). ``executor``: any
    :class:`concurrent.futures.Executor` (default: in this process).
    ``max_cells``: stop after that many cells, raising
    :class:`~symrel.errors.UndecidedError` (``on_limit="raise"``) or returning an
    :class:`Enumeration` with ``complete=False`` (``on_limit="return"``).
    ``geometry``: ``"lp"`` (every outcome decided by the exact LP, with Farkas
    vectors), ``"polygon"`` (open cells of 1-D/2-D inputs decided by exact polygon
    clipping, no LP) or ``"auto"`` (polygons when they apply and no certificate
    is asked for). ``budget`` (a :class:`~symrel.budget.Budget`) is checked at every
    node of the tree (serial runs); ``on_cell(cell)`` sees each cell as it is produced and
    stops the search by returning a true value (serial runs). ``check(cell, stats)``, a
    top-level function (it runs where the cell is produced, in the workers too), checks each
    cell as it is produced and returns its record (``Enumeration.checks``); the first record
    ``("differs", ...)`` ends the search, serial or parallel, at the same cell.
    Cost: one exact LP per outcome the parent's witness does not already satisfy
    (polygons: O(vertices) exact operations per outcome instead).
    """
    if not models:
        raise ValueError("need at least one model")
    dim = domain.dim
    runner = Runner(models, dim, mode)
    for m in models:
        if (kind := kind_of(m)) is not None and kind.support:   # its simplices cover the domain only inside its support
            kind.check_domain(m, domain)
    t0 = time.perf_counter()
    root = root_node(runner, domain, mode)
    by_polygon = use_polygons(geometry, mode, domain, record_empty)
    if by_polygon:
        root = polygon_root(root, domain)
        search = PolygonSearch(runner, record_empty, max_cells, progress, None)
    else:
        search = CellSearch(runner, record_empty, max_cells, progress, box_of(domain))
    search.budget, search.on_cell, search.checks = budget, on_cell, []
    if executor is None:
        if check is not None:
            def on_cell(cell):
                search.checks.append(check(cell, search.stats))
                return search.checks[-1][0] == "differs"

            search.on_cell = on_cell
        done = search.run([root])
    else:
        done = run_parallel(search, root, models, domain, mode, executor, max_cells, record_empty, by_polygon,
                            check)
    search.tick(force=True)
    stats = dict(search.stats)
    stats["cells"] = len(search.cells)
    stats["seconds"] = time.perf_counter() - t0
    if not done:
        if on_limit == "raise":
            raise UndecidedError(f"cell limit reached: more than {max_cells} cells; raise --max-cells to decide")
        return Enumeration(search.cells, search.empty, stats, complete=False, mode=mode, checks=search.checks)
    return Enumeration(search.cells, search.empty, stats, complete=True, mode=mode, checks=search.checks)
