"""A VNN-LIB property on a layered net, prepared once for every node of the search.

Definition. :func:`prepare_problem` reads the net (:mod:`~symrel.vnnlib.layered.network`: exact and float forms)
and the property: per input disjunct its box (:func:`symrel.vnnlib.engine.region_box`: the
tightest single-variable bounds; its other atoms are *constraints*), and per input disjunct
and unsafe disjunct the *candidates* of a close: the disjunct's atoms and the input
disjunct's constraints, each ``ay . y + ax . x <= rhs`` (exact, and as float arrays for the
float bounds). A node closes an unsafe disjunct when one candidate's exact lower bound on
the node's part exceeds its ``rhs``.

The :class:`Problem` is what each worker receives once (:func:`symrel.parallel.map_ordered`'s
``shared``): numbers and arrays only, picklable.

>>> from symrel.exact import Q
>>> from symrel.models.layered import LayeredNet, Relu, SparseAffine
>>> from symrel.vnnlib import LinearAtom, VnnProperty
>>> net = LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]]), Relu(2), SparseAffine([[(0, 1), (1, 1)]])])
>>> box = ((LinearAtom((Q(-1),), (Q(0),), Q(1)), LinearAtom((Q(1),), (Q(0),), Q(1))),)
>>> p = prepare_problem(net, VnnProperty(1, 1, box, ((LinearAtom((Q(0),), (Q(1),), Q(-1)),),), "0" * 64, "inline"))
>>> [str(v) for v in p.boxes[0][0] + p.boxes[0][1]], [c.ref for c in p.candidates[0][0]]
(['-1', '1'], [('unsafe', 0)])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...errors import InputError
from ...exact import rational
from .network import ExactNet, FloatNet, prepare

try:  # the "numeric" extra: float proposals
    import numpy as _np
    import scipy.sparse  # noqa: F401  (the float operators need it)
except ImportError:  # pragma: no cover - a core-only install
    _np = None


@dataclass(frozen=True)
class CloseCandidate:
    """An atom that may close an unsafe disjunct: ``ref`` (``("unsafe", k)`` or ``("region",
    k)``) and ``ay . y + ax . x <= rhs`` (exact rationals)."""

    ref: tuple
    ay: tuple
    ax: tuple
    rhs: object


@dataclass
class Problem:
    """The prepared property (module docstring)."""

    enet: ExactNet
    fnet: object               # FloatNet, or None without numpy
    n_unsafe: int
    boxes: tuple               # per input disjunct: (lo, hi, constraint indices) or an empty box
    candidates: tuple          # per input disjunct, per unsafe disjunct: tuple of CloseCandidate
    extra: tuple               # per input disjunct: its constraints, as LinearAtoms
    unsafe: tuple              # the unsafe disjuncts, as LinearAtoms
    float_rows: tuple = ()     # per input disjunct, per unsafe disjunct: (AY, AX, rhs) arrays
    reach: object = None       # per op, the entries that reach an output (floats' LP)
    hull: bool = False         # a ReLU op reads an affine op's rows of few entries (lp.multipliers, hull=True)


def _fl(v) -> float:
    return int(v.numerator) / int(v.denominator)


def prepare_problem(net, prop) -> Problem:
    """The :class:`Problem` of ``prop`` on ``net`` (a layered, maxout or ReLU net)."""
    from ..engine import region_box

    enet = prepare(net)
    if prop.n_inputs != enet.input_dim or prop.n_outputs != enet.output_dim:
        raise InputError(f"the property has {prop.n_inputs} inputs and {prop.n_outputs} outputs, the network "
                         f"{enet.input_dim} and {enet.output_dim}", path="property")
    boxes = tuple(region_box(conj, prop.n_inputs, f"input disjunct {d}") for d, conj in enumerate(prop.input_region))
    cands, extras = [], []
    for d, conj in enumerate(prop.input_region):
        extra = tuple((k, conj[k]) for k in boxes[d][2])
        extras.append(tuple(a for _, a in extra))
        per = []
        for uconj in prop.unsafe:
            c = [CloseCandidate(("unsafe", k), tuple(map(rational, a.y)), tuple(map(rational, a.x)), rational(a.rhs))
                 for k, a in enumerate(uconj)]
            c += [CloseCandidate(("region", k), tuple(map(rational, a.y)), tuple(map(rational, a.x)), rational(a.rhs))
                  for k, a in extra]
            per.append(tuple(c))
        cands.append(tuple(per))
    problem = Problem(enet, None, len(prop.unsafe), boxes, tuple(cands), tuple(extras), tuple(prop.unsafe))
    if _np is None:
        return problem
    try:
        rows = []
        for d, per in enumerate(cands):
            lo, hi, _ = boxes[d]
            widths = [_fl(b) - _fl(a) for a, b in zip(lo, hi)]
            if not all(math.isfinite(w) for w in widths):
                raise OverflowError
            rows.append(tuple((_np.array([[_fl(v) for v in c.ay] for c in cs], dtype=float).reshape(len(cs), -1),
                               _np.array([[_fl(v) for v in c.ax] for c in cs], dtype=float).reshape(len(cs), -1),
                               _np.array([_fl(c.rhs) for c in cs], dtype=float)) for cs in per))
        fnet = FloatNet(net)
    except OverflowError:
        raise InputError("a number beyond the range of a double (about 1.8e308): the float proposals (attacks, "
                         "bounds) cannot represent the problem", path="property") from None
    from .lp import reaching

    problem.fnet, problem.float_rows = fnet, tuple(rows)
    problem.reach = reaching(fnet)
    from .ops.relu import HULL_ENTRIES

    problem.hull = any(kind == "relu" and k > 0 and enet.ops[k - 1][0] == "affine"
                       and min(map(len, enet.ops[k - 1][1].rows)) <= HULL_ENTRIES
                       for k, (kind, _) in enumerate(enet.ops))
    return problem
