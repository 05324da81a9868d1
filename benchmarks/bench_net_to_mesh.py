"""ReLU nets as exact CPWL meshes in 2, 3 and 4 dimensions: the cells, their triangulation
into a conforming simplicial mesh and the mesh's conformity check, against the cell
enumeration alone.

Nets: random ReLU nets d-h-1 and d-h-h-1 with weights p/10, |p| <= 30, on [-1, 1]^d.
Columns: the cells, the simplices and vertices of the mesh
(:func:`symrel.regions.cells_to_simplices.cells_to_simplices`), the pairs of cells that
touch, the cuts (a cell and a hyperplane of a neighbour: cells that did not meet face to
face) and the pieces, and the times of the cell enumeration (the baseline,
``cells_s``), of the cuts and triangulation (``triangulate_s``, the enumeration subtracted)
and of the :class:`symrel.models.CPWLMesh` check (``check_s``: pairwise among simplices
whose boxes meet, the cost that grows fastest); ``mesh_over_cells`` is (triangulation +
check) / enumeration. ``load`` is the 1-minute load average when the row started. Run:
``python -m benchmarks.bench_net_to_mesh``.
"""

from __future__ import annotations

import os
import random
import time

NETS = ((2, (12, 12)), (3, (6, 6)), (4, (4,)), (4, (4, 3)), (4, (6,)))


def _time(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def row(d: int, hidden, seed: int = 1) -> dict:
    from symrel.exact import Q
    from symrel.models import Box, CPWLMesh, DenseLayer, ReLUNet
    from symrel.regions.cells_to_simplices import cells_to_simplices
    from symrel.regions.enumerate_cells import enumerate_cells

    load = os.getloadavg()[0]
    rng = random.Random(seed)
    widths = (d,) + tuple(hidden)
    layers = [DenseLayer([[Q(rng.randint(-30, 30), 10) for _ in range(a)] for _ in range(b)],
                         [Q(rng.randint(-30, 30), 10) for _ in range(b)]) for a, b in zip(widths, widths[1:])]
    net = ReLUNet(d, layers + [DenseLayer([[Q(rng.randint(-30, 30), 10) for _ in range(widths[-1])]], [0], "none")])
    D = Box([[-1, 1]] * d)
    t_cells, cells = _time(lambda: enumerate_cells([net], D).cells)
    stats: dict = {}
    t_all, (V, S) = _time(lambda: cells_to_simplices(net, D, stats=stats))
    t_check, f = _time(lambda: CPWLMesh(V, [list(s) for s in S], net.evaluate_points(V)))
    t_tri = max(t_all - t_cells, 0.0)
    return {"net": "-".join(map(str, widths + (1,))), "load": round(load, 2), "cells": len(cells),
            "simplices": len(S), "vertices": len(V), "contacts": stats["contacts"],
            "cuts": stats["cuts"], "pieces": stats["pieces"],
            "cells_s": round(t_cells, 2), "triangulate_s": round(t_tri, 2), "check_s": round(t_check, 2),
            "mesh_over_cells": round((t_tri + t_check) / t_cells, 1) if t_cells else None,
            "load_end": round(os.getloadavg()[0], 2)}


def run() -> list[dict]:
    return [row(d, hidden) for d, hidden in NETS]


if __name__ == "__main__":  # pragma: no cover
    rows = run()
    keys = list(rows[0])
    print(" | ".join(keys))
    for r in rows:
        print(" | ".join(str(r[k]) for k in keys))
