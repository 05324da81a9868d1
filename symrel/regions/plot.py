"""Pictures of regions (matplotlib, an optional extra, imported only here when called).

* 1-D input: the function on the domain interval, piece by piece, with the
  breakpoints between linear regions marked;
* 2-D input: every cell filled with the colour of its affine map (cells with the
  same map share a colour), thin lines between cells, the domain outlined.

Cell geometry is computed exactly (intervals and polygons clipped with rational
arithmetic), then rounded to floats for drawing only. The format follows the
file suffix (``.png``, ``.svg``, ``.pdf``); the file is written atomically.

>>> from symrel.regions.plot import cell_polygon
>>> from symrel.exact import rational as r
>>> square = [(r(0), r(0)), (r(1), r(0)), (r(1), r(1)), (r(0), r(1))]
>>> [tuple(str(v) for v in p) for p in cell_polygon([((r(1), r(1), r(-1)), "<")], square)]   # x + y <= 1
[('0', '0'), ('1', '0'), ('0', '1')]
"""

from __future__ import annotations

import os

from ..errors import InputError
from ..exact import Q, to_float

BIG = Q(10**6)


def _clip(poly, f):
    """Sutherland-Hodgman: the part of the polygon where ``f <= 0`` (exact)."""
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        fp = f[0] * p[0] + f[1] * p[1] + f[2]
        fq = f[0] * q[0] + f[1] * q[1] + f[2]
        if fp <= 0:
            out.append(p)
        if (fp < 0 < fq) or (fq < 0 < fp):
            t = fp / (fp - fq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def cell_polygon(rows, start):
    """The closure of a 2-D cell as a polygon: ``start`` clipped by every row."""
    poly = list(start)
    for f, rel in rows:
        if rel == "=" or not poly:
            continue
        poly = _clip(poly, f)
    return poly


def _interval(rows):
    lo, hi = -BIG, BIG
    for (a, c), rel in rows:
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
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def plot_regions(result, path, title: str | None = None, output: int = 0) -> str:
    """Draw a :class:`~symrel.regions.count.RegionCount` (1-D or 2-D input) to ``path``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:  # pragma: no cover - optional dependency
        raise InputError("plots need matplotlib (pip install symrel[plot])", path="--plot") from err
    cells = result.cells
    if not cells:
        raise InputError("nothing to draw: no cells", path="--plot")
    d = len(cells[0].witness)
    maps = {}
    colour_of = [maps.setdefault(tuple(c.outputs[0]), len(maps)) for c in cells]
    region_of = result.region_of or colour_of
    title = title or f"{result.count} {result.kind} regions ({result.activation_cells} cells)"
    fig, ax = plt.subplots(figsize=(6, 4.5) if d == 1 else (6, 6))
    cmap = plt.get_cmap("tab20")
    if d == 1:
        pieces = []
        for c, col, reg in zip(cells, colour_of, region_of):
            lo, hi = _interval(c.rows)
            (a, b) = c.outputs[0][output]
            pieces.append((lo, hi, a, b, reg))
            xs = [to_float(lo), to_float(hi)]
            ax.plot(xs, [to_float(a * lo + b), to_float(a * hi + b)], color=cmap(col % 20), lw=2)
        pieces.sort(key=lambda p: p[0])
        for left, right in zip(pieces, pieces[1:]):
            if left[4] != right[4]:
                x = to_float(left[1])
                ax.axvline(x, color="0.6", ls=":", lw=0.8)
                ax.plot([x], [to_float(left[2] * left[1] + left[3])], "o", color="black", ms=3)
        ax.set_xlabel("x")
        ax.set_ylabel(f"output {output}")
    elif d == 2:
        from matplotlib.patches import Polygon as Patch

        start = [(-BIG, -BIG), (BIG, -BIG), (BIG, BIG), (-BIG, BIG)]
        xs, ys = [], []
        for c, col in zip(cells, colour_of):
            poly = cell_polygon(c.rows, start)
            if len(poly) < 3:
                continue
            pts = [(to_float(x), to_float(y)) for x, y in poly]
            xs += [p[0] for p in pts]
            ys += [p[1] for p in pts]
            ax.add_patch(Patch(pts, closed=True, facecolor=cmap(col % 20), edgecolor="white", lw=0.3))
        domain_rows = [(f, rel) for f, rel in cells[0].rows[: _n_domain_rows(cells)]]
        outline = cell_polygon(domain_rows, start)
        pts = [(to_float(x), to_float(y)) for x, y in outline]
        ax.add_patch(Patch(pts, closed=True, fill=False, edgecolor="black", lw=1.2))
        ax.set_xlim(min(xs), max(xs))
        ax.set_ylim(min(ys), max(ys))
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel("x1")
        ax.set_ylabel("x2")
    else:
        plt.close(fig)
        raise InputError(f"plots are drawn for 1-D and 2-D inputs, got {d}-D", path="--plot")
    ax.set_title(title, fontsize=10)
    _save(fig, path)
    plt.close(fig)
    return os.fspath(path)


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
