"""Exact cell enumeration: a search tree over the decisions of one or more models.

Each node of the tree is a set ``{x in D : rows}`` (``D`` the domain); its
children are the outcomes of the next decision (:mod:`.model_to_program`). An
outcome is kept when the exact LP (:func:`symrel.exact.lp.feasibility`) finds a
witness point, dropped with a Farkas vector when it is empty. A cheap test comes
first: when the parent's witness already satisfies an outcome's rows, that
outcome is non-empty with the same witness and no LP is run. When exactly one
outcome survives, its rows are implied by the parent's rows (the outcomes cover
the parent; in the open mode, up to forms that vanish identically, which have
outcomes of their own), so they are not added to the LP of the subtree.

Leaves are *cells*: every decision made, each model affine on the cell with a
known map. The result lists the cells, with witness points, and every empty
branch with its Farkas vector (``record_empty=True``), which is what a
certificate needs.

Work is split across any :class:`concurrent.futures.Executor`: the tree is
expanded breadth first until it has a few nodes per worker, then each subtree
is one task (:func:`_subtree_task`, a top-level function, so process pools
work; models travel as their JSON).

>>> from symrel.models import Box, CPWL1D
>>> res = enumerate_cells([CPWL1D([0, 1, 2, 3], [0, 1, 0, 1])], Box([[0, 3]]))
>>> len(res.cells), [c.path for c in res.cells]
(3, [('s0',), ('s1',), ('s2',)])
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from ..errors import InputError, UndecidedError
from ..exact import Q
from ..exact.lp import feasibility
from . import polygons
from .model_to_program import Runner, evaluate_form, is_constant_form

ZERO, ONE = Q(0), Q(1)


@dataclass
class Cell:
    """A leaf: ``path`` (the outcome labels), ``rows`` (every constraint row,
    domain first, as ``(form, rel)``), ``witness`` (a point satisfying all of
    them), ``outputs`` (per model, its output forms on the cell)."""

    path: tuple
    rows: list
    witness: list
    outputs: tuple


@dataclass
class EmptyBranch:
    """An outcome shown empty: ``path`` ends with its label; ``farkas`` is a list
    of ``(row index, multiplier)`` over the rows of the path (domain first)."""

    path: tuple
    farkas: list


@dataclass
class Enumeration:
    cells: list
    empty: list
    stats: dict = field(default_factory=dict)
    complete: bool = True
    mode: str = "open"


def domain_rows(domain, mode: str):
    """The domain's halfspaces as rows ``(form, rel)``."""
    A, b = domain.halfspaces()
    rel = "<" if mode == "open" else "<="
    return [(tuple(a) + (-bi,), rel) for a, bi in zip(A, b)]


def farkas_json(cert) -> list:
    """A Farkas vector ``[(row, multiplier)]`` as canonical JSON, scaled so that its
    multipliers' absolute values add up to 1 (a positive multiple of a Farkas vector
    is one; the normal form makes every recorded number checkable)."""
    from ..exact import format_rational

    total = sum((abs(v) for _, v in cert), ZERO)
    return [[i, format_rational(v / total)] for i, v in cert]


def row_values(rows, x) -> list:
    """The value of every row's form at x, as canonical JSON numbers (recorded beside a
    witness so that the checker recomputes them: any altered coordinate shows)."""
    from ..exact import format_rational

    return [format_rational(evaluate_form(f, x)) for f, _ in rows]


def _satisfies(row, x) -> bool:
    f, rel = row
    v = evaluate_form(f, x)
    return v < 0 if rel == "<" else (v <= 0 if rel == "<=" else v == 0)


def _lp(rows, indices, stats):
    """The LP over ``rows[i] for i in indices``; Farkas entries mapped back to row indices."""
    A, b, strict, C, d, ineq_ids, eq_ids = [], [], [], [], [], [], []
    for i in indices:
        f, rel = rows[i]
        if rel == "=":
            C.append(list(f[:-1]))
            d.append(-f[-1])
            eq_ids.append(i)
        else:
            A.append(list(f[:-1]))
            b.append(-f[-1])
            strict.append(rel == "<")
            ineq_ids.append(i)
    stats["lps"] = stats.get("lps", 0) + 1
    res = feasibility(A, b, C, d, strict=strict)
    if res.feasible:
        return res.point, None
    y, z = res.farkas
    cert = [(ineq_ids[k], v) for k, v in enumerate(y) if v] + [(eq_ids[k], v) for k, v in enumerate(z) if v]
    return None, cert


def _constant_row_status(row):
    """For a row whose form has no x-part: (True, None) if it holds, else (False, multiplier)."""
    f, rel = row
    c = f[-1]
    if rel == "<":
        return (True, None) if c < 0 else (False, ONE)
    if rel == "<=":
        return (True, None) if c <= 0 else (False, ONE)
    return (True, None) if c == 0 else (False, ONE if c > 0 else -ONE)


def _box_farkas(row, index, box):
    """A Farkas vector from the box rows alone, when the row fails on the whole box.

    For ``f = a.x + c``, ``min f`` over the box is ``c + sum a_i (l_i or u_i)``;
    weights ``a_i`` on the lower-bound rows (``a_i > 0``) and ``-a_i`` on the
    upper-bound rows cancel the x-part (rows ``2i``: ``x_i <= u_i``, ``2i+1``:
    ``-x_i <= -l_i``, as :meth:`Box.halfspaces` lists them)."""
    f, rel = row
    lo = hi = f[-1]
    for a, (l, u) in zip(f, box):
        if a > 0:
            lo, hi = lo + a * l, hi + a * u
        elif a < 0:
            lo, hi = lo + a * u, hi + a * l
    sign = None
    if (rel == "<" and lo >= 0) or (rel in ("<=", "=") and lo > 0):
        sign = ONE
    elif rel == "=" and hi < 0:
        sign = -ONE
    if sign is None:
        return None
    cert = [(index, sign)]
    for i, a in enumerate(f[:-1]):
        a = a * sign
        if a > 0:
            cert.append((2 * i + 1, a))
        elif a < 0:
            cert.append((2 * i, -a))
    return cert


class _Search:
    def __init__(self, runner: Runner, record_empty: bool, max_cells, progress, box=None):
        self.box = box
        self.runner = runner
        self.record_empty = record_empty
        self.max_cells = max_cells
        self.progress = progress
        self.cells: list = []
        self.empty: list = []
        self.stats: dict = {"lps": 0, "nodes": 0}
        self._last = 0.0
        self._t0 = time.perf_counter()

    def expand(self, node):
        """Children of a node: ``(leaf cell or None, [child nodes])``."""
        state, path, rows, active, witness = node
        self.stats["nodes"] += 1
        choices = self.runner.choices(state)
        if choices is None:
            return Cell(path, rows, witness, self.runner.outputs(state)), []
        feasible = []
        for k, ch in enumerate(choices):
            base = len(rows)
            new_rows = rows + list(ch.rows)
            needed, dead = [], None
            for j, row in enumerate(ch.rows):
                if is_constant_form(row[0]):
                    ok, mult = _constant_row_status(row)
                    if not ok:
                        dead = [(base + j, mult)]
                        break
                else:
                    needed.append(base + j)
            if dead is not None:
                if self.record_empty:
                    self.empty.append(EmptyBranch(path + (ch.label,), dead))
                continue
            if all(_satisfies(new_rows[i], witness) for i in needed):
                feasible.append((k, ch, new_rows, needed, witness))
                continue
            if self.box is not None and len(needed) == 1:
                dead = _box_farkas(new_rows[needed[0]], needed[0], self.box)
                if dead is not None:
                    if self.record_empty:
                        self.empty.append(EmptyBranch(path + (ch.label,), dead))
                    continue
            point, cert = _lp(new_rows, active + needed, self.stats)
            if point is None:
                if self.record_empty:
                    self.empty.append(EmptyBranch(path + (ch.label,), cert))
                continue
            feasible.append((k, ch, new_rows, needed, point))
        children = []
        split = len(feasible) > 1
        for k, ch, new_rows, needed, point in feasible:
            child_state = self.runner.take(state, ch)
            children.append((child_state, path + (ch.label,), new_rows, active + needed if split else active, point))
        return None, children

    def run(self, roots):
        stack = list(reversed(roots))
        while stack:
            node = stack.pop()
            leaf, children = self.expand(node)
            if leaf is not None:
                self.cells.append(leaf)
                self._tick()
                if self.max_cells is not None and len(self.cells) > self.max_cells:
                    return False
            stack.extend(reversed(children))
        return True

    def _tick(self, force=False):
        if not self.progress:
            return
        now = time.perf_counter()
        if force or now - self._last > 0.5:
            self._last = now
            rate = len(self.cells) / max(now - self._t0, 1e-9)
            print(f"\rcells: {len(self.cells)}  LPs: {self.stats['lps']}  ({rate:.0f} cells/s)", end="", file=sys.stderr, flush=True)


class _PolygonSearch(_Search):
    """Open cells of 1-D and 2-D inputs decided by exact polygon geometry
    (:mod:`.polygons`) instead of LPs: an outcome is kept iff the cell clipped by
    its rows has positive area; the witness is the average of the vertices. The
    node's third slot holds the polygon instead of the active rows."""

    def expand(self, node):
        state, path, rows, (poly, box), witness = node
        self.stats["nodes"] += 1
        choices = self.runner.choices(state)
        if choices is None:
            return Cell(path, rows, witness, self.runner.outputs(state)), []
        kept = []
        for ch in choices:
            sub, ok = poly, True
            if len(ch.rows) == 1 and not is_constant_form(ch.rows[0][0]):
                # cheap tests first: the witness inside, or the cell's bounding box outside
                f = ch.rows[0][0]
                if evaluate_form(f, witness) < 0:
                    kept.append((ch, None))
                    continue
                if polygons.lower_bound(f, box) >= 0:
                    continue
            for f, rel in ch.rows:
                if is_constant_form(f):
                    ok = f[-1] < 0
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
            return None, [(self.runner.take(state, ch), path + (ch.label,), rows + list(ch.rows), (poly, box), witness)]
        children = []
        for ch, sub in kept:
            if sub is None:  # clip what the cheap test let through unclipped
                sub = polygons.clip(poly, ch.rows[0][0])
            children.append((self.runner.take(state, ch), path + (ch.label,), rows + list(ch.rows),
                             (sub, polygons.bounding_box(sub)), polygons.simple_interior_point(sub)))
        return None, children


def _domain_polygon(domain):
    """The domain as an exact polygon (None when it is unbounded or not 1-D/2-D)."""
    from ..models import Box

    if domain.dim > 2:
        return None
    if isinstance(domain, Box):
        return polygons.box_polygon(domain.bounds)
    big = Q(10**9)
    poly = polygons.box_polygon([(-big, big)] * domain.dim)
    for f, _ in domain_rows(domain, "open"):
        poly = polygons.clip(poly, f)
    if not poly or any(abs(v) == big for p in poly for v in p):
        return None
    return poly


def _use_polygons(geometry, mode, domain, record_empty) -> bool:
    if geometry == "lp":
        return False
    ok = mode == "open" and not record_empty and _domain_polygon(domain) is not None
    if geometry == "polygon" and not ok:
        raise ValueError("polygon geometry needs the open mode, a bounded 1-D or 2-D domain and no certificates")
    return ok


def _root(runner: Runner, domain, mode):
    rows = domain_rows(domain, mode)
    active = list(range(len(rows)))
    stats: dict = {}
    point, cert = _lp(rows, active, stats)
    if point is None:
        raise InputError(
            "the domain is empty" if mode == "exact" else "the domain has empty interior (open cells need a full-dimensional domain)",
            path="domain",
        )
    return (runner.start(), (), rows, active, point)


def _box_of(domain):
    from ..models import Box

    return domain.bounds if isinstance(domain, Box) else None


# -- parallel work ----------------------------------------------------------------------

_MODEL_CACHE: dict = {}


def _models_from_json(objs):
    from ..fileformat import canonical_dumps, from_json

    key = canonical_dumps(objs)
    if key not in _MODEL_CACHE:
        _MODEL_CACHE.clear()
        _MODEL_CACHE[key] = [from_json(o) for o in objs]
    return _MODEL_CACHE[key]


def _subtree_task(task):
    """Enumerate one subtree (runs in a worker). ``task`` is plain picklable data."""
    model_objs, dim, mode, path, rows, active, witness, record_empty, max_cells, by_polygon = task
    models = _models_from_json(model_objs)
    runner = Runner(models[:-1], dim, mode)
    state = runner.start()
    for label in path:
        state = runner.advance_label(state, label)
    kind = _PolygonSearch if by_polygon else _Search
    search = kind(runner, record_empty, max_cells, False, _box_of(models[-1]))
    done = search.run([(state, tuple(path), rows, active, witness)])
    return search.cells, search.empty, search.stats, done


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
    is asked for).
    Cost: one exact LP per outcome the parent's witness does not already satisfy
    (polygons: O(vertices) exact operations per outcome instead).
    """
    if not models:
        raise ValueError("need at least one model")
    dim = domain.dim
    runner = Runner(models, dim, mode)
    t0 = time.perf_counter()
    root = _root(runner, domain, mode)
    by_polygon = _use_polygons(geometry, mode, domain, record_empty)
    if by_polygon:
        poly = _domain_polygon(domain)
        root = (root[0], root[1], root[2], (poly, polygons.bounding_box(poly)), polygons.simple_interior_point(poly))
        search = _PolygonSearch(runner, record_empty, max_cells, progress, None)
    else:
        search = _Search(runner, record_empty, max_cells, progress, _box_of(domain))
    if executor is None:
        done = search.run([root])
    else:
        done = _run_parallel(search, root, models, domain, mode, executor, max_cells, record_empty, by_polygon)
    search._tick(force=True)
    if progress:
        print(file=sys.stderr)
    stats = dict(search.stats)
    stats["cells"] = len(search.cells)
    stats["seconds"] = time.perf_counter() - t0
    if not done:
        if on_limit == "raise":
            raise UndecidedError(f"cell limit reached: more than {max_cells} cells; raise --max-cells to decide")
        return Enumeration(search.cells, search.empty, stats, complete=False, mode=mode)
    return Enumeration(search.cells, search.empty, stats, complete=True, mode=mode)


def _run_parallel(search, root, models, domain, mode, executor, max_cells, record_empty, by_polygon):
    from ..fileformat import to_json

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
    objs = [to_json(m) for m in models] + [to_json(domain)]
    tasks = [
        (objs, domain.dim, mode, list(node[1]), node[2], node[3], node[4], record_empty, max_cells, by_polygon)
        for node in frontier
    ]
    futures = [executor.submit(_subtree_task, t) for t in tasks]
    done = True
    for fut in futures:
        cells, empty, stats, ok = fut.result()
        search.cells.extend(cells)
        search.empty.extend(empty)
        for k, v in stats.items():
            search.stats[k] = search.stats.get(k, 0) + v
        done = done and ok
        search._tick()
        if max_cells is not None and len(search.cells) > max_cells:
            done = False
    return done
