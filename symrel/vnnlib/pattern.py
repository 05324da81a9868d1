"""An exact counterexample on the linear region of a refuted float proposal.

A float attack proposes a point ``x`` whose float margin says it is unsafe; exact evaluation
may refute it. Where the counterexamples form a set of measure zero -- the outputs touch the
unsafe condition's bound at a single point such as ``(1/3, 1/5)`` -- no double is one, and
halving the box never lands on it: the search would split for ever around it.

Definition. The *linear region* of ``x`` in a box is the polyhedron of the points of the box
where every ReLU has the phase it has at ``x`` (active where its pre-activation is ``>= 0``,
else inactive). On it the net is affine, so a point of it where every atom of an unsafe
disjunct holds (and the input disjunct's constraints beyond the box) is the solution of an
exact LP (:func:`symrel.exact.lp.feasibility`); the LP's witness is a counterexample, exact,
which the caller confirms by exact evaluation all the same.

Cost: one forward pass of affine forms in ``x`` (integers over a common denominator, the
net's own numbers, no rounding; the layer products of :mod:`symrel.vnnlib.symbolic`), then one
exact LP per unsafe disjunct, in as many variables as inputs, with a row per ReLU, two per
input and one per atom.

>>> from symrel.exact import Q
>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib.symbolic import integer_net
>>> from symrel.vnnlib import LinearAtom
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], ["-1/3", "1/3"]), DenseLayer([[1, 1]], [-1], "none")])
>>> touch = [[LinearAtom((Q(0),), (Q(1),), Q(-1))]]        # |x - 1/3| - 1 <= -1: only at 1/3
>>> region = linear_region(integer_net(net), [Q(3333, 10000)])   # the floats' 0.3333
>>> [str(v) for v in region_witness(region, [Q(0)], [Q(1)], touch)]
['1/3']
"""

from __future__ import annotations

from typing import NamedTuple

from ..exact import Q
from ..exact.lp import feasibility
from .symbolic import _products


class LinearRegion(NamedTuple):
    """The linear region of a point: ``rows`` (integer rows ``r``, meaning ``r . (x, 1) <=
    0``), the outputs' affine forms (integer rows over ``H``) and the phases (True: active),
    which name the region."""

    rows: list
    outputs: list
    H: int
    phases: tuple


def linear_region(inet, x) -> LinearRegion:
    """The linear region of the exact point ``x`` in the integer net ``inet`` (module
    docstring)."""
    n = inet.n_inputs
    forms = [[int(i == k) for i in range(n + 1)] for k in range(n)]  # h = x, over H = 1
    H = 1
    rows, phases = [], []
    for layer in inet.layers:
        z = [list(r) for r in _products(layer, forms, forms)[0]]  # W h, over H * D
        for row, c in zip(z, layer.b):
            row[n] += c * H
        H *= layer.D
        if not layer.relu:
            forms = z
            continue
        forms = []
        for row in z:
            active = sum(Q(row[c]) * x[c] for c in range(n)) + row[n] >= 0
            rows.append([-v for v in row] if active else row)
            forms.append(row if active else [0] * (n + 1))
            phases.append(active)
    return LinearRegion(rows, forms, H, tuple(phases))


def region_witness(region: LinearRegion, lo, hi, conjunctions, extra=(), budget=None):
    """An exact point of the box ``[lo, hi]`` in ``region`` (:func:`linear_region`) where
    every atom of one of ``conjunctions`` holds (each atom ``a``: ``a.x . X + a.y . Y <=
    a.rhs``) and every atom of ``extra`` (constraints on the inputs alone); None where there
    is none. ``budget``: checked by the LPs (:func:`symrel.exact.lp.feasibility`)."""
    n = len(lo)
    rows, outputs, H = region.rows, region.outputs, region.H
    A = [[Q(v) for v in r[:n]] for r in rows]
    b = [Q(-r[n]) for r in rows]
    for k in range(n):  # the box
        A += [[Q(int(i == k)) for i in range(n)], [Q(-int(i == k)) for i in range(n)]]
        b += [Q(hi[k]), Q(-lo[k])]
    for a in extra:
        A.append([Q(v) for v in a.x])
        b.append(Q(a.rhs))
    for conj in conjunctions:
        A2, b2 = list(A), list(b)
        for a in conj:  # a.x . X + a.y . (outputs / H) <= rhs, times H
            A2.append([Q(a.x[c]) * H + sum(Q(a.y[j]) * outputs[j][c] for j in range(len(outputs)))
                       for c in range(n)])
            b2.append(Q(a.rhs) * H - sum(Q(a.y[j]) * outputs[j][n] for j in range(len(outputs))))
        res = feasibility(A2, b2, budget=budget)
        if res.feasible:
            return tuple(res.point)
    return None
