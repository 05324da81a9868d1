"""The problem the exact engine searches, prepared once: the net in integers and in floats,
the property's atoms, and each input disjunct's box.

Definition. :func:`prepare` turns a ReLU net and a :class:`~symrel.vnnlib.VnnProperty` into a
:class:`Problem`: the net as :func:`~symrel.vnnlib.symbolic.integer_net` (the exact bounds)
and as a :class:`~symrel.vnnlib.attack.FloatNet` (the attacks), the unsafe condition's atoms
as exact atoms (:class:`Atom`) and as doubles, the input disjuncts' atoms beyond their boxes
(:func:`region_box`), and with numpy the float bounds and every candidate atom of each input
disjunct as arrays. An unsafe disjunct closes at a node when one of its :func:`candidates`
has a lower bound above its right-hand side there.

Cost: one pass over the weights for each form of the net (``integer_net``, the float
copies), and one over the property's atoms; the problem is shared with every worker once.

>>> from symrel.exact import rational as q
>>> from symrel.vnnlib import LinearAtom
>>> box = (LinearAtom((q(-1), q(0)), (q(0),), q(1)), LinearAtom((q(1), q(0)), (q(0),), q(2)),
...        LinearAtom((q(0), q(-1)), (q(0),), q(0)), LinearAtom((q(0), q(1)), (q(0),), q(1)),
...        LinearAtom((q(1), q(1)), (q(0),), q(2)))
>>> lo, hi, extra = region_box(box, 2, "input disjunct 0")   # -1 <= x0 <= 2, 0 <= x1 <= 1, x0 + x1 <= 2
>>> [str(v) for v in lo], [str(v) for v in hi], extra
(['-1', '0'], ['2', '1'], (4,))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import compress
from typing import NamedTuple

from ..errors import InputError
from ..exact import rational
from ..exact.sizes import current_arithmetic_limits
from .attack import FloatNet
from .symbolic import IntNet, integer_net

try:  # optional (the "numeric" extra): float bounds propose, so that only leaves are computed exactly
    import numpy as _np

    from .floatbounds import FloatBounds
except ImportError:  # pragma: no cover - exercised where numpy is absent
    _np = None


@dataclass(frozen=True)
class Atom:
    """``x . X + y . Y <= rhs`` in exact rationals (a :class:`~symrel.vnnlib.LinearAtom`'s
    coefficients as the engine computes with them)."""

    x: tuple
    y: tuple
    rhs: object


class AtomRef(NamedTuple):
    """Where a candidate atom comes from: ``("unsafe", k)``, atom ``k`` of the unsafe
    disjunct, or ``("region", k)``, atom ``k`` of the input disjunct beyond its box (the
    certificate's ``"atom"``)."""

    side: str
    index: int


class Candidate(NamedTuple):
    """An atom that may close an unsafe disjunct: its :class:`AtomRef` and its exact
    ``y . Y + x . X <= rhs`` (the disjunct is closed where ``y . Y + x . X > rhs`` holds)."""

    ref: AtomRef
    y: tuple
    x: tuple
    rhs: object


@dataclass(frozen=True)
class Problem:
    """The prepared problem (module docstring), shared with the workers."""

    int_net: IntNet
    float_net: FloatNet
    unsafe: tuple  # per unsafe disjunct, its Atoms
    extra: tuple  # per input disjunct: ((index in the conjunction, Atom), ...) beyond the box
    float_unsafe: tuple  # the unsafe atoms as ([x...], [y...], rhs) in doubles
    float_bounds: object = None  # FloatBounds (None without numpy)
    float_atoms: tuple = ()  # per input disjunct: (AY, AX, rhs) arrays of every candidate atom
    float_groups: tuple = ()  # per input disjunct: (first row, count) per unsafe disjunct
    root_widths: tuple = ()  # per input disjunct: the float widths of its root box
    sizes: tuple = ()  # per layer, the bits (d, w, fan-in) the checker bounds a leaf's numbers by (leaf_bits)
    limits: tuple = ()  # the arithmetic limits in force (symrel.exact.sizes), for the worker processes
    tight: object = None  # the root-optimised slopes of intermediate bounds (symrel.vnnlib.intermediate), or None


#: inputs from which a node is split on ReLUs alone (:mod:`symrel.vnnlib.relu_branch`); ACAS Xu has 5
RELU_ONLY_INPUTS = 64


def splits_on_relus(problem: Problem) -> bool:
    """Whether the nodes of ``problem`` are split on ReLUs alone (:mod:`symrel.vnnlib.relu_branch`):
    it has at least :data:`RELU_ONLY_INPUTS` inputs."""
    return problem.int_net.n_inputs >= RELU_ONLY_INPUTS


def region_box(conj, n: int, where: str):
    """The box of an input disjunct (its single-variable atoms, the tightest bound of each
    input) and the indices of its other atoms. An atom without variables and a false
    right-hand side makes the disjunct empty (returned as ``lo[0] = 1 > hi[0] = 0``)."""
    lo, hi, extra = [None] * n, [None] * n, []
    for k, atom in enumerate(conj):
        if any(atom.y):
            raise InputError(f"expected atoms over X alone in the input region, got {atom}", path=where)
        nz = list(compress(range(n), atom.x))   # the nonzero coefficients' inputs (tested in C)
        if len(nz) != 1:
            extra.append(k)
            continue
        i = nz[0]
        bound = atom.rhs / atom.x[i]
        if atom.x[i] > 0:
            hi[i] = bound if hi[i] is None else min(hi[i], bound)
        else:
            lo[i] = bound if lo[i] is None else max(lo[i], bound)
    for i in range(n):
        if lo[i] is None or hi[i] is None:
            raise InputError(f"expected a bounded input region: X_{i} has no {'lower' if lo[i] is None else 'upper'} "
                             "bound", path=where)
    return tuple(lo), tuple(hi), tuple(extra)


def to_float(v) -> float:
    """The double nearest to the rational ``v`` (an OverflowError beyond a double's range)."""
    return int(v.numerator) / int(v.denominator)


def _float_layers(net):
    out = []
    for layer in net.layers:
        W = [[int(v.numerator) / int(v.denominator) for v in r] for r in layer.affine.exact_W.to_list()]
        b = [int(r[0].numerator) / int(r[0].denominator) for r in layer.affine.exact_b.to_list()]
        out.append((W, b, layer.activation == "relu"))
    return out


def _atom(a) -> Atom:
    return Atom(tuple(rational(v) for v in a.x), tuple(rational(v) for v in a.y), rational(a.rhs))


def float_atom(a: Atom):
    """``([x...], [y...], rhs)`` in doubles, as :mod:`symrel.vnnlib.attack` reads an atom."""
    return [to_float(v) for v in a.x], [to_float(v) for v in a.y], to_float(a.rhs)


def candidates(problem: Problem, d: int, conj) -> list:
    """The atoms that may close the unsafe disjunct ``conj`` at a node of input disjunct
    ``d``: its own, then the input disjunct's constraints beyond the box, as
    candidates (:class:`~symrel.vnnlib.problem.Candidate`)."""
    out = [Candidate(AtomRef("unsafe", k), a.y, a.x, a.rhs) for k, a in enumerate(conj)]
    return out + [Candidate(AtomRef("region", k), a.y, a.x, a.rhs) for k, a in problem.extra[d]]  # a.y: zeros


def prepare(net, prop, boxes) -> Problem:
    """The :class:`Problem` of ``prop`` on ``net`` with the input disjuncts' ``boxes``
    (:func:`region_box`), with the checker's size bounds per layer and the arithmetic limits
    in force. An :class:`~symrel.errors.InputError` when the sizes disagree or a number is
    beyond a double's range (the float proposals could not represent it)."""
    problem = _float_problem(net, prop, boxes)
    sizes = tuple((L.D.bit_length(), max((abs(v).bit_length() for r in L.Wp + L.Wn + (L.b,) for v in r), default=0),
                   layer.affine.input_dim) for L, layer in zip(problem.int_net.layers, net.layers))
    return replace(problem, sizes=sizes, limits=tuple(current_arithmetic_limits()))


def _float_problem(net, prop, boxes) -> Problem:
    inet = integer_net(net)
    if prop.n_inputs != inet.n_inputs or prop.n_outputs != inet.n_outputs:
        raise InputError(f"the property has {prop.n_inputs} inputs and {prop.n_outputs} outputs, the network "
                         f"{inet.n_inputs} and {inet.n_outputs}", path="property")
    unsafe = tuple(tuple(_atom(a) for a in conj) for conj in prop.unsafe)
    extra = tuple(tuple((k, _atom(prop.input_region[d][k])) for k in ex) for d, (_, _, ex) in enumerate(boxes))
    # the float proposals (attacks, bounds) need the problem in doubles; a node's box lies in
    # its root's, so the roots' corners and the constants are all that can overflow
    try:
        fu = tuple(tuple(float_atom(a) for a in conj) for conj in unsafe)
        widths = tuple(tuple(to_float(b) - to_float(a) for a, b in zip(lo, hi)) for lo, hi, _ in boxes)
        for conj in extra:
            for _, a in conj:
                float_atom(a)
        if not all(math.isfinite(w) for ws in widths for w in ws):
            raise OverflowError
    except OverflowError:
        raise InputError("a bound, width or coefficient beyond the range of a double (about 1.8e308): the "
                         "float proposals (attacks, bounds) cannot represent the property", path="property") from None
    try:
        problem = Problem(inet, FloatNet(_float_layers(net)), unsafe, extra, fu)
    except OverflowError:
        raise InputError("a weight or bias beyond the range of a double (about 1.8e308): the float "
                         "proposals (attacks, bounds) cannot represent the network", path="network") from None
    if _np is None:
        return problem
    atoms, groups = [], []
    for d in range(len(boxes)):
        rows, gr = [], []
        for conj in unsafe:
            cands = candidates(problem, d, conj)
            gr.append((len(rows), len(cands)))
            rows += [([to_float(v) for v in c.y], [to_float(v) for v in c.x], to_float(c.rhs)) for c in cands]
        atoms.append((_np.array([r[0] for r in rows], dtype=float).reshape(len(rows), inet.n_outputs),
                      _np.array([r[1] for r in rows], dtype=float).reshape(len(rows), inet.n_inputs),
                      _np.array([r[2] for r in rows], dtype=float)))
        groups.append(tuple(gr))
    fb = FloatBounds(inet)
    out = Problem(inet, problem.float_net, unsafe, extra, fu, fb, tuple(atoms), tuple(groups), widths)
    if splits_on_relus(out) and len(boxes) == 1 and all(a <= b for a, b in zip(boxes[0][0], boxes[0][1])):
        # one root box split on ReLUs alone: its optimised intermediate slopes serve every node
        from .blas import one_thread
        from .intermediate import tighten_root

        lo, hi, _ = boxes[0]
        with one_thread(), _np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = replace(out, tight=tighten_root(fb, [to_float(v) for v in lo], [to_float(v) for v in hi]))
    return out
