"""Whether a model that is not continuous (a hardmax Transformer) is affine across the
common facet of two open cells with the same map (docs/theory.md, "Linear regions").

symrel's linear regions are the connected components of the set of interior points of
D near which f is affine. Two open cells P and Q with the same map L, whose closures share
the facet F on the hyperplane H (``h = 0``), are joined through F exactly when some point
of the relatively open facet has a neighbourhood on which f is affine, that is, when f
equals L on an open piece of F. For a continuous model that always holds; at a hardmax tie
f takes the average of the tied values, which may differ from L.

:func:`facet_jumps` decides it exactly: it enumerates the tie-aware (exact mode) cells of
the model inside F (the root rows: h an equality, the other rows of P and Q strict, rows
constant on H left out) and looks at each leaf:

* an equality row that does not vanish on H: the leaf is lower-dimensional (``lower``);
* an output whose map differs from L on H (``differs``);
* otherwise the leaf's rows, made strict where they are not constant on H, are either
  infeasible (a Farkas vector: no (d-1)-dimensional part) or give a point y of the leaf's
  relative interior in H: f = L near y, and P, Q are joined there (``("affine", y, path)``).

Every Farkas vector of the tree is in the normal form over the rows made strict (each
entry names the first of identical rows). If no leaf gives such a point, the whole tree is
the evidence that f is not affine near any
point of F (``("jumps", branches)``, checked by :mod:`symrel.checking.regions`).

Cost: one exact cell enumeration of the model inside F, plus one LP per leaf that is
neither lower-dimensional nor of another map.

>>> from symrel.models import Attention, AttentionHead, Block, Box, Embedding, Readout, Transformer
>>> emb = Embedding([0], [[0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]], width=5, tokens=3)
>>> head = AttentionHead([[1, 0, 0, 0, 0]], [[0, 0, 1, -1, 0]], [[0, 3, 0, 0, 0]], [[0], [0], [0], [0], [1]], width=5)
>>> f = Transformer(1, 5, 3, emb, [Block(Attention([head], "hardmax"), None)],
...                 Readout(0, [[0, 0, 0, 0, -1]], [1], width=5, tokens=3))   # scores 0, x, -x
>>> [str(f([x])[0]) for x in ("-1/1000", "0", "1/1000")]      # at the tie x = 0 all three average
['1', '0', '1']
>>> from symrel.regions import count_regions
>>> r = count_regions(f, Box([[-1, 1]]))
>>> r.activation_cells, r.count     # two cells with the map 1; f jumps between them
(2, 2)
"""

from __future__ import annotations

from ..exact.forms import Row
from .cell_json import farkas_json
from .cell_lp import cell_lp, first_of_repeats
from .program_to_decisions import Runner
from .search import CellSearch, SearchNode


def constant_on(f, h) -> bool:
    """Whether the form f is constant on the hyperplane ``h = 0``."""
    return f.is_constant() or f.parallel_offset(h) is not None


def vanishes_on(f, h) -> bool:
    """Whether the form f is 0 on the whole hyperplane ``h = 0``."""
    return f.is_zero() or (not f.is_constant() and f.parallel_offset(h) == 0)


def facet_root(P, Q_, i):
    """The rows of the relatively open common facet on the hyperplane of P's row i (as
    the checker builds them): that row an equality, the other rows of P and Q strict, in
    their order, less the rows constant on the hyperplane (constants there, which the
    facet's own rows settle or, were one false, make the facet empty: dropping them only
    widens the set covered)."""
    h = P.rows[i][0]
    rows = []
    for k, (f, rel) in enumerate(P.rows + Q_.rows):
        if k == i:
            rows.append(Row(f, "="))
        elif not constant_on(f, h):
            rows.append(Row(f, "<"))
    return rows


def _strict_on(rows, h):
    """The rows made strict where they are not constant on the hyperplane ``h = 0``."""
    return [r if r.rel == "=" or constant_on(r.form, h) else Row(r.form, "<") for r in rows]


def _rows_of_path(runner, root_rows, path):
    """The rows of the branch ``path`` below ``root_rows`` (the root's, then each outcome's)."""
    state, out = runner.start(), list(root_rows)
    for label in path:
        choice = next(c for c in runner.choices(state) if c.label == label)
        out += list(choice.rows)
        state = runner.take(state, choice)
    return out


def facet_jumps(model, P, Q_, i, point):
    """``("affine", y, path)`` when f is affine near a point y of the common facet of the
    open cells P and Q on P's row i (``path``: the exact-mode decisions at y), else
    ``("jumps", branches)``: the checked tree showing it is affine near no point of it
    (module docstring). ``point``: a point of the relatively open facet."""
    h = P.rows[i][0]
    L = P.outputs[0]
    rows = facet_root(P, Q_, i)
    runner = Runner([model], len(point), "exact")
    search = CellSearch(runner, record_empty=True, max_cells=None, progress=False, box=None)
    search.run([SearchNode(runner.start(), (), rows, list(range(len(rows))), list(point))])
    branches = [{"path": list(e.path), "farkas": farkas_json(first_of_repeats(
        _strict_on(_rows_of_path(runner, rows, e.path), h), e.farkas))} for e in search.empty]
    for cell in search.cells:
        entry = {"path": list(cell.path)}
        lower = next((k for k, (f, rel) in enumerate(cell.rows) if rel == "=" and not vanishes_on(f, h)), None)
        differs = next((r for r, (u, v) in enumerate(zip(cell.outputs[0], L)) if not vanishes_on(u - v, h)), None)
        if lower is not None:
            entry["lower"] = lower
        elif differs is not None:
            entry["differs"] = differs
        else:
            strict = _strict_on(cell.rows, h)
            needed = [k for k, r in enumerate(strict) if r.rel == "=" or not constant_on(r.form, h)]
            y, cert = cell_lp(strict, needed, {}, len(point))
            if y is not None:
                return ("affine", y, list(cell.path))
            entry["farkas"] = farkas_json(cert)
        branches.append(entry)
    return ("jumps", branches)
