"""The branching choice of an open node: which input to cut, where, or which ReLU to split.

Definition. :func:`branch` chooses the split of a node that the exact close left open, by
the float gaps (:mod:`symrel.vnnlib.gaps`) of the two parts each candidate split makes: the
halvings of a few inputs, the cuts of an input through the zeros of a few neurons
(:func:`crossing`) and, where few ReLUs are unstable, the phase splits of a few ReLUs. The
split that closes the most of its two parts in floats wins, then the one whose parts' gaps
sum highest. Without numpy, :func:`exact_branch` halves the input that weighs most in the
exact lower form of the least-settled disjunct. The choice depends on the node alone, so a
search's tree does not depend on the executor or on the batch of nodes per round.

Cost: two float propagations (:func:`~symrel.vnnlib.gaps.node_gap`) per candidate split,
at most ``INPUT_CANDIDATES + 1 + CROSSING_CANDIDATES + RELU_CANDIDATES`` of them; the parts
of the input cuts are propagated together, in one stacked pass
(:func:`~symrel.vnnlib.gaps.prefetch_runs`: the same floats, about half the CPU on ACAS Xu).

>>> import pytest; _ = pytest.importorskip("numpy")   # the floats that rank the splits
>>> from symrel.exact import rational as q
>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib.floatbounds import FloatBounds
>>> from symrel.vnnlib.symbolic import integer_net
>>> net = ReLUNet(2, [DenseLayer([[1, 0], [0, 1]], ["-3/10", "-1/2"]), DenseLayer([[1, 1]], [0], "none")])
>>> run = FloatBounds(integer_net(net)).run([0.0, 0.0], [1.0, 1.0], {})
>>> cut = crossing(run, 0, 0, [q(0), q(0)], [q(1), q(1)], [0, 1])   # x_0 = 3/10, on the grid of 1/64
>>> cut.input, str(cut.at)
(0, '19/64')
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..errors import InternalError
from ..exact import Q
from .gaps import keep_parts, node_gap, prefetch_runs, run_key, unstable_count
from .node import InputSplit, PhaseSplit, ReluSplit
from .problem import Problem, candidates, to_float
from .relu_branch import choose as relu_choice, splits_on_relus

#: inputs (highest "sb" scores) whose split is tried in floats, besides the widest input
INPUT_CANDIDATES = 2
#: ReLU neurons (highest BaBSR-style scores) whose split is tried against the input splits
#: (measured on ACAS Xu 3_3 and 4_2 prop_2, docs/benchmarks.md: 4 makes 3_3 faster by as much
#: as it makes 4_2 slower, 8 is slower on 3_3; the other values tried of the constants below
#: were slower too)
RELU_CANDIDATES = 2
#: an input whose width, relative to its width in the root box, is below 2^-INPUT_BALANCE times
#: the relatively widest input's is not split (see :func:`branch`)
INPUT_BALANCE = 8
#: unstable neurons (highest BaBSR-style scores) through whose zero an input cut is tried
#: (:func:`crossing`)
CROSSING_CANDIDATES = 2
#: a node with at most this many unstable ReLUs may be split on a ReLU
RELU_SPLIT_UNSTABLE = 40


class ScoredSplit(NamedTuple):
    """A candidate split and its rank (the first four fields, compared in order): how many of
    its two parts look closed in floats, the sum of their gaps, 1 for an input split (ties go
    to input splits), and minus its place among the candidates of its kind."""

    closed_parts: int
    gap_sum: float
    input_split: int
    order: int
    split: object


def _scored(a: float, b: float, input_split: int, order: int, split) -> ScoredSplit:
    return ScoredSplit((a > 0) + (b > 0), a + b, input_split, order, split)


def _cut_boxes(flo, fhi, i, at) -> tuple:
    """The two parts ``((lo, hi), (lo, hi))`` (floats) of the box ``[flo, fhi]`` cut at ``x_i = at``."""
    return ((flo, [at if k == i else v for k, v in enumerate(fhi)]),
            ([at if k == i else v for k, v in enumerate(flo)], fhi))


def _cut_parts(problem: Problem, flo, fhi, fixed, i, at) -> tuple:
    """The run keys (:func:`~symrel.vnnlib.gaps.run_key`) of the two parts of the cut ``x_i = at``."""
    return (run_key(problem, flo, [at if k == i else v for k, v in enumerate(fhi)], fixed),
            run_key(problem, [at if k == i else v for k, v in enumerate(flo)], fhi, fixed))


def _cut_gaps(problem: Problem, d, flo, fhi, fixed, floor, i, at):
    """The float gaps of the two parts of the node ``[flo, fhi]`` cut at ``x_i = at``, each
    floored at the node's gap ``floor``."""
    a = max(floor, node_gap(problem, d, flo, [at if k == i else v for k, v in enumerate(fhi)], fixed))
    b = max(floor, node_gap(problem, d, [at if k == i else v for k, v in enumerate(flo)], fhi, fixed))
    return a, b


def branch(problem: Problem, d, lo, hi, fixed, run, gaps, plan):
    """The split of the node (an :class:`~symrel.vnnlib.node.InputSplit` or a
    :class:`~symrel.vnnlib.node.ReluSplit`), chosen by the float gaps of the parts it makes:
    the candidates are the ``INPUT_CANDIDATES`` inputs scored highest by alpha-beta-CROWN's
    "sb" input heuristic (``|A_i| * width_i`` for the lower form ``A x + c`` of the
    least-settled disjunct's atom) and the widest input, the cuts through the zeros of the
    ``CROSSING_CANDIDATES`` neurons whose relaxations lose the most (:func:`crossing`), and,
    where at most ``RELU_SPLIT_UNSTABLE`` ReLUs are unstable, the ReLU splits of the
    ``RELU_CANDIDATES`` neurons with the highest BaBSR-style scores; the one that closes the
    most of its two parts in floats wins, and among those the one whose two parts' gaps sum
    highest (a bound-improvement choice, as alpha-beta-CROWN's filtered smart branching; ties:
    input splits, in that order). ``run``, ``gaps``, ``plan``: the node's float bounds, its
    gaps (:class:`~symrel.vnnlib.gaps.Gap`) and its close plan (:func:`~symrel.vnnlib.gaps.close_plan`).
    A net of many inputs (:func:`~symrel.vnnlib.problem.splits_on_relus`: MNIST) is split on a
    ReLU alone (:func:`symrel.vnnlib.relu_branch.choose`), on an input only when no ReLU is
    left unstable.

    Why closed parts first: a part whose float gap is positive is finished (the exact close
    almost always confirms it), while a raised negative gap may still need many splits; the sum
    alone preferred, say, two halves at -0.003 and -0.002 to one at +0.02 and one at -0.01, and
    on ACAS Xu 1_1 prop_3 it halved ``X_0`` down to a width of 1e-5 (its weight in the outputs
    is about 0.06) where halving ``X_2`` closed both halves: 16% of the box covered in 40 s of
    CPU; with closed parts first, unsat in 56 s (1,222 leaves).

    Why the widest input too: the "sb" score sees only the coefficients of the lower form, not
    the slack of the unstable neurons' relaxations. An input can weigh nothing in the form
    (its coefficients cancel through the relaxation lines) while its width is what keeps
    neurons unstable: halving it closes both parts, yet its score is about 0, so the search
    would halve the other inputs forever around a segment along it (ACAS Xu 5_1 prop_1: depth
    90 with the gap stuck at -0.94, both halves of ``X_2`` closing at every level).

    Why the parts' gaps are floored at the node's, and thin inputs left alone: the float bounds
    are not monotone in the box (a part's relaxation slopes can flip and its bound fall below
    the node's), so halving the one wide input could score below halving an input a thousand
    times thinner, which changes nothing. On ACAS Xu 3_3 prop_2 a box 1/64 wide in ``X_1`` and
    a few millionths in the others had ``X_4`` halved for ever (depth 127, no leaf closed in a
    minute). The node's bound holds on its parts, so the floor is sound as a score; and an
    input whose width relative to the root box is below ``2^-INPUT_BALANCE`` times the
    relatively widest input's is not a candidate."""
    fb = problem.float_bounds
    n = len(lo)
    flo, fhi = [to_float(v) for v in lo], [to_float(v) for v in hi]
    u = min(range(len(gaps)), key=lambda k: gaps[k][0])
    ay = [to_float(v) for v in plan[u].atom.y] if plan[u] is not None else [0.0] * problem.int_net.n_outputs
    ax = [to_float(v) for v in plan[u].atom.x] if plan[u] is not None else [0.0] * n
    if splits_on_relus(problem):  # many inputs: a ReLU split (symrel.vnnlib.relu_branch), an input one when none is left
        split = relu_choice(problem, d, flo, fhi, fixed, run, gaps, ay)
        if split is not None:
            return split
    _, A, _ = fb.lower(run, ay, ax)
    widths = [b - a for a, b in zip(flo, fhi)]
    scores = [abs(float(A[i])) * widths[i] if hi[i] > lo[i] else -1.0 for i in range(n)]
    if max(scores) <= 0:
        scores = [w if hi[i] > lo[i] else -1.0 for i, w in enumerate(widths)]
    rel = [w / r if r > 0 else 0.0 for w, r in zip(widths, problem.root_widths[d])]
    keep = max(rel) / 2 ** INPUT_BALANCE
    allowed = [i for i in range(n) if scores[i] >= 0 and rel[i] >= keep]
    ranked = sorted(allowed, key=lambda k: (-scores[k], k))
    if not ranked:  # the floats overflowed (scores of NaN): the exactly widest input
        ranked = sorted((i for i in range(n) if hi[i] > lo[i]), key=lambda k: (lo[k] - hi[k], k))[:1]
    inputs = ranked[:INPUT_CANDIDATES]
    widest = max(ranked, key=lambda k: (widths[k], -k), default=None)
    if widest is not None and widest not in inputs:
        inputs.append(widest)
    if not any(ay):
        if not inputs:
            raise InternalError("a node that is a single point stayed open")
        return InputSplit(inputs[0])
    options = []
    parts = {}  # per option's split, the run keys of its two parts (their runs kept for them: keep_parts)
    floor = min(g for g, _ in gaps)  # the node's bound holds on its parts (theirs may be lower: see above)
    scored = fb.neuron_scores(run, ay, fixed)  # the neurons whose relaxations lose the most, first
    cuts = [crossing(run, k, j, lo, hi, allowed) for _, k, j in scored[:CROSSING_CANDIDATES]]
    # the parts of every input cut in one stacked float pass (the same floats as one by one)
    prefetch_runs(problem, [(a, b) for i, at in [(i, (flo[i] + fhi[i]) / 2) for i in inputs]
                            + [(c.input, to_float(c.at)) for c in cuts if c is not None]
                            for a, b in _cut_boxes(flo, fhi, i, at)], fixed)
    for rank, i in enumerate(inputs):
        at = (flo[i] + fhi[i]) / 2
        a, b = _cut_gaps(problem, d, flo, fhi, fixed, floor, i, at)
        options.append(_scored(a, b, 1, -rank, InputSplit(i)))
        parts[options[-1].split] = _cut_parts(problem, flo, fhi, fixed, i, at)
    for t, cut in enumerate(cuts):
        if cut is not None:
            a, b = _cut_gaps(problem, d, flo, fhi, fixed, floor, cut.input, to_float(cut.at))
            options.append(_scored(a, b, 1, -len(inputs) - t, cut))
            parts[cut] = _cut_parts(problem, flo, fhi, fixed, cut.input, to_float(cut.at))
    if unstable_count(run) - len(fixed) <= RELU_SPLIT_UNSTABLE:
        splits = tuple(PhaseSplit(k, i, ph) for (k, i), ph in fixed.items())
        for _, k, i in scored[:RELU_CANDIDATES]:  # the parts' runs share the node's below layer k
            a = max(floor, node_gap(problem, d, flo, fhi, dict(fixed) | {(k, i): 0}, splits + (PhaseSplit(k, i, 0),),
                                    run, k))
            b = max(floor, node_gap(problem, d, flo, fhi, dict(fixed) | {(k, i): 1}, splits + (PhaseSplit(k, i, 1),),
                                    run, k))
            options.append(_scored(a, b, 0, 0, ReluSplit(k, i)))
            parts[ReluSplit(k, i)] = tuple(run_key(problem, flo, fhi, dict(fixed) | {(k, i): ph}) for ph in (0, 1))
    if not options:
        raise InternalError("a node that is a single point stayed open")
    best = max(options, key=lambda o: o[:4]).split
    keep_parts(problem, parts[best])
    return best


def crossing(run, k, j, lo, hi, allowed) -> InputSplit | None:
    """The input split ``InputSplit(i, c)`` through the zero of neuron ``j`` of ReLU layer
    ``k``: ``i``, among the ``allowed`` inputs, the one along which the neuron's float form
    (the mean of its lower and upper forms over the box) varies most, and ``c`` where that form
    vanishes with the other inputs at the box's centre, rounded to a dyadic of about 1/64 of
    the width; None when that point is not at least 1/32 of the width inside.

    Why: in a box thin in every input but one, an unstable neuron's pre-activation is nearly a
    function of that input, and a cut through its zero leaves it (nearly) stable on both
    sides, where halving the input leaves it unstable in one half. On ACAS Xu 3_3 prop_2 a
    node whose halvings of ``X_1`` leave both halves open at gaps -0.0033 and -0.067 has a
    part closed by the cut through the zero of each of five of its seven unstable neurons."""
    Al, cl, Au, cu = run.forms[k]
    form = (Al[j] + Au[j]) / 2
    const = (float(cl[j]) + float(cu[j])) / 2
    flo, fhi = [to_float(v) for v in lo], [to_float(v) for v in hi]
    i = max(allowed, key=lambda m: (abs(float(form[m])) * (fhi[m] - flo[m]), -m), default=None)
    if i is None or not form[i]:
        return None
    x = -(const + sum(float(form[m]) * (flo[m] + fhi[m]) / 2 for m in range(len(lo)) if m != i)) / float(form[i])
    w = hi[i] - lo[i]
    if not math.isfinite(x) or not to_float(w) > 0:  # a form of a denormal slope, or a box too thin for a double
        return None
    e = math.floor(math.log2(to_float(w) / 64))
    grid = Q(2) ** e if e >= 0 else Q(1, 2 ** -e)
    c = Q(round(x / 2.0 ** e)) * grid
    if not lo[i] + w / 32 <= c <= hi[i] - w / 32:
        return None
    return InputSplit(i, c)


def exact_branch(problem: Problem, d, lo, hi, bounds) -> InputSplit:
    """Without float bounds: the halving of the input with the highest ``|A_i| * width_i``
    for the exact lower form ``A x + c`` (of ``bounds``) of the least-settled unsafe
    disjunct's best candidate, or of the widest input when every disjunct's bound is above
    its right-hand side or every score is 0 (ties: the first input)."""
    n = len(lo)
    worst = None
    for conj in problem.unsafe:
        best = None
        for c in candidates(problem, d, conj):
            form = bounds.backward(c.y, c.x)
            m = bounds.form_min(form)
            if best is None or m - c.rhs > best[0]:
                best = (m - c.rhs, form)
        if best is not None and best[0] <= 0 and (worst is None or best[0] < worst[0]):
            worst = best
    widths = [b - a for a, b in zip(lo, hi)]
    scores = widths if worst is None else [abs(worst[1][i]) * widths[i] for i in range(n)]
    if not any(scores):
        scores = widths
    return InputSplit(max(range(n), key=lambda k: (scores[k], -k)))
