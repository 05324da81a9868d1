"""The search: decide a VNN-LIB property of a layered net exactly, by branch and bound.

Definition. ``decide(net, prop)`` answers whether some input ``x`` of the property's input
region has outputs ``y = net(x)`` meeting the unsafe condition, for a layered net
(convolutions, ReLUs, max pooling; a maxout or ReLU net is converted), with the outcomes of
:func:`symrel.vnnlib.engine.decide`:

* ``"sat"``: an exact input ``witness_x`` in the region whose exact outputs ``witness_y``
  (the net's own exact semantics) meet the unsafe condition;
* ``"unsat"``: a ``vnnlib-unsat`` certificate (:mod:`~symrel.vnnlib.layered.certificate`) that
  :mod:`symrel.checking.vnnlib_layered` re-checks with rational arithmetic;
* ``"unknown"``: a limit came first (``limit``: ``"time"``, or the trusted checker's
  ``"tree entries"`` or ``"leaf operations"``); ``open_leaves`` are the boxes still open and
  ``covered`` the exact fraction of the region's volume closed.

The search. Each input disjunct's box is the root of a tree; a node (:class:`~symrel.vnnlib.layered.node.Node`) is
a box and the splits on its path. The nodes are taken depth first, ``batch`` at a time, and
their work (:func:`~symrel.vnnlib.layered.worker.evaluate`) runs on the executor's workers, the problem sent once
to each (:func:`symrel.parallel.map_ordered`); the results are applied in the nodes' order,
so the verdict and the certificate do not depend on the executor. A closed node is a leaf
(its facts exact); a candidate point is evaluated exactly here (in the region and unsafe:
``sat``), and when refuted its linear region is searched once (:mod:`~symrel.vnnlib.layered.region`) and
the node is evaluated again, without the attack (it is counted again in ``nodes``); otherwise
the node is split: an input split (two boxes), a ReLU split (two parts), a max split (one
part per piece) or a split by unsafe disjunct (one part per disjunct, those already closed
attached as leaves).

Cost: per node a few float passes, at most one LP per open unsafe disjunct and one exact pass
where the floats say closed; the number of nodes is what the property needs.

>>> from symrel.exact import Q
>>> from symrel.models.layered import LayeredNet, MaxGroups, SparseAffine
>>> from symrel.vnnlib import LinearAtom, VnnProperty
>>> net = LayeredNet(1, [SparseAffine([[(0, 1)], [(0, -1)]]), MaxGroups([[0, 1]])])   # |x|
>>> box = ((LinearAtom((Q(-1),), (Q(0),), Q(1)), LinearAtom((Q(1),), (Q(0),), Q(1))),)
>>> decide(net, VnnProperty(1, 1, box, ((LinearAtom((Q(0),), (Q(1),), Q("-1/100")),),), "0" * 64, "x")).status
'unsat'
>>> v = decide(net, VnnProperty(1, 1, box, ((LinearAtom((Q(0),), (Q(-1),), Q("-3/4")),),), "0" * 64, "x"))
>>> v.status, abs(v.witness_x[0]) >= Q(3, 4)
('sat', True)
"""

from __future__ import annotations

import time
from dataclasses import replace

from ...budget import Budget, BudgetExceeded
from ...checking.vnnlib_limits import MAX_LEAF_OPERATIONS, MAX_TREE_ENTRIES
from ...errors import InternalError, LimitError
from ...exact.sizes import check_product_bits, number_bits
from ...exact import Q, ZERO
from ...parallel import chunked, map_ordered
from ..engine import Verdict
from .certificate import certificate
from .node import InputSplit, Leaf, MaxSplit, Node, ReluSplit, UnsafeSplit
from .problem import prepare_problem
from .worker import evaluate

#: nodes per round (the verdict does not depend on it beyond the order of work)
BATCH = 32


def _evaluate_chunk(problem, chunk):
    """The outcomes of a chunk ``(deadline, nodes)``; None for the nodes left when the
    deadline (seconds since the epoch, or None) has passed."""
    deadline, nodes = chunk
    out = []
    for node in nodes:
        if deadline is not None and time.time() >= deadline:
            out.append(None)
        else:
            out.append(evaluate(problem, node))
    return out


def _volume(lo, hi, dims):
    v = Q(1)
    for i in dims:
        v *= hi[i] - lo[i]
    return v


def _exact_point(x, lo, hi):
    """The float point ``x`` read exactly and clamped into ``[lo, hi]``."""
    out = []
    for v, a, b in zip(x, lo, hi):
        q = Q(*float(v).as_integer_ratio()) if not isinstance(v, type(a)) else v
        out.append(min(max(q, a), b))
    return tuple(out)


def _confirm(net, prop, x):
    if not prop.in_region(list(x)):
        return None
    y = tuple(net.evaluate_exact(list(x)))
    return y if prop.holds(list(x), list(y)) else None


class _Coverage:
    """The closed volume: a box closes when every part sharing it (ReLU, max and unsafe
    splits) has closed; points (boxes of no volume) are counted apart."""

    def __init__(self):
        self.owners: dict = {}
        self.volume = Q(0)
        self.points = 0

    def share(self, node, parts: int):
        """``node`` becomes ``parts`` parts of its box; the owner key of the parts."""
        owner = node.owner
        if owner is None:
            owner = node.key
            self.owners[owner] = [1, (node.lo, node.hi)]
        self.owners[owner][0] += parts - 1
        return owner

    def close(self, node_lo, node_hi, owner, dims):
        if owner is not None:
            self.owners[owner][0] -= 1
            if self.owners[owner][0]:
                return
            node_lo, node_hi = self.owners.pop(owner)[1]
        if dims:
            self.volume += _volume(node_lo, node_hi, dims)
        else:
            self.points += 1


def decide(net, prop, *, timeout=None, executor=None, progress=None, batch: int = BATCH,
           max_tree_entries: int = MAX_TREE_ENTRIES, max_leaf_operations: int = MAX_LEAF_OPERATIONS) -> Verdict:
    """Decide ``prop`` on ``net`` exactly (module docstring). ``timeout``: seconds (None: no
    limit); ``executor``: a ``concurrent.futures`` executor or None; ``progress``: called as
    ``progress(stats)`` after each round. The search also stops as ``"unknown"`` when its tree
    would exceed ``max_tree_entries`` or its leaves ``max_leaf_operations`` (as the trusted
    checker counts them; by default the checker's own limits)."""
    from .network import as_layered

    start = time.monotonic()
    budget = Budget(timeout)
    layered = as_layered(net)
    try:   # the net in integers, and the numbers of the exact bounds, within the arithmetic limits
        problem = prepare_problem(layered, prop)
        chain = problem.enet.chain_bits()
        for d, (lo, hi, _) in enumerate(problem.boxes):
            check_product_bits(3 * (chain + number_bits(list(lo) + list(hi), where=f"input disjunct {d}")),
                               where=f"input disjunct {d}", what="the numbers of the exact bounds")
    except LimitError as err:
        if getattr(err, "limit", None) is None:
            raise
        stats = {"nodes": 0, "seconds": round(time.monotonic() - start, 3)}
        return Verdict("unknown", None, None, None, (), ZERO, stats, err.limit)
    roots, dims, total = {}, {}, Q(0)
    stack = []
    for d in reversed(range(len(problem.boxes))):
        lo, hi, _ = problem.boxes[d]
        empty = next((i for i in range(len(lo)) if lo[i] > hi[i]), None)
        roots[d] = (lo, hi, empty)
        if empty is not None:
            continue
        dims[d] = [i for i in range(len(lo)) if hi[i] > lo[i]]
        total += _volume(lo, hi, dims[d])
        stack.append(Node(d, (), tuple(lo), tuple(hi)))
    stats = {"nodes": 0, "leaves": 0, "rounds": 0, "max_depth": 0, "attacks": 0, "relu_splits": 0,
             "max_splits": 0, "input_splits": 0, "unsafe_splits": 0, "region_lps": 0, "leaf_operations": 0}
    trees: dict = {}
    cover = _Coverage()
    tried = set()

    def unknown(limit):
        stats["seconds"] = round(time.monotonic() - start, 3)
        covered = cover.volume / total if total else ZERO
        return Verdict("unknown", None, None, None, tuple((n.disjunct, n.lo, n.hi) for n in reversed(stack)),
                       covered, stats, limit)

    def leaf(node, facts, cost):
        trees[node.key] = Leaf(facts)
        stats["leaves"] += 1
        stats["leaf_operations"] += cost
        cover.close(node.lo, node.hi, node.owner, dims[node.disjunct])

    while stack:
        if budget.expired():
            return unknown("time")
        if len(trees) + len(stack) > max_tree_entries:
            return unknown("tree entries")
        if stats["leaf_operations"] > max_leaf_operations:
            return unknown("leaf operations")
        round_ = [stack.pop() for _ in range(min(batch, len(stack)))]
        left = budget.remaining()
        deadline = None if left is None else time.time() + left
        chunks = [(deadline, part) for part in chunked(round_, executor)]
        results = [r for part in map_ordered(_evaluate_chunk, chunks, executor, shared=(problem,)) for r in part]
        if any(r is None for r in results):
            stack.extend(reversed(round_))
            return unknown("time")
        stats["rounds"] += 1
        children, again = [], []
        for node, res in zip(round_, results):
            stats["nodes"] += 1
            stats["max_depth"] = max(stats["max_depth"], len(node.path))
            if res.kind == "closed":
                leaf(node, res.facts, res.cost)
                continue
            if res.kind == "candidate":
                stats["attacks"] += 1
                x = _exact_point(res.point, node.lo, node.hi)
                y = _confirm(layered, prop, x)
                if y is None:
                    x = _region(problem, node, res.point, budget, tried, stats)
                    y = None if x is None else _confirm(layered, prop, x)
                if y is not None:
                    stats["seconds"] = round(time.monotonic() - start, 3)
                    return Verdict("sat", tuple(x), y, None, (), cover.volume / total if total else ZERO, stats)
                if res.split is None:   # attacked before its LPs: evaluated again, without the attack
                    again.append(replace(node, fresh=False))
                    continue
            children.append((node, res))
        for node, res in reversed(children):
            _split(node, res, stack, trees, cover, stats, leaf)
        stack.extend(reversed(again))
        if progress is not None:
            progress(dict(stats, open=len(stack)))
    # the last round may have passed a limit of the checker: no certificate it would refuse
    if len(trees) > max_tree_entries:
        return unknown("tree entries")
    if stats["leaf_operations"] > max_leaf_operations:
        return unknown("leaf operations")
    stats["seconds"] = round(time.monotonic() - start, 3)
    return Verdict("unsat", None, None, certificate(layered, prop, roots, trees), (), Q(1), stats)


def _region(problem, node, point, budget, tried, stats):
    """An exact point from the linear region of the refuted ``point``, once per region."""
    from .region import region_point

    if problem.fnet is not None:   # the float net exists only where numpy is installed
        import numpy as np

        from .attack import forward

        _, records = forward(problem.fnet, np.asarray(point, dtype=float)[:, None])
        key = (node.disjunct, b"".join(np.ascontiguousarray(r).tobytes() for r in records if r is not None))
    else:
        key = (node.disjunct, tuple(point))
    if key in tried:
        return None
    tried.add(key)
    stats["region_lps"] += 1
    todo = node.unsafe if node.unsafe is not None else range(problem.n_unsafe)
    try:
        got = region_point(problem.enet, problem.fnet, point, node.lo, node.hi, [problem.unsafe[u] for u in todo],
                           problem.extra[node.disjunct], budget)
    except BudgetExceeded:
        return None
    return None if got is None else _exact_point(got, node.lo, node.hi)


def _split(node, res, stack, trees, cover, stats, leaf):
    """Record ``res.split`` at ``node`` and push its open parts (the first part on top)."""
    split = res.split
    trees[node.key] = split
    parts = []
    if isinstance(split, InputSplit):
        stats["input_splits"] += 1
        i, mid = split.i, split.at
        if not node.lo[i] < mid < node.hi[i]:
            raise InternalError("a split outside its node's box")
        owner = node.owner
        if owner is not None:
            cover.owners[owner][0] += 1
        hi0 = tuple(mid if k == i else v for k, v in enumerate(node.hi))
        lo1 = tuple(mid if k == i else v for k, v in enumerate(node.lo))
        parts = [node.child(0, hi=hi0, fresh=True), node.child(1, lo=lo1, fresh=True)]
    elif isinstance(split, ReluSplit):
        stats["relu_splits"] += 1
        owner = cover.share(node, 2)
        parts = [node.child(s, sides=node.sides + ((split.k, split.i, s),), fresh=False, owner=owner) for s in (0, 1)]
    elif isinstance(split, MaxSplit):
        stats["max_splits"] += 1
        owner = cover.share(node, split.pieces)
        parts = [node.child(p, winners=node.winners + ((split.k, split.g, p),), fresh=False, owner=owner)
                 for p in range(split.pieces)]
    elif isinstance(split, UnsafeSplit):
        stats["unsafe_splits"] += 1
        owner = cover.share(node, split.count)
        parts = [node.child(u, unsafe=(u,), fresh=False, owner=owner) for u in range(split.count)]
        for u, (facts, cost) in sorted(res.closed_parts.items()):
            leaf(parts[u], facts, cost)
        parts = [p for u, p in enumerate(parts) if u not in res.closed_parts]
    else:
        raise InternalError(f"an unknown split {split!r}")
    stack.extend(reversed(parts))
