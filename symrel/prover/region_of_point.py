"""The linear region of a point, and where on it an output's difference is largest (exact).

Given an exact point ``p`` of D, every max node of a registry (:mod:`symrel.prover.nodes`)
has a maximising term at ``p`` and every select node an argmax set. Fixing them gives the
*region* of ``p``: the closed polyhedron of the x in D where those terms still maximise
(``t_j(x) <= t_i(x)`` for the chosen term i of each max node; for a select node the
chosen scores equal, ``s_j(x) = s_i(x)``, and the others at most ``s_i(x)``). On it every
node, hence every difference ``g_r = out_A,r - out_B,r``, is an affine function of x, and
an exact LP (:func:`symrel.exact.lp_optimum.maximise`) finds the vertex where ``+- g_r`` is
largest. A float proposal that lands near a thin differing region but just outside the
part where the difference is not zero is moved by this LP to where it is largest on the
region; exact evaluation of both models then decides whether it counts (the region's
strict rows are taken closed, and a hardmax head may change its winners on the boundary).
The terms may also be given directly, as a MILP's binaries chose them
(:mod:`symrel.prover.milp_proposal`): its float point may miss a sliver that its choice
of terms describes exactly.

Cost: one pass over the nodes (affine images of size d + 1), then one exact LP per
differing output and sign with a row per non-maximising term.

>>> from symrel.exact import Q
>>> from symrel.exact.forms import AffineForm, linear_combination
>>> from symrel.models import Box
>>> from symrel.prover.nodes import Registry
>>> reg = Registry([(Q(-1), Q(1))])
>>> x = AffineForm.var(0)
>>> u, _ = reg.max_of([AffineForm(), linear_combination([(Q(1), x)], Q(-1, 2))])   # max(0, x - 1/2)
>>> [[str(v) for v in p] for p in largest_differences(reg, [u], Box([[-1, 1]]), point=[Q(3, 4)])]
[['1']]
"""

from __future__ import annotations

from ..exact import Q
from ..exact.lp_optimum import maximise
from .normal_form_decision import affine_on_cell, dependency_closure

ZERO = Q(0)


def region(registry, active, nodes=None):
    """``(images, rows)``: every variable as an affine function of x on the region where
    each node's maximising term is ``active[v]`` (a select node's argmax set: a tuple), for
    the inputs and ``nodes`` (default all), and the region's rows ``(g, c)`` meaning
    ``g.x + c <= 0`` (``=`` rows come as two). The region of a point ``p`` has
    ``active = registry.values_at(p)[1]``."""
    d = registry.dim
    images = {i: ([Q(1) if j == i else ZERO for j in range(d)], ZERO) for i in range(d)}
    rows = []
    wanted = range(d, len(registry.nodes)) if nodes is None else nodes
    for v in wanted:
        node = registry.nodes[v]
        if node.scores:
            win = active[v]
            s = [affine_on_cell(f, images, d) for f in node.scores]
            i = win[0]
            for j in range(len(s)):
                if j != i:
                    diff = ([a - b for a, b in zip(s[j][0], s[i][0])], s[j][1] - s[i][1])
                    rows.append(diff)                       # s_j - s_i <= 0
                    if j in win:
                        rows.append(([-a for a in diff[0]], -diff[1]))
            parts = [affine_on_cell(node.terms[j], images, d) for j in win]
            images[v] = ([sum((p[0][k] for p in parts), ZERO) / len(win) for k in range(d)],
                         sum((p[1] for p in parts), ZERO) / len(win))
            continue
        terms = [affine_on_cell(t, images, d) for t in node.terms]
        i = active[v]
        for j, t in enumerate(terms):
            if j != i:
                rows.append(([a - b for a, b in zip(t[0], terms[i][0])], t[1] - terms[i][1]))
        images[v] = terms[i]
    return images, rows


def largest_differences(registry, diffs, domain, point=None, active=None, budget=None) -> list[list]:
    """For every difference that is not zero as an affine function on the region of
    ``point`` (or of the choice of terms ``active``) and each sign, the vertex of the region
    (within ``domain``) where it is largest, when that is positive; nothing when the region
    is empty. Exact; the points still need the models' evaluation. ``budget``
    (:class:`~symrel.budget.Budget`): checked inside every LP."""

    d = registry.dim
    if active is None:
        active = registry.values_at(list(point))[1]
    images, rows = region(registry, active, dependency_closure(registry, diffs))
    A_dom, b_dom = domain.exact_halfspaces()
    A = [list(g) for g, _ in rows] + [list(a) for a in A_dom]
    b = [-c for _, c in rows] + list(b_dom)
    out = []
    for g in diffs:
        if g.is_zero():
            continue
        grad, c = affine_on_cell(g, images, d)
        if not any(grad):
            continue
        for sign in (1, -1):
            w, w0 = [sign * a for a in grad], sign * c
            upper = w0 + sum((a * (hi if a > 0 else lo) for a, (lo, hi) in zip(w, registry.ranges[:d]) if a), ZERO)
            if upper <= 0:
                continue
            best = maximise(A, b, w, w0, upper, budget=budget)
            if best is not None and best[1] not in out:
                out.append(best[1])
    return out
