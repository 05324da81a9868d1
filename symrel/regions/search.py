"""The search tree over the decisions of one or more models, decided by exact LPs.

Each node of the tree is a set ``{x in D : rows}`` (``D`` the domain); its children
are the outcomes of the next decision (:mod:`symrel.regions.program_to_decisions`). An outcome is kept
when the exact LP (:func:`symrel.regions.cell_lp.cell_lp`) finds a witness point, dropped with a
Farkas vector when it is empty. A cheap test comes first: when the parent's witness
already satisfies an outcome's rows, that outcome is non-empty with the same witness
and no LP is run. When exactly one outcome survives, its rows are implied by the
parent's rows (the outcomes cover the parent; in the open mode, up to forms that
vanish identically, which have outcomes of their own), so they are not added to the
LP of the subtree.

Leaves are *cells*: every decision made, each model affine on the cell with a known
map. Cost: one exact LP per outcome the parent's witness does not settle.

>>> from symrel.models import Box, CPWL1D
>>> from .program_to_decisions import Runner
>>> from .cell_lp import domain_rows
>>> run = Runner([CPWL1D([0, 1, 2], [0, 1, 0])], 1, "open")
>>> search = CellSearch(run, record_empty=False, max_cells=None, progress=False, box=None)
>>> rows = domain_rows(Box([[0, 2]]), "open")
>>> from symrel.exact import Q
>>> search.run([SearchNode(run.start(), (), rows, [0, 1], [Q(1, 2)])])
True
>>> [c.path for c in search.cells]
[('s0',), ('s1',)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..exact import Public
from .cell_lp import DenseRows, box_farkas, cell_lp
from .program_to_decisions import Runner


@dataclass
class Cell:
    """A leaf: ``path`` (the outcome labels), ``rows`` (every constraint row,
    domain first, as ``(form, rel)``), ``witness`` (a point satisfying all of
    them, read as sympy Rationals), ``outputs`` (per model, its output forms on the cell)."""

    path: tuple
    rows: list
    witness: list = Public()
    outputs: tuple


@dataclass
class EmptyBranch:
    """An outcome shown empty: ``path`` ends with its label; ``farkas`` is a list
    of ``(row index, multiplier)`` over the rows of the path (domain first)."""

    path: tuple
    farkas: list


@dataclass
class Enumeration:
    """The result of :func:`symrel.regions.enumerate_cells`."""

    cells: list
    empty: list
    stats: dict = field(default_factory=dict)
    complete: bool = True
    mode: str = "open"
    checks: list = field(default_factory=list)   # with ``check``: one record per cell, in order


@dataclass
class SearchNode:
    """A node of the search tree: the joint execution ``state`` (:class:`symrel.regions.program_to_decisions.State`),
    the outcome labels on the way (``path``), every row so far (domain first), the
    indices of the rows its LPs need (``active``; the polygon search keeps its
    :class:`symrel.regions.polygon_search.Clipped` polygon there instead) and a point of the node."""

    state: object
    path: tuple
    rows: list
    active: object
    witness: list


class CellSearch:
    """Depth-first expansion of :class:`SearchNode` s into cells (LP geometry)."""

    def __init__(self, runner: Runner, record_empty: bool, max_cells, progress, box=None):
        self.box = box
        self.runner = runner
        self.record_empty = record_empty
        self.max_cells = max_cells
        self.progress = progress
        self.cells: list = []
        self.empty: list = []
        self.stats: dict = {"lps": 0, "nodes": 0}
        self.dense = DenseRows(runner.dim)   # the rows' LP data, made once per row
        self._last = 0.0
        self._t0 = time.perf_counter()

    def expand(self, node: SearchNode):
        """Children of a node: ``(leaf cell or None, [child nodes])``."""
        state, path, rows, active, witness = node.state, node.path, node.rows, node.active, node.witness
        self.stats["nodes"] += 1
        choices = self.runner.choices(state)
        if choices is None:
            return Cell(path, rows, witness, self.runner.outputs(state)), []
        feasible = []
        base = len(rows)
        for k, ch in enumerate(choices):
            added = ch.rows   # the outcome's rows; they get indices base, base + 1, ...
            needed, dead = [], None
            for j, row in enumerate(added):
                if row.is_constant():
                    ok, mult = row.constant_status()
                    if not ok:
                        dead = [(base + j, mult)]
                        break
                else:
                    needed.append(j)
            if dead is not None:
                if self.record_empty:
                    self.empty.append(EmptyBranch(path + (ch.label,), dead))
                continue
            if all(added[j].holds_at(witness) for j in needed):
                new_rows = rows + list(added)
                self.dense.register(new_rows, base)
                feasible.append((k, ch, new_rows, [base + j for j in needed], witness))
                continue
            if self.box is not None and len(needed) == 1:
                dead = box_farkas(added[needed[0]], base + needed[0], self.box)
                if dead is not None:
                    if self.record_empty:
                        self.empty.append(EmptyBranch(path + (ch.label,), dead))
                    continue
            # the child's row list is built only here and for kept outcomes: most outcomes the
            # witness does not settle are emptied by the box alone, and copying ``rows`` (one
            # row per decision so far) for them cost more than the test
            new_rows, needed = rows + list(added), [base + j for j in needed]
            self.dense.register(new_rows, base)
            point, cert = cell_lp(new_rows, active + needed, self.stats, self.runner.dim, self.dense)
            if point is None:
                if self.record_empty:
                    self.empty.append(EmptyBranch(path + (ch.label,), cert))
                continue
            feasible.append((k, ch, new_rows, needed, point))
        children = []
        split = len(feasible) > 1
        for k, ch, new_rows, needed, point in feasible:
            child_state = self.runner.take(state, ch)
            children.append(SearchNode(child_state, path + (ch.label,), new_rows,
                                       active + needed if split else active, point))
        return None, children

    budget = None    # a symrel.budget.Budget, checked at every node of the tree
    on_cell = None   # called with each cell as it is produced; a true answer stops the search

    def run(self, roots) -> bool:
        """Expand every root to its cells; False when ``max_cells`` was passed."""
        for root in roots:
            self.dense.register(root.rows)
        stack = list(reversed(roots))
        while stack:
            if self.budget is not None:
                self.budget.at(lemma="the complete procedure: the cells of both raw programs",
                               cells_done=len(self.cells), cells_known=len(self.cells) + len(stack))
                self.budget.check()
            node = stack.pop()
            leaf, children = self.expand(node)
            if leaf is not None:
                self.cells.append(leaf)
                self.tick()
                if self.on_cell is not None and self.on_cell(leaf):
                    return True
                if self.max_cells is not None and len(self.cells) > self.max_cells:
                    return False
            stack.extend(reversed(children))
        return True

    def tick(self, force=False):
        """Progress on standard error (:class:`symrel.progress.Progress`: tqdm on a
        terminal, whole lines otherwise); ``force`` ends it with the last count."""
        if not self.progress:
            return
        if getattr(self, "_bar", None) is None:
            from ..progress import Progress

            self._bar = Progress("cells", unit="cell")
        self._bar.update(len(self.cells) - self._bar.count, lps=self.stats["lps"])
        if force:
            self._bar.close()


