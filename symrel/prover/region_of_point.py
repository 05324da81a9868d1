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
from ..exact.forms import linear_combination
from .normal_form_decision import dependency_closure, inputs_on_cell, on_cell


def region(registry, active, nodes=None):
    """``(images, rows)``: every variable as an affine form in x on the region where each
    node's maximising term is ``active[v]`` (a select node's argmax set: a tuple), for the
    inputs and ``nodes`` (default all), and the region's rows, forms ``f`` meaning ``f(x) <= 0``
    (an ``=`` row comes as two). The region of a point ``p`` has
    ``active = registry.values_at(p)[1]``."""
    d = registry.dim
    images = inputs_on_cell(d)
    rows = []
    wanted = range(d, len(registry.nodes)) if nodes is None else nodes
    for v in wanted:
        node = registry.nodes[v]
        if node.scores:
            win = active[v]
            s = [on_cell(f, images) for f in node.scores]
            i = win[0]
            for j in range(len(s)):
                if j != i:
                    rows.append(s[j] - s[i])                # s_j - s_i <= 0
                    if j in win:
                        rows.append(s[i] - s[j])
            images[v] = linear_combination([(Q(1, len(win)), on_cell(node.terms[j], images)) for j in win])
            continue
        terms = [on_cell(t, images) for t in node.terms]
        i = active[v]
        rows += [t - terms[i] for j, t in enumerate(terms) if j != i]
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
    A = [f.to_dense(d) for f in rows] + [list(a) for a in A_dom]
    b = [-f.const for f in rows] + list(b_dom)
    out = []
    for g in diffs:
        if g.is_zero():
            continue
        g_x = on_cell(g, images)
        if g_x.is_constant():
            continue
        for sign in (1, -1):
            objective = g_x * Q(sign)
            upper = objective.range_on_box(registry.ranges[:d])[1]
            w, w0 = objective.to_dense(d), objective.const
            if upper <= 0:
                continue
            best = maximise(A, b, w, w0, upper, budget=budget)
            if best is not None and best[1] not in out:
                out.append(best[1])
    return out
