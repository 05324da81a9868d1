"""The float gaps of a node: how far each unsafe disjunct is from closing, in floats.

Definition. At a node, the *gap* of a candidate atom ``y . Y + x . X <= rhs`` is its float
CROWN lower bound (:class:`~symrel.vnnlib.floatbounds.FloatBounds`) minus ``rhs``; an unsafe
disjunct looks closed when its best candidate's gap is positive (:func:`float_gaps`). Where
the plain bound leaves a disjunct open, :func:`close_plan` raises the gap with the beta
multipliers of the node's ReLU splits (beta-CROWN: :func:`~symrel.vnnlib.betas.split_betas`,
an LP over the splits' forms in the inputs) and, for the best atom, the betas and lower
slopes of the LP over the whole relaxed net (:func:`lp_multipliers`). The plan's
attempts (:class:`~symrel.vnnlib.close.Attempt`) are what the exact close tries first. Floats only
propose: every multiplier is rounded to a dyadic (:func:`dyadic`) and judged by the exact
bounds.

Cost: one float backward pass per candidate atom (all at once, :meth:`FloatBounds.lower_many
<symrel.vnnlib.floatbounds.FloatBounds.lower_many>`); for an open disjunct with splits one
small LP per candidate, and one LP over the net (its size: the unstable neurons).

>>> str(dyadic(0.1)), str(dyadic(0.75))             # rounded down to 2^-32
('429496729/4294967296', '3/4')
"""

from __future__ import annotations

import math

from typing import NamedTuple

from ..exact import Q
from .close import SLOPE_DENOMINATOR, Attempt, SplitBeta
from .problem import Problem, candidates, to_float

try:  # optional (the "numeric" extra): without numpy no node has float gaps
    from .betas import network_multipliers, split_betas
except ImportError:  # pragma: no cover - exercised where numpy is absent
    network_multipliers = split_betas = None

#: a node without ReLU splits gets the network LP only when at most this many ReLUs are unstable
#: (the LP seldom closes the large boxes of property 1: 4_7 prop_1 took 26.4 s of CPU with the
#: LP on every open node, 15.7 s with this limit; 3_3 and 4_2 prop_2 are unchanged, 214.6 and
#: 167.7 s against 214.2 and 168.2, side by side in one session)
LP_UNSTABLE = 80


class Gap(NamedTuple):
    """An unsafe disjunct's float gap ``value`` (lower bound minus right-hand side of its best
    candidate; the disjunct looks closed when it is > 0) and ``atom``, that candidate's index
    (None for an empty conjunction, always unsafe: ``value`` is then -inf)."""

    value: float
    atom: int | None


class Multipliers(NamedTuple):
    """The network LP's proposal for one atom: the float lower ``bound`` it gives, the
    splits' ``betas`` (each a :class:`~symrel.vnnlib.close.SplitBeta`) and the lower slopes
    ``alphas`` (``{(k, i): numerator over SLOPE_DENOMINATOR}``)."""

    bound: float
    betas: tuple
    alphas: dict


def dyadic(v: float):
    """A float ``v >= 0`` rounded down to 2^-32 (a beta: small numbers keep the exact check cheap)."""
    return Q(int(v * 4294967296.0), 4294967296)


def unstable_count(run) -> int:
    """The number of ReLUs whose float range straddles 0 (split ones included)."""
    return sum(int(((l < 0) & (h > 0)).sum()) for l, h in run.pre)


def float_gaps(problem: Problem, d: int, run) -> list:
    """Per unsafe disjunct the :class:`Gap` of its best candidate atom on the float bounds
    ``run`` of a node of input disjunct ``d``."""
    rows = problem.float_atoms[d]
    C = problem.float_bounds.lower_many(run, rows[0], rows[1])
    out = []
    for first, count in problem.float_groups[d]:
        if not count:  # an empty conjunction: always unsafe, never closed
            out.append(Gap(float("-inf"), None))
            continue
        g = C[first:first + count] - rows[2][first:first + count]
        j = int(g.argmax())
        out.append(Gap(float(g[j]), j))
    return out


#: the float runs of the parts of the splits chosen last (:func:`keep_parts`), kept for the
#: parts' own evaluations (:func:`part_run`): at most this many, and at most ``PARTS_BYTES``
#: of arrays, the oldest dropped first. A round's open nodes (``BATCH``, 128) leave two parts
#: each, and the search takes the parts of the last round next. On ACAS Xu a run is about 45 KB
PARTS_KEPT = 512
PARTS_BYTES = 32 << 20
#: candidate runs remembered at most (one node's candidate splits make at most 14)
CANDIDATES_KEPT = 32
_CANDIDATE_RUNS: dict = {}  # the runs node_gap made since the last keep_parts: {key: (problem, run)}
_PART_RUNS: dict = {}  # the chosen parts' runs: {key: (problem, run, its bytes)}
_PART_BYTES = [0]


def run_key(problem: Problem, lo, hi, fixed) -> tuple:
    """The key of a float run: the problem, the box in floats and the phases fixed."""
    return id(problem), tuple(float(v) for v in lo), tuple(float(v) for v in hi), frozenset(fixed.items())


def _run_bytes(run) -> int:
    return sum(a.nbytes for part in (run.pre, run.relax, run.forms) for layer in part for a in layer)


def keep_parts(problem: Problem, keys) -> None:
    """Keep the runs :func:`node_gap` made for the boxes and phases ``keys`` (:func:`run_key`),
    the parts of the split chosen, until their own evaluations take them; forget the other
    candidates' runs.

    Why: the chosen split's parts are the next nodes, and a node's own float run is the one
    its parent's split choice made for it (the same box and phases, the same floats): on
    ACAS Xu about one run in five of a search (67,397 runs for the 12,305 nodes of 3_3 prop_2,
    0.58 ms each). The tree does not change."""
    for key in keys:
        got = _CANDIDATE_RUNS.get(key)
        if got is not None and got[0] is problem:  # (an id is unique only among live objects)
            old = _PART_RUNS.pop(key, None)
            if old is not None:
                _PART_BYTES[0] -= old[2]
            size = _run_bytes(got[1])
            _PART_RUNS[key] = (problem, got[1], size)
            _PART_BYTES[0] += size
    _CANDIDATE_RUNS.clear()
    while _PART_RUNS and (len(_PART_RUNS) > PARTS_KEPT or _PART_BYTES[0] > PARTS_BYTES):
        _PART_BYTES[0] -= _PART_RUNS.pop(next(iter(_PART_RUNS)))[2]


def part_run(problem: Problem, lo, hi, fixed):
    """The float run of the node ``[lo, hi]`` (floats) with the phases ``fixed``: the one kept
    by :func:`keep_parts` when this process scored the node as a part of its parent's split
    (taken: each part is evaluated once), else computed. The same floats either way (a run
    depends on the box and the phases alone)."""
    got = _PART_RUNS.pop(run_key(problem, lo, hi, fixed), None)
    if got is not None:
        _PART_BYTES[0] -= got[2]
        if got[0] is problem:
            return got[1]
    return problem.float_bounds.run(lo, hi, fixed)


def prefetch_runs(problem: Problem, boxes, fixed) -> None:
    """Compute the float runs of the boxes ``[(lo, hi), ...]`` (floats) with the phases
    ``fixed`` in one stacked pass (:meth:`FloatBounds.run_many
    <symrel.vnnlib.floatbounds.FloatBounds.run_many>`, the same floats as one run each) and
    remember them as :func:`node_gap`'s own until the next :func:`keep_parts`.

    Why: a node's candidate input cuts make about ten parts of the same phases, and scoring
    them was most of an open node's float work (:mod:`symrel.vnnlib.branching`).

    Cost: one :meth:`run_many <symrel.vnnlib.floatbounds.FloatBounds.run_many>` of the boxes
    not remembered already; nothing when all are."""
    todo = {}
    for lo, hi in boxes:
        key = run_key(problem, lo, hi, fixed)
        got = _CANDIDATE_RUNS.get(key)
        if (got is None or got[0] is not problem) and key not in todo:
            todo[key] = (lo, hi)
    if not todo:
        return
    runs = problem.float_bounds.run_many([b[0] for b in todo.values()], [b[1] for b in todo.values()], fixed)
    if len(_CANDIDATE_RUNS) + len(todo) > CANDIDATES_KEPT:  # a caller that keeps no parts (no branch)
        _CANDIDATE_RUNS.clear()
    for key, run in zip(todo, runs):
        _CANDIDATE_RUNS[key] = (problem, run)


def node_gap(problem: Problem, d: int, lo, hi, fixed, splits=(), base=None, start=0) -> float:
    """The float gap of the least-settled unsafe disjunct at the node ``[lo, hi]`` (floats)
    with the phases ``fixed`` (with the ``splits``' betas from the float LP where the plain
    bound leaves it open); ``base``, ``start``: a run to take the layers below ReLU layer
    ``start`` from (:meth:`FloatBounds.run <symrel.vnnlib.floatbounds.FloatBounds.run>`).
    The run is remembered until the next :func:`keep_parts`."""
    fb = problem.float_bounds
    key = run_key(problem, lo, hi, fixed)
    got = _CANDIDATE_RUNS.get(key)
    if got is not None and got[0] is problem:  # computed with other boxes (prefetch_runs): the same floats
        run = got[1]
    else:
        run = fb.run(lo, hi, fixed, base, start)
        if len(_CANDIDATE_RUNS) >= CANDIDATES_KEPT:  # a caller that keeps no parts (no branch)
            _CANDIDATE_RUNS.clear()
        _CANDIDATE_RUNS[key] = (problem, run)
    gaps = float_gaps(problem, d, run)
    worst = min(g for g, _ in gaps)
    if worst > 0 or not splits:
        return worst

    def raised(u):  # the gap of disjunct u with the splits' betas
        g, j = gaps[u]
        if g <= 0 and j is not None:
            c = candidates(problem, d, problem.unsafe[u])[j]
            fay, fax = [to_float(v) for v in c.y], [to_float(v) for v in c.x]
            _, A, const = fb.lower(run, fay, fax)
            bt = split_betas(fb, run, splits, A, const)
            if bt is not None:
                g = max(g, fb.lower(run, fay, fax, [(k, i, ph, b) for (k, i, ph), b in zip(splits, bt)])[0]
                        - to_float(c.rhs))
        return g

    if any(math.isnan(g) for g, _ in gaps):  # floats that overflowed: every disjunct, in order
        return min(raised(u) for u in range(len(gaps)))
    least = math.inf  # the least settled first; a disjunct whose gap is not below the least raised so far
    for u in sorted(range(len(gaps)), key=lambda v: gaps[v][0]):  # cannot be below it raised, nor can the rest
        if gaps[u][0] >= least:
            break
        least = min(least, raised(u))
    return least


def lp_multipliers(problem: Problem, run, splits, ay, ax, rhs) -> Multipliers | None:
    """The network LP's betas (rounded by :func:`dyadic`) and lower slopes (rounded down to
    ``1 / SLOPE_DENOMINATOR``) for the atom ``ay . y + ax . x > rhs``, with the float lower
    bound they give; None when the LP fails.

    Why the slopes: the rule's slope (1 or 0 by the neuron's range) is the best one for the
    neuron alone, not for the atom; on ACAS Xu 3_3 and 4_2 prop_2 the LP's slopes took the
    searches from 370.6 and 523.6 s of CPU to 170.7 and 143.9 s (docs/benchmarks.md)."""
    fb = problem.float_bounds
    fay, fax = [to_float(v) for v in ay], [to_float(v) for v in ax]
    got = network_multipliers(fb, run, splits, fay, fax, to_float(rhs))
    if got is None:
        return None
    bt, lam = got
    bq = [dyadic(v) for v in bt]
    fbetas = [(k, i, ph, to_float(b)) for (k, i, ph), b in zip(splits, bq)]
    chosen = {}
    fb.lower(run, fay, fax, fbetas, alphas=chosen, lam=lam)
    alphas = {key: min(SLOPE_DENOMINATOR, max(0, int(a * SLOPE_DENOMINATOR))) for key, a in chosen.items()}
    bound = fb.lower(run, fay, fax, fbetas, {key: a / SLOPE_DENOMINATOR for key, a in alphas.items()})[0]
    return Multipliers(bound, tuple(SplitBeta(k, i, ph, b) for (k, i, ph), b in zip(splits, bq)), alphas)


def close_plan(problem: Problem, d: int, run, splits, gaps: list) -> list:
    """Per unsafe disjunct the :class:`~symrel.vnnlib.close.Attempt` the exact close tries
    first (None for an empty conjunction), and ``gaps`` raised in place to what the attempt
    gives in floats (module docstring): the best candidate of :func:`float_gaps`; where it
    leaves the disjunct open at a node with ReLU splits, the candidate over the outputs whose
    splits' betas raise its gap the most; and, still open, the network LP's betas and slopes
    for that candidate (at a node without splits only when at most ``LP_UNSTABLE`` ReLUs are
    unstable). A raised gap keeps the index of the first best candidate.

    The disjuncts are taken the least settled first, and once one stays open after all this
    the others are not raised (their plans are their best candidates alone, and their gaps
    scores, raised to the open one's so that the split follows that one's atom): the node is
    split whatever their raises give, and with several unsafe disjuncts (ACAS Xu property 6:
    four) their LPs were most of a node's cost. Only the split chosen may differ, never whether
    a node closes. On ACAS Xu 1_1 with properties 5 and 6 of benchmarks/data/acasxu_heldout
    (tuning half): 1,065 nodes where all were raised took 1,037 (property 5, a node about 12 ms
    of CPU against 14), and the same 39% covered in the first 2,044 nodes at 11.5 ms a node
    against 13.2 (property 6); skipping the rest without raising their gaps took property 5
    1,199 nodes."""
    fb = problem.float_bounds
    plan = [None] * len(problem.unsafe)
    lost = None  # the gap of the first disjunct that stayed open after every raise: the node is split
    for u in sorted(range(len(problem.unsafe)), key=lambda v: (gaps[v][0], v)):  # the least settled first
        conj = problem.unsafe[u]
        cands = candidates(problem, d, conj)
        g, j = gaps[u]
        if j is None:
            continue
        best = cands[j]
        betas = alphas = None
        if g <= 0 and splits and lost is None:  # beta-CROWN: the splits' multipliers, from a float LP
            for c in cands:
                if not any(c.y):
                    continue
                fay, fax = [to_float(v) for v in c.y], [to_float(v) for v in c.x]
                _, A, const = fb.lower(run, fay, fax)
                bt = split_betas(fb, run, splits, A, const)
                if bt is None:
                    continue
                bq = [dyadic(v) for v in bt]
                g2 = fb.lower(run, fay, fax, [(k, i, ph, to_float(b)) for (k, i, ph), b in zip(splits, bq)])[0] \
                    - to_float(c.rhs)
                if g2 > g:
                    g, best = g2, c
                    betas = tuple(SplitBeta(k, i, ph, b) for (k, i, ph), b in zip(splits, bq))
                if g > 0:
                    break
        if g <= 0 and lost is None and any(best.y) and (splits or unstable_count(run) <= LP_UNSTABLE):  # the net's LP
            got = lp_multipliers(problem, run, splits, best.y, best.x, best.rhs)
            if got is not None and got.bound - to_float(best.rhs) > g:
                g, betas, alphas = got.bound - to_float(best.rhs), got.betas or None, got.alphas or None
        plan[u] = Attempt(best, betas, alphas)
        gaps[u] = Gap(g if lost is None else max(g, lost), j)  # not raised: a score, at least the lost one's
        if lost is None and g <= 0:
            lost = g
    return plan
