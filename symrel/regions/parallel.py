"""The cell search split across any :class:`concurrent.futures.Executor`.

The tree is expanded breadth first until it has a few nodes per worker; then each
subtree is one :class:`SubtreeTask` (plain picklable data: the models themselves go by
pickle) run by :func:`subtree_task`, a top-level function, so process pools work. The
cells come back in the order of the serial run.

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

from .model_to_program import Runner
from .polygon_search import PolygonSearch
from .search import CellSearch, SearchNode


@dataclass
class SubtreeTask:
    """One subtree of the search: the models and domain, the mode, the node to start
    from (its path is replayed from the root, so no execution state travels) and the
    search's settings."""

    models: list
    domain: object
    mode: str
    path: tuple
    rows: list
    active: object
    witness: list
    record_empty: bool
    max_cells: int | None
    by_polygon: bool


def box_of(domain):
    """The bounds of a box domain (None for any other domain)."""
    from ..models import Box

    return domain.bounds if isinstance(domain, Box) else None


def subtree_task(task: SubtreeTask):
    """Enumerate one subtree (runs in a worker): ``(cells, empty branches, stats, done)``."""
    runner = Runner(task.models, task.domain.dim, task.mode)
    state = runner.start()
    for label in task.path:
        state = runner.advance_label(state, label)
    kind = PolygonSearch if task.by_polygon else CellSearch
    search = kind(runner, task.record_empty, task.max_cells, False, box_of(task.domain))
    done = search.run([SearchNode(state, tuple(task.path), task.rows, task.active, task.witness)])
    return search.cells, search.empty, search.stats, done


def run_parallel(search, root, models, domain, mode, executor, max_cells, record_empty, by_polygon) -> bool:
    """Expand ``root`` with ``search`` on ``executor``; False when ``max_cells`` was passed."""
    workers = getattr(executor, "_max_workers", None) or 4
    frontier = [root]
    while frontier and len(frontier) < 4 * workers:
        nxt = []
        progressed = False
        for node in frontier:
            leaf, children = search.expand(node)
            if leaf is not None:
                search.cells.append(leaf)
            else:
                progressed = True
                nxt.extend(children)
        frontier = nxt
        if not progressed:
            break
    tasks = [SubtreeTask(list(models), domain, mode, tuple(node.path), node.rows, node.active, node.witness,
                         record_empty, max_cells, by_polygon) for node in frontier]
    futures = [executor.submit(subtree_task, t) for t in tasks]
    done = True
    for fut in futures:
        cells, empty, stats, ok = fut.result()
        search.cells.extend(cells)
        search.empty.extend(empty)
        for k, v in stats.items():
            search.stats[k] = search.stats.get(k, 0) + v
        done = done and ok
        search.tick()
        if max_cells is not None and len(search.cells) > max_cells:
            done = False
    return done
