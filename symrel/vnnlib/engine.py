"""The exact engine: decide a VNN-LIB property of a ReLU net by branch and bound.

Definition. ``decide(net, prop)`` answers whether some input ``x`` of the property's input
region has outputs ``y = net(x)`` meeting the unsafe condition:

* ``"sat"``: an exact input ``witness_x`` in the region whose exact outputs ``witness_y``
  (computed by the net's own exact semantics) meet the unsafe condition;
* ``"unsat"``: no such input; ``certificate`` is a ``vnnlib-unsat`` certificate
  (docs/format.md) that :mod:`symrel.checking.vnnlib` re-checks with rational arithmetic;
* ``"unknown"``: a limit came first (``limit``: ``"time"``, or ``"tree entries"`` or ``"leaf
  operations"``, the trusted checker's limits, beyond which a certificate would be refused);
  ``open_leaves`` are the boxes still open and ``covered`` the exact fraction of the region's
  volume already closed.

The search. Each input disjunct's box (its single-variable bounds; further atoms of the
disjunct are kept as constraints) is the root of a tree. A node is a box and the ReLU splits
on its path (a neuron set to ``z <= 0`` or ``z >= 0``). With numpy, float CROWN bounds
(:mod:`symrel.vnnlib.floatbounds`, beta multipliers of the splits from a float LP over the splits'
forms in the inputs and, where that leaves the node open, betas and lower slopes from the LP
over the whole relaxed net, :func:`~symrel.vnnlib.gaps.lp_multipliers`) decide
whether the node looks closed; only then are the exact bounds computed
(:mod:`symrel.vnnlib.symbolic`, integer arithmetic): the node closes when, for every unsafe
disjunct, one atom (or one constraint of the input disjunct) has a certified lower bound above
its right-hand side. Otherwise a float attack (:mod:`symrel.vnnlib.attack`, on every new box:
a root or an input split's part, with or without ReLU splits above it, but not the parts of a
ReLU split, whose box was attacked as their parent's; a root harder; starting from the best
float point of the parent's box too, and climbing each unsafe disjunct on its own as well as
the whole condition) proposes a point, kept only when exact evaluation confirms it; and every
``RESTART_EVERY`` nodes the root of an open input disjunct is attacked anew with many new
starts (:func:`~symrel.vnnlib.worker.restart`), for a counterexample in a region too narrow
for the boxes' attacks. The search takes the most promising nodes first: of a split node, the
part holding its best float point, and of a round's nodes, those whose best points' float
margins are highest (an order only: an unsat search's tree is the same in any order). A
refuted point's linear region gets one exact LP (:mod:`symrel.vnnlib.pattern`: the
counterexamples may form a set no double reaches, such as a single point off the dyadic
grid), and failing that the node is split where the most of its two parts close in floats, then where their float gaps sum highest (:func:`~symrel.vnnlib.branching.branch`), among the
halvings of the inputs scored highest by ``|A_i| * width_i`` (``A``: the float lower form
of the least-settled atom) and of the widest input (inputs far thinner than the widest, relative
to the root box, left out), the cuts of an input through the zeros of the few neurons whose
relaxations lose the most (:func:`~symrel.vnnlib.branching.crossing`), and, where at most
``RELU_SPLIT_UNSTABLE`` ReLUs are unstable, the splits of a few ReLUs. ReLU splits make the
search complete: with every unstable neuron split, the bound with the LP's betas is the exact
minimum over the part. Without numpy every node is bounded exactly and only inputs are split.

The modules. This one is the driver (as nnenum's ``enumerate.py``): the search loop, its
rounds, budgets and limits, the tree's bookkeeping and the :class:`Verdict`. The per-node work
is :mod:`symrel.vnnlib.worker` (nnenum's ``worker.py``): it evaluates a node with
:mod:`symrel.vnnlib.gaps` (the float gaps and the close plan), :mod:`symrel.vnnlib.close` (the
exact close and a leaf's facts) and :mod:`symrel.vnnlib.branching` (the split). The problem,
prepared once, is :mod:`symrel.vnnlib.problem`; the node state and the records that pass
between the driver and the workers (nodes, results, splits, tree entries) are
:mod:`symrel.vnnlib.node` (nnenum's ``lp_star_state.py``); :mod:`symrel.vnnlib.certificate`
writes the certificate.

Cost: per node a few float propagations (two per candidate split), one exact propagation
(:mod:`symrel.vnnlib.symbolic`) where the floats say closed, and, when it stays open, one
float attack; the number of nodes is what the property needs (exponential in the worst case).

>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib import LinearAtom, VnnProperty
>>> from symrel.exact import rational as q
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
>>> box = ((LinearAtom((q(-1),), (q(0),), q(1)), LinearAtom((q(1),), (q(0),), q(1))),)  # -1 <= x <= 1
>>> neg = VnnProperty(1, 1, box, ((LinearAtom((q(0),), (q(1),), q("-1/100")),),), "0" * 64, "inline")
>>> decide(net, neg).status                                  # |x| <= -1/100 never holds
'unsat'
>>> big = VnnProperty(1, 1, box, ((LinearAtom((q(0),), (q(-1),), q("-3/4")),),), "0" * 64, "inline")
>>> v = decide(net, big); v.status, abs(v.witness_x[0]) >= q("3/4")   # |x| >= 3/4 somewhere
('sat', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ..budget import Budget, BudgetExceeded
from ..checking.vnnlib import (MAX_LEAF_OPERATIONS, MAX_TREE_ENTRIES, box_bits, leaf_bits, leaf_operations,
                               leaf_operations_limit)
from ..errors import InputError, InternalError, LimitError
from ..exact import Q, ZERO, format_rational
from ..exact.sizes import check_product_bits
from ..parallel import chunked, map_ordered
from .certificate import CLAIM_KIND, RULE, certificate, property_object
from .certificate import file_name as _file_name  # noqa: F401 (symrel.vnnlib.layered.certificate imports it here)
from .close import BeyondChecker
from .node import Closed, InputSplit, Leaf, Node, PhaseSplit, Proposal, ReluSplit, Root
from .pattern import linear_region, region_witness
from .problem import prepare, region_box, splits_on_relus
from .worker import Chunk, evaluate_chunk, restart

# what other modules import from here (the engine's public names before the split into modules)
__all__ = ["BATCH", "CLAIM_KIND", "RULE", "Verdict", "decide", "property_object", "region_box"]


@dataclass
class Verdict:
    """The answer of :func:`decide` (module docstring)."""

    status: str
    witness_x: tuple | None = None
    witness_y: tuple | None = None
    certificate: dict | None = None
    open_leaves: tuple = ()
    covered: object = ZERO
    stats: dict = field(default_factory=dict)
    limit: str | None = None  # for "unknown": the limit that stopped the search

    def __repr__(self):
        return f"Verdict({self.status!r}, covered={format_rational(self.covered)}, stats={self.stats})"


class _PhaseSplitBox:
    """A box whose parts are phase-split (the same box, other ReLU phases): how many of its
    parts are still open, and the box, whose volume is closed when none is."""

    __slots__ = ("open_parts", "lo", "hi")

    def __init__(self, lo, hi):
        self.open_parts, self.lo, self.hi = 1, lo, hi


class _Coverage:
    """The exact fraction of the region's volume closed so far (the ``covered`` of a verdict):
    the volume of every closed box over the dimensions in which its input disjunct's box is
    not flat (a flat disjunct counts its closed points instead). A box whose parts are
    phase-split counts once, when its last part closes."""

    def __init__(self):
        self.dims: dict = {}  # per non-empty input disjunct, the inputs along which its box is not flat
        self.total = Q(0)
        self.closed_volume = Q(0)
        self.closed_points = 0
        self.boxes: dict = {}  # (d, path) of a phase-split box: its _PhaseSplitBox

    def add_root(self, d, lo, hi) -> None:
        """Count the root box of input disjunct ``d`` in the total (its volume's size bounded first)."""
        check_product_bits(sum(int(w.numerator).bit_length() + int(w.denominator).bit_length()
                               for w in (hi[i] - lo[i] for i in self.dims[d])),
                           where=f"input disjunct {d}", what="the volume of the box")
        self.total += _volume(lo, hi, self.dims[d])

    def close(self, node: Node) -> None:
        """The node is a leaf: its box is closed (once all parts of its phase-split box are)."""
        lo, hi = node.lo, node.hi
        if node.owner is not None:
            box = self.boxes[node.owner]
            box.open_parts -= 1
            if box.open_parts:
                return
            lo, hi = box.lo, box.hi
        if self.dims[node.disjunct]:
            self.closed_volume += _volume(lo, hi, self.dims[node.disjunct])
        else:
            self.closed_points += 1

    def phase_split(self, node: Node) -> tuple:
        """The node is phase-split: the key of the box its two parts share (the node's own
        when it is not already a part of one)."""
        owner = node.owner
        if owner is None:
            owner = node.key
            self.boxes[owner] = _PhaseSplitBox(node.lo, node.hi)
        self.boxes[owner].open_parts += 1
        return owner

    def input_split(self, node: Node) -> None:
        """The node is cut in two: one more open part of its phase-split box, if any."""
        if node.owner is not None:
            self.boxes[node.owner].open_parts += 1

    def covered(self):
        """The exact fraction of the region's volume closed so far (0 for a flat region)."""
        return self.closed_volume / self.total if self.total else ZERO


def _volume(lo, hi, dims):
    v = Q(1)
    for i in dims:
        v *= hi[i] - lo[i]
    return v


def _confirm(net, prop, x):
    """The exact outputs at ``x`` when ``x`` is a counterexample (in the region and unsafe), else None."""
    if not prop.in_region(list(x)):
        return None
    y = tuple(net.evaluate_exact(list(x)))
    return y if prop.holds(list(x), list(y)) else None


def _counterexample(net, prop, problem, node: Node, x, tried: set, stats: dict, budget):
    """The exact counterexample ``(x, y)`` that the proposal ``x`` at ``node`` leads to, else
    None: ``x`` itself when exact evaluation confirms it; else, once per input disjunct and
    linear region of refuted proposals (``tried``), a point of ``x``'s linear region in the
    node's box found by one exact LP (:mod:`symrel.vnnlib.pattern`: the counterexamples may
    form a set no double reaches)."""
    y = _confirm(net, prop, x)
    region = linear_region(problem.int_net, x) if y is None else None
    if region is not None and (node.disjunct, region.phases) not in tried:  # the floats missed: an exact LP
        tried.add((node.disjunct, region.phases))
        stats["region_lps"] += 1
        try:
            x = region_witness(region, node.lo, node.hi, problem.unsafe, [a for _, a in problem.extra[node.disjunct]],
                               budget)
        except BudgetExceeded:  # the time is up: the next round's check says so
            x = None
        y = None if x is None else _confirm(net, prop, x)
    return None if y is None else (tuple(x), y)


def _restart(net, prop, problem, roots, stack, tried, stats, budget):
    """The exact counterexample that the next restart of the float attack on the root of an
    input disjunct with open nodes leads to (:func:`_counterexample`), else None; the
    disjuncts taken in turn."""
    open_disjuncts = sorted({node.disjunct for node in stack})
    k = stats["restarts"]
    stats["restarts"] += 1
    d = open_disjuncts[k % len(open_disjuncts)]
    root = Node(d, (), roots[d].lo, roots[d].hi, ())
    x, _ = restart(problem, d, root.lo, root.hi, k)
    if x is None:
        return None
    stats["attacks"] += 1
    return _counterexample(net, prop, problem, root, x, tried, stats, budget)


# -- the search ------------------------------------------------------------------------------------
#: nodes per round of :func:`decide`. An unsat search's tree does not depend on it (each node's
#: split depends on the node alone), only how often the workers wait for the slowest of a
#: round: on ACAS Xu 3_3 prop_2 with two worker processes, 397 rounds of 32 took 106.9 s, 205
#: of 64 took 101.4 s and 112 of 128 took 98.0 s (the same 12,305 nodes)
BATCH = 128
#: nodes between two restarts of the float attack on an input disjunct's root box
#: (:func:`symrel.vnnlib.worker.restart`, about 0.1 s of CPU on ACAS Xu, where 256 nodes take
#: about 4 s): a counterexample in a narrow region that the search's attacks on its boxes missed
#: is looked for again with new starts, the open disjuncts in turn
RESTART_EVERY = 256


def decide(net, prop, *, timeout=None, executor=None, progress=None, batch: int = BATCH,
           max_tree_entries: int = MAX_TREE_ENTRIES, max_leaf_operations: int = MAX_LEAF_OPERATIONS) -> Verdict:
    """Decide ``prop`` on ``net`` exactly (module docstring). ``timeout``: seconds (None: no
    limit); ``executor``: a ``concurrent.futures`` executor or None; ``progress``: called as
    ``progress(stats)`` after each round; ``batch``: nodes per round (the verdict depends on
    it, not on the executor).

    The search also stops, as ``"unknown"``, when its tree (nodes decided plus nodes open)
    would exceed ``max_tree_entries`` or its leaves ``max_leaf_operations`` (counted as the
    checker counts them): by default the trusted checker's limits, so that memory stays
    bounded without a ``timeout`` and no certificate is built that the checker would refuse;
    and, for the same reason, when a closed leaf's numbers exceed the checker's ``relaxation
    bits`` (a network or region of numbers beyond about 2^512).

    Cost: a round evaluates up to ``batch`` open nodes (:func:`symrel.vnnlib.worker.evaluate`,
    on the executor's workers), then updates the tree here: a leaf, a confirmed or refuted
    proposal (one exact evaluation, at most one exact LP per linear region), or two children."""
    start = time.monotonic()
    budget = Budget(timeout)
    boxes = [region_box(conj, prop.n_inputs, f"input disjunct {d}") for d, conj in enumerate(prop.input_region)]
    roots: dict = {}  # per input disjunct, its Root
    stack: list = []  # the open nodes, the next one last
    trees: dict = {}  # (d, path) of each decided node: its tree entry (Leaf, ReluSplit or InputSplit)
    cover = _Coverage()
    for d in reversed(range(len(boxes))):
        lo, hi, _ = boxes[d]
        empty = next((i for i in range(len(lo)) if lo[i] > hi[i]), None)
        roots[d] = Root(lo, hi, empty)
        if empty is not None:
            continue
        cover.dims[d] = [i for i in range(len(lo)) if hi[i] > lo[i]]
        stack.append(Node(d, (), lo, hi, ()))
    stats = {"nodes": 0, "leaves": 0, "rounds": 0, "max_depth": 0, "relaxed": 0, "attacks": 0, "relu_splits": 0,
             "region_lps": 0, "restarts": 0}
    tried = set()  # (input disjunct, linear region) of the refuted proposals whose region LP ran

    def unknown(limit) -> Verdict:
        stats["seconds"] = round(time.monotonic() - start, 3)
        open_leaves = tuple((node.disjunct, node.lo, node.hi) for node in reversed(stack))
        return Verdict("unknown", None, None, None, open_leaves, cover.covered(), stats, limit)

    # the network in integers, within the arithmetic limits (symrel.exact.sizes); a caller's
    # backstop timer (symrel.verify's) stopping it is an unknown at the time
    try:
        for d in cover.dims:  # the volumes (for the fraction covered): a product of n widths, bounded first
            cover.add_root(d, roots[d].lo, roots[d].hi)
        problem = prepare(net, prop, boxes)
        for d, (lo, hi, empty) in roots.items():  # the roots' numbers within the checker's bounds
            if empty is None:
                check_product_bits(leaf_bits(problem.sizes, box_bits(lo, hi, f"input disjunct {d}")),
                                   where=f"input disjunct {d}", what="the numbers of the exact bounds")
    except LimitError as err:
        if getattr(err, "limit", None) is None:
            raise
        return unknown(err.limit)
    except BudgetExceeded:
        return unknown("time")
    weights = sum(layer.output_dim * layer.input_dim for layer in net.layers)
    first = net.layers[0].output_dim * net.layers[0].input_dim
    if max_leaf_operations == MAX_LEAF_OPERATIONS:  # the default: the checker's limit for this network
        max_leaf_operations = leaf_operations_limit(weights, prop.n_inputs, len(prop.unsafe), first)
    leaf_work = 0  # the leaves' operations, counted as the trusted checker counts them
    while stack:
        if budget.expired():
            return unknown("time")
        if len(trees) + len(stack) > max_tree_entries:
            return unknown("tree entries")
        if leaf_work > max_leaf_operations:
            return unknown("leaf operations")
        round_ = [stack.pop() for _ in range(min(batch, len(stack)))]
        # a node is fresh when its box is new: a root, or a part of an input split (not of a ReLU split)
        tasks = [node.task(fresh=not node.path or not isinstance(trees[(node.disjunct, node.path[:-1])], ReluSplit))
                 for node in round_]
        left = budget.remaining()
        deadline = None if left is None else time.time() + left
        chunks = [Chunk(deadline, part) for part in chunked(tasks, executor)]
        try:
            results = [r for part in map_ordered(evaluate_chunk, chunks, executor, shared=(problem,)) for r in part]
        except BeyondChecker as limit:  # no certificate the checker would refuse: the round stays open
            stack.extend(reversed(round_))
            return unknown(limit.args[0])
        except BudgetExceeded:  # a caller's backstop timer, inside the round: the round stays open
            stack.extend(reversed(round_))
            return unknown("time")
        if any(r is None for r in results):  # the time limit came inside the round: its nodes stay open
            stack.extend(reversed(round_))
            return unknown("time")
        stats["rounds"] += 1
        children = []  # (node, its split) of the nodes that stay open
        for node, result in zip(round_, results):
            stats["nodes"] += 1
            stats["max_depth"] = max(stats["max_depth"], len(node.path))
            if isinstance(result, Closed):
                trees[node.key] = Leaf(result.facts)
                stats["leaves"] += 1
                leaf_work += leaf_operations(weights, prop.n_inputs, len(prop.unsafe),
                                             leaf_bits(problem.sizes, box_bits(node.lo, node.hi)), first)
                stats["relaxed"] += result.relaxed
                cover.close(node)
            elif isinstance(result, Proposal):
                stats["attacks"] += 1
                found = _counterexample(net, prop, problem, node, result.x, tried, stats, budget)
                if found is not None:
                    stats["seconds"] = round(time.monotonic() - start, 3)
                    return Verdict("sat", found[0], found[1], None, (), cover.covered(), stats)
                children.append((node, result))  # a false alarm of the floats: split
            else:
                children.append((node, result))
        # the parts of the most promising nodes (their best float points' margins highest) on
        # top, each node's part that holds its best point first; ties in the order of the round
        children.reverse()
        children.sort(key=lambda c: c[1].hint[1] if c[1].hint is not None else c[0].score)
        for node, result in children:
            _split(node, result, stack, trees, cover, stats)
        if stack and stats["nodes"] >= (stats["restarts"] + 1) * RESTART_EVERY and problem.float_bounds is not None \
                and not splits_on_relus(problem):  # the root of an open disjunct attacked anew
            found = _restart(net, prop, problem, roots, stack, tried, stats, budget)
            if found is not None:
                stats["seconds"] = round(time.monotonic() - start, 3)
                return Verdict("sat", found[0], found[1], None, (), cover.covered(), stats)
        if progress is not None:  # the exact fraction of the region closed so far, and the time
            progress(dict(stats, open=len(stack), covered=cover.covered(), seconds=time.monotonic() - start))
    stats["seconds"] = round(time.monotonic() - start, 3)
    return Verdict("unsat", None, None, certificate(net, prop, roots, trees), (), Q(1), stats)


def _split(node: Node, result, stack: list, trees: dict, cover: _Coverage, stats: dict) -> None:
    """Record the ``result``'s split (None: halve the widest input) as the node's tree entry
    and push its two parts, part ``result.first`` on top: a ReLU split's parts keep the box and
    fix the neuron's phase (and start from the node's optimised slopes and multipliers,
    ``result.warm``); an input split's parts are the box cut at its point (its middle
    when none is given). The order and the hints only steer the search towards counterexamples:
    the tree an unsat search builds is the same in any order."""
    split, first, hint = result.split, result.first, result.hint
    if hint is not None:  # the parts carry the node's best point's margin, the first the point itself
        node = replace(node, score=hint[1])
    lo, hi = node.lo, node.hi
    if split is None:
        widths = [b - a for a, b in zip(lo, hi)]
        split = InputSplit(max(range(len(lo)), key=lambda k: (widths[k], -k)))
        first = 0
    if isinstance(split, ReluSplit):
        stats["relu_splits"] += 1
        owner = cover.phase_split(node)
        trees[node.key] = split
        parts = [replace(node.child(side, lo, hi, PhaseSplit(split.layer, split.neuron, side), owner),
                         warm=getattr(result, "warm", None)) for side in (0, 1)]
    else:
        i = split.input
        if not hi[i] > lo[i]:
            raise InternalError("a node that is a single point stayed open")
        cover.input_split(node)
        mid = (lo[i] + hi[i]) / 2 if split.at is None else split.at  # the halving, or the cut
        if not lo[i] < mid < hi[i]:
            raise InputError("a split outside its node's box (internal error)", path="engine")
        cut = trees[node.key] = InputSplit(i, mid)
        lo0, hi0, lo1, hi1 = cut.halves(lo, hi)
        parts = [node.child(0, lo0, hi0), node.child(1, lo1, hi1)]
    if hint is not None:
        parts[first] = replace(parts[first], hint=hint)
    stack.append(parts[1 - first])
    stack.append(parts[first])
