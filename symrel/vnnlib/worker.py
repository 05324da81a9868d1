"""The per-node work of the exact engine: evaluate one node, in a worker process or not.

Definition. :func:`evaluate` takes a node (a :class:`~symrel.vnnlib.node.Task`: a box of an
input disjunct, its fixed ReLU phases, whether the box is new) and returns one of

* :class:`~symrel.vnnlib.node.Closed`: the node is a leaf; its facts are exact
  (:mod:`symrel.vnnlib.close`), the certificate records them;
* :class:`~symrel.vnnlib.node.Proposal`: an exact point that the floats found unsafe, with the
  split to make should exact evaluation refute it (the driver confirms it);
* :class:`~symrel.vnnlib.node.Open`: the split to make (:mod:`symrel.vnnlib.branching`).

With numpy the float bounds of the node decide whether it looks closed (its gaps, raised by
the splits' betas and the network LP's multipliers: :mod:`symrel.vnnlib.gaps`), and only then
are the exact bounds computed; an open node is split where its parts close best in floats,
and a new box (a root, or a part of an input split) is attacked in floats
(:mod:`symrel.vnnlib.attack`). A net of many inputs
(:func:`~symrel.vnnlib.problem.splits_on_relus`) takes its float runs and close plans from
:mod:`symrel.vnnlib.relu_branch` (slopes and split multipliers optimised, intermediate bounds
tightened), proposes the box corners that minimise its open bounds, and is attacked harder at
the root (:data:`HIGH_DIMENSION_ATTACK`), with OpenBLAS on one thread (:mod:`symrel.vnnlib.blas`).
Without numpy every node is bounded exactly and only inputs are
split. A node whose box is a single point is closed exactly or is its own proposal.
:func:`evaluate_chunk` evaluates a list of nodes with a deadline, as the executor runs it.

Cost: per node a few float propagations (two per candidate split), one exact propagation where
the floats say closed, and, when it stays open and its box is new, one float attack.

>>> from symrel.exact import rational as q
>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib import LinearAtom, VnnProperty
>>> from symrel.vnnlib.node import Task
>>> from symrel.vnnlib.problem import prepare, region_box
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
>>> box = ((LinearAtom((q(-1),), (q(0),), q(1)), LinearAtom((q(1),), (q(0),), q(1))),)  # -1 <= x <= 1
>>> big = VnnProperty(1, 1, box, ((LinearAtom((q(0),), (q(-1),), q("-3/4")),),), "0" * 64, "inline")
>>> boxes = [region_box(c, 1, "input disjunct 0") for c in big.input_region]
>>> result = evaluate(prepare(net, big, boxes), Task(0, boxes[0][0], boxes[0][1], (), True))
>>> type(result).__name__, abs(result.x[0]) >= q("3/4")   # |x| >= 3/4: a point proposed
('Proposal', True)
"""

from __future__ import annotations

import math
import time
import zlib
from typing import NamedTuple

from ..exact import Q
from ..exact.sizes import arithmetic_limits
from .attack import margin, propose_with_margin
from .branching import branch, exact_branch
from .close import exact_bounds, leaf_facts
from .gaps import close_plan, float_gaps, part_run
from .node import Closed, InputSplit, Open, Proposal, Task
from .problem import Problem, to_float
from .relu_branch import node_run as relu_node_run, plan as relu_plan, splits_on_relus

try:  # optional (the "numeric" extra): float bounds propose, so that only leaves are computed exactly
    import numpy as _np

    from .blas import one_thread
except ImportError:  # pragma: no cover - exercised where numpy is absent
    _np = None


class Chunk(NamedTuple):
    """Nodes evaluated in one call of :func:`evaluate_chunk`: ``deadline`` in wall-clock
    seconds since the epoch (or None), and the nodes (each a :class:`~symrel.vnnlib.node.Task`)."""

    deadline: float | None
    tasks: list


def evaluate(problem: Problem, task: Task):
    """The result of the node ``task`` (module docstring)."""
    d, lo, hi, splits = task.disjunct, task.lo, task.hi, task.splits
    fixed = {(k, i): ph for k, i, ph in splits}
    if problem.float_bounds is None:
        return _evaluate_exact(problem, task, fixed)
    flo, fhi = [to_float(v) for v in lo], [to_float(v) for v in hi]
    relu_only = splits_on_relus(problem)
    run = relu_node_run(problem, flo, fhi, splits) if relu_only else part_run(problem, flo, fhi, fixed)
    gaps = float_gaps(problem, d, run)
    corners = []  # the ReLU-split search's candidate counterexamples: its bounds' minimising corners
    warm = {}  # the ReLU-split search's optimised slopes and multipliers, where its parts start theirs
    plan = relu_plan(problem, d, run, splits, gaps, corners, task.warm, warm) if relu_only \
        else close_plan(problem, d, run, splits, gaps)
    warm = warm or None
    # a gap the floats could not compute (they overflowed: NaN or infinite) is the exact bounds' to judge
    if all(g > 0 or (j is not None and not math.isfinite(g)) for g, j in gaps):
        bounds = exact_bounds(problem, lo, hi, fixed, run.pre, run.tight)
        facts = leaf_facts(problem, d, lo, hi, bounds, plan)
        if facts is not None:
            return Closed(facts, len(bounds.relaxed))
    if all(a == b for a, b in zip(lo, hi)):  # a single point (a root: splits never make one): no split helps
        return _point(problem, d, lo, fixed)
    split = branch(problem, d, lo, hi, fixed, run, gaps, plan)
    hint = task.hint
    if task.fresh:  # a float attack on a new box (the phase-split parts of a box were attacked as the box)
        x, hint = attack(problem, d, lo, hi, task.hint, task.root)
        if x is not None:
            # the split, should exact evaluation refute x
            return Proposal(x, split, hint, _side(problem, split, lo, hi, hint), warm)
    elif corners:  # a corner whose float margin is clearly unsafe (near 0 the exact check would refute it)
        x = _corner(problem, d, lo, hi, corners)
        if x is not None:
            return Proposal(x, split, hint, _side(problem, split, lo, hi, hint), warm)
    return Open(split, hint, _side(problem, split, lo, hi, hint), warm)


def _side(problem: Problem, split, lo, hi, hint) -> int:
    """The part of ``split`` that holds the hint's point (0 when there is none): the side of an
    input's cut it lies on, or the phase of the split ReLU there (floats: only an order)."""
    if hint is None:
        return 0
    x = hint[0]
    if isinstance(split, InputSplit):
        at = (lo[split.input] + hi[split.input]) / 2 if split.at is None else split.at
        return int(x[split.input] > to_float(at))
    h, k = _np.array(x, dtype=float), -1
    for W, b, relu in problem.float_net.arrays:
        h = W @ h + b
        if relu:
            k += 1
            if k == split.layer:
                return int(h[split.neuron] >= 0)
            h = h * (h > 0)
    return 0


def _unsafe_floats(problem: Problem, d):
    """The unsafe disjuncts with the input disjunct's constraints beyond its box, in doubles."""
    return [list(c) + [([to_float(v) for v in a.x], [0.0] * problem.int_net.n_outputs, to_float(a.rhs))
                       for _, a in problem.extra[d]] for c in problem.float_unsafe]


def _corner(problem: Problem, d, lo, hi, corners):
    """The first of the float ``corners`` whose margin is above ``1e-6``, as exact rationals in
    the box; None when none is."""
    disjuncts = _unsafe_floats(problem, d)
    for x in corners:
        if margin(problem.float_net, disjuncts, list(x)) > 1e-6:
            return tuple(min(max(Q(*float(v).as_integer_ratio()), a), b) for v, a, b in zip(x, lo, hi))
    return None


#: the attack on the root of a net split on ReLUs alone (symrel.vnnlib.relu_branch): its only
#: fresh box. On the MNIST nets (784 inputs) 48 starts of 50 steps find 20 of the 22
#: counterexamples the 2021 entrants found, 8 starts of 12 steps 15
HIGH_DIMENSION_ATTACK = {"starts": 48, "steps": 50, "first": 0.5, "decay": 0.93}


def _evaluate_exact(problem: Problem, task: Task, fixed):
    """Without numpy: the exact bounds at every node, input splits only."""
    d, lo, hi = task.disjunct, task.lo, task.hi
    bounds = exact_bounds(problem, lo, hi, fixed)
    facts = leaf_facts(problem, d, lo, hi, bounds)
    if facts is not None:
        return Closed(facts, len(bounds.relaxed))
    if all(a == b for a, b in zip(lo, hi)):  # a point the exact bounds leave open: a counterexample (_point)
        return Proposal(tuple(lo), None)
    x, _ = attack(problem, d, lo, hi)
    if x is not None:
        return Proposal(x, None)
    return Open(exact_branch(problem, d, lo, hi, bounds))


def _point(problem: Problem, d, x, fixed):
    """A node whose box is the single point ``x``: closed when its exact bounds close it, else
    ``x`` itself is proposed. At a point every neuron's range is its value (no relaxation), so
    the bounds are the outputs' exact values: they fail to close only where, for some unsafe
    disjunct, every atom and every constraint of the input disjunct holds, that is at a
    counterexample."""
    bounds = exact_bounds(problem, x, x, fixed)
    facts = leaf_facts(problem, d, x, x, bounds)
    if facts is not None:
        return Closed(facts, len(bounds.relaxed))
    return Proposal(tuple(x), None)


#: the attack on an input disjunct's root box (a net split on inputs): twice this many starts,
#: half of them climbing with steps that decay and half with steps halved where they fail.
#: The root is attacked once, and a counterexample in a narrow region is best found early: on
#: the narrow ACAS Xu properties of benchmarks/data/acasxu_heldout (tuning half) 96 starts of
#: 50 steps found in 4 to 6 of 10 seeds the counterexamples that 8 starts of 12 steps never did,
#: for about 0.05 s of CPU
ROOT_ATTACK = {"starts": 96, "steps": 50}


def attack(problem: Problem, d, lo, hi, hint=None, root: bool = False):
    """``(x, best)``: a point ``x`` of the box ``[lo, hi]`` of input disjunct ``d`` (exact,
    the float's point clipped to the box) where the float net meets an unsafe disjunct and the
    input disjunct's constraints within 1e-9, else None; ``best``, the float point of largest
    margin found and that margin (:func:`symrel.vnnlib.attack.propose`, seeded by the node, so
    the same in every process, and started from the parent's best point ``hint`` too; each
    unsafe disjunct climbed on its own as well). ``root``: the box is an input disjunct's root,
    attacked with :data:`ROOT_ATTACK`."""
    flo, fhi = [to_float(v) for v in lo], [to_float(v) for v in hi]
    disjuncts = [list(c) + [([to_float(v) for v in a.x], [0.0] * problem.int_net.n_outputs, to_float(a.rhs))
                            for _, a in problem.extra[d]] for c in problem.float_unsafe]
    seed = zlib.crc32(repr((d, [str(v) for v in lo], [str(v) for v in hi])).encode())  # the same in every process
    hints = () if hint is None else (hint[0],)
    if splits_on_relus(problem):  # as measured on MNIST (HIGH_DIMENSION_ATTACK), the whole margin only
        runs = [dict(HIGH_DIMENSION_ATTACK, by_disjunct=False)]
    elif root:
        runs = [dict(ROOT_ATTACK, by_disjunct=True), dict(ROOT_ATTACK, by_disjunct=True, halving=True)]
    else:
        runs = [{"by_disjunct": True}]
    x, m = None, float("-inf")
    for k, options in enumerate(runs):
        y, my = propose_with_margin(problem.float_net, disjuncts, flo, fhi, seed=seed + k, hints=hints,
                                    **options)
        if x is None or my > m:
            x, m = y, my
        if m >= 0:
            break
    best = (tuple(x), m if math.isfinite(m) else float("-inf"))  # floats that overflowed rank last
    if m >= -1e-9:
        return tuple(min(max(Q(*v.as_integer_ratio()), a), b) for v, a, b in zip(x, lo, hi)), best
    return None, best


#: the restarts of :func:`restart` (a net split on inputs): 512 starts of 100 steps, about 0.1 s
#: of CPU on an ACAS Xu net, which the driver spends every ``RESTART_EVERY`` nodes
#: (:mod:`symrel.vnnlib.engine`), a few per cent of the search's time. A counterexample in a
#: narrow region may be found by one start in thousands: on ACAS Xu 1_9 with property 7 of
#: benchmarks/data/acasxu_heldout, 2 runs in 6 of 512 starts found one, none of 96
RESTART_ATTACK = {"starts": 512, "steps": 100}


def restart(problem: Problem, d, lo, hi, k: int):
    """:func:`attack`'s ``(x, best)`` for the ``k``-th restart on the box ``[lo, hi]`` of input
    disjunct ``d`` (its root): :data:`RESTART_ATTACK`'s starts drawn anew (seeded by the box
    and ``k``), climbing by decaying steps for even ``k`` and by halved failed steps for odd."""
    flo, fhi = [to_float(v) for v in lo], [to_float(v) for v in hi]
    seed = zlib.crc32(repr((d, k, [str(v) for v in lo], [str(v) for v in hi])).encode())
    with _np.errstate(over="ignore", invalid="ignore", divide="ignore"), one_thread():
        x, m = propose_with_margin(problem.float_net, _unsafe_floats(problem, d), flo, fhi, seed=seed,
                                   by_disjunct=True, halving=bool(k % 2), **RESTART_ATTACK)
    best = (tuple(x), m if math.isfinite(m) else float("-inf"))
    if m >= -1e-9:
        return tuple(min(max(Q(*v.as_integer_ratio()), a), b) for v, a, b in zip(x, lo, hi)), best
    return None, best


def evaluate_chunk(problem: Problem, chunk: Chunk) -> list:
    """The results of the chunk's nodes, in order; None for the nodes left when the deadline
    has passed."""
    deadline, tasks = chunk
    out = []
    with arithmetic_limits(*problem.limits):  # the caller's, also in a worker process
        for task in tasks:
            if deadline is not None and time.time() >= deadline:
                out.append(None)
            elif _np is None:
                out.append(evaluate(problem, task))
            else:  # floats that overflow (NaN, infinite) only propose less: the exact bounds judge
                with _np.errstate(over="ignore", invalid="ignore", divide="ignore"), one_thread():
                    out.append(evaluate(problem, task))
    return out
