"""The cell search split across any :class:`concurrent.futures.Executor`.

The top of the tree is expanded here, breadth first, until its frontier holds
:data:`SUBTREES_PER_WORKER` nodes per worker (fewer when the tree is smaller); each
frontier node's subtree is then one task (:class:`SubtreeTask`, run by
:func:`subtree_task`, a top-level function, so process pools and Dask work). The
models and the domain are sent once per Dask worker (scattered), the tasks carry only
their node; a worker that dies has its subtrees run again
(:func:`symrel.parallel.map_ordered`).

Serial order. The serial search is depth first: it records a node's empty branches
when it expands the node and a cell when it reaches a leaf, so both lists are in the
pre-order of the tree. Every node expanded here and every subtree is tagged with its
position (the child indices from the root); sorting the pieces by position, a prefix
before its extensions, is that pre-order, so the cells, the empty branches and every
certificate built from them are the serial run's, byte for byte, whatever order the
tasks finish in.

>>> from concurrent.futures import ThreadPoolExecutor
>>> from symrel.models import Box, CPWL1D
>>> from symrel.regions import enumerate_cells
>>> f, D = CPWL1D([0, 1, 2, 3], [0, 1, 0, 1]), Box([[0, 3]])
>>> with ThreadPoolExecutor(2) as ex:
...     [c.path for c in enumerate_cells([f], D, executor=ex).cells]
[('s0',), ('s1',), ('s2',)]
"""

from __future__ import annotations

from dataclasses import dataclass

from .program_to_decisions import Runner
from .polygon_search import PolygonSearch
from .search import CellSearch, SearchNode


# Enough subtrees that uneven ones still even out over the workers. Measured on random
# ReLU nets 2-24-24-1 to 2-32-32-1 (the scale-out benchmark): with 16 per worker the largest
# subtree was up to 18% of the work and, when it came last, 2 workers could do at best 1.71x;
# with 32 it was at most 7% and the best was 1.95x, for about 3 ms of Dask overhead per task.
SUBTREES_PER_WORKER = 32


@dataclass
class SubtreeTask:
    """One subtree of the search: the mode, the node to start from (its path is
    replayed from the root, so no execution state travels) and the search's settings.
    The models and the domain travel beside it, once per worker."""

    mode: str
    path: tuple
    rows: list
    active: object
    witness: list
    record_empty: bool
    max_cells: int | None
    by_polygon: bool
    check: object = None    # a top-level function ``check(cell, stats)``: a cell's record, ``("differs", ..)`` stops


class _Decided(Exception):
    """Raised in this process once the first differing cell in serial order is known."""


def box_of(domain):
    """The bounds of a box domain (None for any other domain)."""
    from ..models import Box

    return domain.exact_bounds if isinstance(domain, Box) else None


def subtree_task(models, domain, task: SubtreeTask):
    """Enumerate one subtree (runs in a worker): ``(cells, empty branches, stats, done,
    checks, path)``, each list in the serial order of the subtree; with ``task.check``, every cell
    is checked as it is produced (``checks``: one record per cell) and the first differing
    cell ends the subtree, as it ends the serial search."""
    runner = Runner(models, domain.dim, task.mode)
    state = runner.start()
    for label in task.path:
        state = runner.advance_label(state, label)
    kind = PolygonSearch if task.by_polygon else CellSearch
    search = kind(runner, task.record_empty, task.max_cells, False, None if task.by_polygon else box_of(domain))
    checks: list = []
    if task.check is not None:
        def on_cell(cell):
            checks.append(task.check(cell, search.stats))
            return checks[-1][0] == "differs"

        search.on_cell = on_cell
    done = search.run([SearchNode(state, tuple(task.path), task.rows, task.active, task.witness)])
    return search.cells, search.empty, search.stats, done, checks, tuple(task.path)


def _frontier(search, root, size):
    """Expand the top of the tree breadth first until at least ``size`` nodes are open.
    Returns the open nodes and the pieces found on the way, each with its position:
    ``[(position, node)]`` and ``[(position, cells, empty branches)]``."""
    frontier, pieces = [((), root)], []
    while frontier and len(frontier) < size:
        nxt = []
        for pos, node in frontier:
            before = len(search.empty)
            leaf, children = search.expand(node)
            pieces.append((pos, [leaf] if leaf is not None else [], search.empty[before:]))
            nxt.extend((pos + (i,), child) for i, child in enumerate(children))
        frontier = nxt
    del search.empty[:]
    return frontier, pieces


def run_parallel(search, root, models, domain, mode, executor, max_cells, record_empty, by_polygon,
                 check=None) -> bool:
    """Expand ``root`` with ``search`` on ``executor``; False when ``max_cells`` was passed.
    Afterwards ``search.cells`` and ``search.empty`` are those of the serial run (when
    complete; past ``max_cells``, the first ``max_cells + 1`` cells are).

    ``check(cell, stats)`` (a top-level function, it runs in the workers): every cell is
    checked as it is produced, and ``search.checks`` holds the records in serial order. The
    first cell whose record is ``("differs", ...)`` ends the search as in the serial run:
    once every piece before it in serial order is in, the other subtrees are cancelled and
    the cells end at that cell (the statistics count the work done, which may be more)."""
    from ..parallel import map_ordered, worker_count

    frontier, pieces = _frontier(search, root, SUBTREES_PER_WORKER * worker_count(executor))
    pieces = [(pos, cells, empty, [check(c, search.stats) for c in cells] if check else [], True)
              for pos, cells, empty in pieces]
    search.cells = [c for _, cells, _, _, _ in pieces for c in cells]
    tasks = [SubtreeTask(mode, tuple(node.path), node.rows, node.active, node.witness, record_empty, max_cells,
                         by_polygon, check) for _, node in frontier]
    position = {tuple(node.path): pos for pos, node in frontier}
    finished: dict = {}      # frontier position -> (cells, empty, checks, done)

    def answer_known() -> bool:
        """Whether the first differing cell in serial order is known (every piece before it is in)."""
        known = sorted([(p[0], p[3]) for p in pieces] + [(pos, f[2]) for pos, f in finished.items()]
                       + [(pos, None) for pos, _ in frontier if pos not in finished])
        for _, checks in known:
            if checks is None:
                return False
            if any(rec[0] == "differs" for rec in checks):
                return True
        return False

    def arrived(done, total, result):  # progress as subtrees finish; stop once the answer is known
        cells, empty, stats, ok, checks, path = result
        finished[position[path]] = (cells, empty, checks, ok)
        search.cells.extend(cells)
        for k, v in stats.items():
            search.stats[k] = search.stats.get(k, 0) + v
        search.tick()
        if check is not None and answer_known():
            raise _Decided

    if not (check is not None and answer_known()):
        try:
            map_ordered(subtree_task, tasks, executor, shared=(list(models), domain), progress=arrived)
        except _Decided:
            pass
    pieces += [(pos, cells, empty, checks, ok) for pos, (cells, empty, checks, ok) in finished.items()]
    pieces.sort(key=lambda piece: piece[0])
    search.cells = [c for _, cells, _, _, _ in pieces for c in cells]
    search.empty = [e for _, _, empty, _, _ in pieces for e in empty]
    search.checks = [r for _, _, _, checks, _ in pieces for r in checks]
    done = all(ok for _, _, _, _, ok in pieces)
    stop = next((k for k, rec in enumerate(search.checks) if rec[0] == "differs"), None)
    if stop is not None and (max_cells is None or stop <= max_cells):   # the serial run ends at this cell
        del search.cells[stop + 1:], search.checks[stop + 1:]
        return True
    if max_cells is not None and len(search.cells) > max_cells:
        del search.cells[max_cells + 1:], search.checks[max_cells + 1:]
        done = False
    return done
