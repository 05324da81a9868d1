"""Pictures of regions (matplotlib, an optional extra, imported only here when called).

* 1-D input: the function on the domain interval, piece by piece, with the
  breakpoints between linear regions marked;
* 2-D input: every cell filled with the colour of its affine map (cells with the
  same map share a colour), thin lines between cells, the domain outlined.

Cell geometry is computed exactly (intervals and polygons clipped with rational
arithmetic), then rounded to floats for drawing only. :func:`plot_regions`
draws on a matplotlib Axes and returns it (the backend is left alone);
:func:`save_regions_plot` writes a file, its format following the suffix
(``.png``, ``.svg``, ``.pdf``), atomically.

>>> from symrel.regions.plot import cell_polygon
>>> from symrel.exact import rational as r
>>> square = [(r(0), r(0)), (r(1), r(0)), (r(1), r(1)), (r(0), r(1))]
>>> from symrel.exact.forms import AffineForm, Row
>>> [tuple(str(v) for v in p) for p in cell_polygon([Row(AffineForm(r(-1), {0: r(1), 1: r(1)}), "<")], square)]   # x + y <= 1
[('0', '0'), ('1', '0'), ('0', '1')]
"""

from __future__ import annotations

import os

from ..errors import InputError
from ..exact import Q, to_float
from .polygons import clip

BIG = Q(10**6)


def cell_polygon(rows, start):
    """The closure of a 2-D cell as a polygon: ``start`` clipped by every row."""
    poly = list(start)
    for f, rel in rows:
        if rel == "=" or not poly:
            continue
        poly = clip(poly, f)
    return poly


def _interval(rows):
    lo, hi = -BIG, BIG
    for f, rel in rows:
        a, c = f.coefficient(0), f.const
        if a > 0:
            hi = min(hi, -c / a)
        elif a < 0:
            lo = max(lo, -c / a)
    return lo, hi


def _save(fig, path):
    import tempfile

    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower().lstrip(".") or "png"
    if suffix not in ("png", "svg", "pdf"):
        raise InputError(f"expected a .png, .svg or .pdf file, got {path!r}", path="--plot")
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, suffix="." + suffix)
    os.close(fd)
    try:
        fig.savefig(tmp, format=suffix, dpi=150, bbox_inches="tight")
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError as err:  # pragma: no cover - optional dependency
        raise InputError("plots need matplotlib (pip install symrel[plot])", path="--plot") from err
    return matplotlib


def _edge_key(p, q):
    """The line through p and q, normalised (same key for every edge on it), and
    the positions of p and q along it (exact)."""
    a, b = q[1] - p[1], p[0] - q[0]  # normal (a, b): a x + b y = c on the line
    s = a if a != 0 else b
    a, b = a / s, b / s
    c = a * p[0] + b * p[1]
    t = (lambda r: r[1]) if b == 0 else (lambda r: r[0])  # a coordinate that moves along the line
    lo, hi = sorted((t(p), t(q)))
    return (a, b, c), lo, hi


def polygon_adjacency(polygons) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of polygons sharing a piece of edge of positive length,
    found exactly: edges are grouped by the line they lie on, then overlapping
    intervals on a line are paired. For colouring a picture; the counts use the
    exact facet test of :mod:`symrel.regions.count` instead.

    Cost: O(E log E) for E edges (plus the overlaps found).

    >>> from symrel.exact import Q
    >>> sq = lambda x0: [(Q(x0), Q(0)), (Q(x0 + 1), Q(0)), (Q(x0 + 1), Q(1)), (Q(x0), Q(1))]
    >>> polygon_adjacency([sq(0), sq(1), sq(3)])
    [(0, 1)]
    """
    lines: dict = {}
    for i, poly in enumerate(polygons):
        for k in range(len(poly)):
            p, q = poly[k], poly[(k + 1) % len(poly)]
            if p == q:
                continue
            key, lo, hi = _edge_key(p, q)
            if lo < hi:
                lines.setdefault(key, []).append((lo, hi, i))
    pairs = set()
    for spans in lines.values():
        spans.sort()
        open_: list = []
        for lo, hi, i in spans:
            open_ = [s for s in open_ if s[1] > lo]
            for _, _, j in open_:
                if j != i:
                    pairs.add((min(i, j), max(i, j)))
            open_.append((lo, hi, i))
    return sorted(pairs)


def region_colours(n: int, edges) -> list[int]:
    """A colour index for each of ``n`` regions such that regions joined by an
    edge differ (networkx greedy colouring of the adjacency graph, largest
    degree first).

    >>> region_colours(3, [(0, 1), (1, 2)])
    [1, 0, 1]
    """
    import networkx as nx

    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    colouring = nx.greedy_color(G, strategy="largest_first")
    return [colouring[i] for i in range(n)]


def _palette(k: int):
    """``k`` distinct colours (tab10, then tab20, then evenly spaced hues)."""
    import matplotlib

    if k <= 10:
        return [matplotlib.colormaps["tab10"](i) for i in range(k)]
    if k <= 20:
        return [matplotlib.colormaps["tab20"](i) for i in range(k)]
    return [matplotlib.colormaps["hsv"](i / k) for i in range(k)]


def _class_of(result, cells):
    """The colour class of each cell: its linear region (or, for an activation
    count, its affine map: cells with one map share a colour)."""
    if result.region_of is not None:
        return list(result.region_of)
    maps: dict = {}
    return [maps.setdefault(tuple(c.outputs[0]), len(maps)) for c in cells]


def plot_regions(result, ax=None, *, title: str | None = None, output: int = 0, labels=None,
                 boundary: bool | None = None):
    """Draw a :class:`~symrel.regions.count.RegionCount` of a 1-D or 2-D input on
    ``ax`` (default: the current Axes, ``plt.gca()``) and return the Axes.

    2-D: each cell filled, neighbouring regions always in different colours
    (the adjacency graph of the regions coloured greedily), the domain outlined;
    1-D: output ``output`` piece by piece, region boundaries marked. ``labels``:
    the axis names (default ``x_1``, ``x_2``; a slice passes its own).
    ``boundary``: overlay the decision boundary, where the argmax of the outputs
    changes (or, for one output, where it crosses 0); default: for models with
    two or more outputs. The backend is never changed. Saving: :func:`save_regions_plot`
    (or ``ax.figure.savefig``; PNG, SVG or PDF by the file's extension).

    Passing a file name instead of ``ax`` saves the picture there and returns the
    file name (the older form).
    """
    if isinstance(ax, (str, os.PathLike)):
        return save_regions_plot(result, ax, title=title, output=output, labels=labels, boundary=boundary)
    _matplotlib()
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    cells = result.cells
    if not cells:
        raise InputError("nothing to draw: no cells", path="--plot")
    d = len(cells[0].witness)
    title = title if title is not None else f"{result.count} {result.kind} regions ({result.activation_cells} cells)"
    n_out = len(cells[0].outputs[0])
    if boundary is None:
        boundary = n_out >= 2
    if d == 1:
        _draw_1d(ax, result, cells, output, labels)
    elif d == 2:
        _draw_2d(ax, result, cells, labels, boundary)
    else:
        raise InputError(f"plots are drawn for 1-D and 2-D inputs, got {d}-D (take a slice: "
                         "symrel.regions.restrict_to_affine_slice, or symrel regions --slice i,j)", path="--plot")
    ax.set_title(title, fontsize=10)
    return ax


def save_regions_plot(result, path, *, figsize=None, **options) -> str:
    """Draw :func:`plot_regions` on a new figure of its own (no pyplot, so no
    backend is touched) and save it to ``path`` atomically; the format follows the
    extension (``.png``, ``.svg``, ``.pdf``). Returns ``path``."""
    _matplotlib()
    from matplotlib.figure import Figure

    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower().lstrip(".") or "png"
    if suffix not in ("png", "svg", "pdf"):
        raise InputError(f"expected a .png, .svg or .pdf file, got {path!r}", path="--plot")
    d = len(result.cells[0].witness) if result.cells else 2
    fig = Figure(figsize=figsize or ((6, 4.5) if d == 1 else (6, 6)))
    plot_regions(result, fig.add_subplot(), **options)
    _save(fig, path)
    return path


def _draw_1d(ax, result, cells, output, labels):
    classes = _class_of(result, cells)
    pieces = []
    for c, cls in zip(cells, classes):
        lo, hi = _interval(c.rows)
        f = c.outputs[0][output]
        a, b = f.coefficient(0), f.const
        pieces.append((lo, hi, a, b, cls))
    pieces.sort(key=lambda p: p[0])
    n = max(classes) + 1
    edges = [(l[4], r[4]) for l, r in zip(pieces, pieces[1:]) if l[4] != r[4]]
    colours = region_colours(n, edges)
    palette = _palette(max(colours) + 1)
    for lo, hi, a, b, cls in pieces:
        ax.plot([to_float(lo), to_float(hi)], [to_float(a * lo + b), to_float(a * hi + b)], color=palette[colours[cls]],
                lw=2)
    for left, right in zip(pieces, pieces[1:]):
        if left[4] != right[4]:
            x = to_float(left[1])
            ax.axvline(x, color="0.6", ls=":", lw=0.8)
            ax.plot([x], [to_float(left[2] * left[1] + left[3])], "o", color="black", ms=3)
    ax.set_xlabel(labels[0] if labels else "$x$")
    ax.set_ylabel(f"output {output + 1}")


def _draw_2d(ax, result, cells, labels, boundary):
    from matplotlib.patches import Polygon as Patch

    start = [(-BIG, -BIG), (BIG, -BIG), (BIG, BIG), (-BIG, BIG)]
    classes = _class_of(result, cells)
    polys = [cell_polygon(c.rows, start) for c in cells]
    keep = [i for i, p in enumerate(polys) if len(p) >= 3]
    cell_edges = polygon_adjacency([polys[i] for i in keep])
    n = max(classes) + 1
    edges = {(classes[keep[i]], classes[keep[j]]) for i, j in cell_edges if classes[keep[i]] != classes[keep[j]]}
    colours = region_colours(n, sorted(edges))
    palette = _palette(max(colours) + 1)
    xs, ys = [], []
    for i in keep:
        pts = [(to_float(x), to_float(y)) for x, y in polys[i]]
        xs += [p[0] for p in pts]
        ys += [p[1] for p in pts]
        ax.add_patch(Patch(pts, closed=True, facecolor=palette[colours[classes[i]]], edgecolor="white", lw=0.3))
    if boundary:
        for i in keep:
            for p, q in _decision_edges(polys[i], cells[i].outputs[0]):
                ax.plot([to_float(p[0]), to_float(q[0])], [to_float(p[1]), to_float(q[1])], color="black", lw=1.6)
    domain_rows = [(f, rel) for f, rel in cells[0].rows[: _n_domain_rows(cells)]]
    outline = cell_polygon(domain_rows, start)
    pts = [(to_float(x), to_float(y)) for x, y in outline]
    ax.add_patch(Patch(pts, closed=True, fill=False, edgecolor="black", lw=1.2))
    ax.set_xlim(min(xs), max(xs))
    ax.set_ylim(min(ys), max(ys))
    ax.set_aspect("equal", adjustable="box")
    names = labels or ("$x_1$", "$x_2$")
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])


def _decision_edges(poly, forms):
    """The edges, inside one cell, of the decision regions of the outputs
    ``forms`` (affine forms in x_0, x_1): where the argmax changes, or for a single
    output where it crosses 0. Exact clipping; floats only to draw."""
    diffs = [[forms[j] - forms[i] for j in range(len(forms)) if j != i]
             for i in range(len(forms))] if len(forms) > 1 else [[-forms[0]], [forms[0]]]
    out = []
    for rows in diffs:  # the part of the cell where output i wins: f_j - f_i <= 0 for all j
        part = poly
        for g in rows:
            part = clip(part, g) if part else part
        for k in range(len(part)):
            p, q = part[k], part[(k + 1) % len(part)]
            if p != q and any(_on(g, p) and _on(g, q) for g in rows):
                out.append((p, q))
    return out


def _on(f, p) -> bool:
    return f.value_at(p) == 0


def _n_domain_rows(cells):
    """The domain's rows open every cell's row list: the longest common prefix."""
    first = cells[0].rows
    n = len(first)
    for c in cells[1:]:
        k = 0
        while k < min(n, len(c.rows)) and c.rows[k] == first[k]:
            k += 1
        n = k
    return n
