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
net's own numbers, no rounding), then one exact LP per unsafe disjunct, in as many
variables as inputs, with a row per ReLU, two per input and one per atom.

>>> from symrel.exact import Q
>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib.symbolic import integer_net
>>> from symrel.vnnlib import LinearAtom
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], ["-1/3", "1/3"]), DenseLayer([[1, 1]], [-1], "none")])
>>> touch = [[LinearAtom((Q(0),), (Q(1),), Q(-1))]]        # |x - 1/3| - 1 <= -1: only at 1/3
>>> [str(v) for v in region_witness(integer_net(net), [Q(3333, 10000)], [Q(0)], [Q(1)], touch)]
['1/3']
"""

from __future__ import annotations

from ..exact import Q
from ..exact.lp import feasibility


def _pattern_rows(inet, x):
    """The rows ``r`` (``r . (x, 1) <= 0``, integers) of the linear region of ``x``, the
    outputs' affine forms (integer rows over ``H``) and ``H``; the phases as a tuple."""
    n = inet.n_inputs
    forms = [[int(i == k) for i in range(n + 1)] for k in range(n)]  # h = x, over H = 1
    H = 1
    rows, phases = [], []
    for layer in inet.layers:
        z = []
        for rp, rn, b in zip(layer.Wp, layer.Wn, layer.b):
            row = [0] * (n + 1)
            for w, f in zip((p + m for p, m in zip(rp, rn)), forms):
                if w:
                    for c in range(n + 1):
                        row[c] += w * f[c]
            row[n] += b * H
            z.append(row)
        H *= layer.D  # the rows of z are over the new H
        if not layer.relu:
            forms = z
            continue
        forms = []
        for row in z:
            active = sum(Q(row[c]) * x[c] for c in range(n)) + row[n] >= 0
            rows.append([-v for v in row] if active else row)
            forms.append(row if active else [0] * (n + 1))
            phases.append(active)
    return rows, forms, H, tuple(phases)


def region_witness(inet, x, lo, hi, conjunctions, extra=()):
    """An exact point of the box ``[lo, hi]`` in the linear region of ``x`` (module docstring)
    where every atom of one of ``conjunctions`` holds (each atom ``a``: ``a.x . X + a.y . Y <=
    a.rhs``) and every atom of ``extra`` (constraints on the inputs alone); None where there
    is none."""
    n = inet.n_inputs
    rows, outputs, H, _ = _pattern_rows(inet, [Q(v) for v in x])
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
        res = feasibility(A2, b2)
        if res.feasible:
            return tuple(res.point)
    return None


def pattern_of(inet, x) -> tuple:
    """The phases of the ReLUs at ``x`` (True: active), the key of its linear region."""
    return _pattern_rows(inet, [Q(v) for v in x])[3]
