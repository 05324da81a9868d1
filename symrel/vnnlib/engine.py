"""The exact engine: decide a VNN-LIB property of a ReLU net by branch and bound.

Definition. ``decide(net, prop)`` answers whether some input ``x`` of the property's input
region has outputs ``y = net(x)`` meeting the unsafe condition:

* ``"sat"``: an exact input ``witness_x`` in the region whose exact outputs ``witness_y``
  (computed by the net's own exact semantics) meet the unsafe condition;
* ``"unsat"``: no such input; ``certificate`` is a ``vnnlib-unsat`` certificate
  (docs/format.md) that :mod:`symrel.checking.vnnlib` re-checks with rational arithmetic;
* ``"unknown"``: the time limit came first; ``open_leaves`` are the boxes still open and
  ``covered`` the exact fraction of the region's volume already closed.

The search. Each input disjunct's box (its single-variable bounds; further atoms of the
disjunct are kept as constraints) is the root of a tree. A node is closed when, for every
unsafe disjunct, one atom (or one constraint of the input disjunct) has a certified lower
bound above its right-hand side on the node's box (symbolic intervals in exact integer
arithmetic, :mod:`symrel.vnnlib.symbolic`). Otherwise a float attack
(:mod:`symrel.vnnlib.attack`) proposes a point, kept only when exact evaluation confirms it,
and failing that the box is bisected at the midpoint of the input that weighs most in the
lower bound of the least-settled atom (its coefficient times the box's width).

Floats only propose; a node closes on exact integer facts, and a counterexample counts once
the net's exact evaluation confirms it. The nodes are taken from a stack in rounds of
``batch`` nodes; a round runs on ``executor`` (any ``concurrent.futures`` executor, through
:func:`symrel.parallel.map_ordered`) and its results are used in the round's order, so the
verdict and the certificate are those of the serial run.

Cost: per node one propagation (:mod:`symrel.vnnlib.symbolic`) and, when it stays open, one
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
import zlib
from dataclasses import dataclass, field

from ..budget import Budget
from ..errors import InputError
from ..exact import Q, ZERO, format_rational, rational
from ..parallel import chunked, map_ordered
from .attack import FloatNet, propose
from .symbolic import IntNet, box_scale, integer_net, propagate

#: the claim kind of the certificates written here
CLAIM_KIND = "vnnlib-unsat"
#: the rule of each input disjunct's step
RULE = "vnnlib-branch-and-bound"


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

    def __repr__(self):
        return f"Verdict({self.status!r}, covered={format_rational(self.covered)}, stats={self.stats})"


# -- the problem, prepared -------------------------------------------------------------------------
@dataclass(frozen=True)
class _Atom:
    x: tuple
    y: tuple
    rhs: object


@dataclass(frozen=True)
class _Context:
    inet: IntNet
    fnet: FloatNet
    unsafe: tuple  # tuple of tuples of _Atom
    extra: tuple  # per input disjunct: ((index in the conjunction, _Atom), ...) beyond the box
    float_unsafe: tuple


def region_box(conj, n: int, where: str):
    """The box of an input disjunct (its single-variable atoms, the tightest bound of each
    input) and the indices of its other atoms. An atom without variables and a false
    right-hand side makes the disjunct empty (returned as ``lo[0] = 1 > hi[0] = 0``)."""
    lo, hi, extra = [None] * n, [None] * n, []
    for k, atom in enumerate(conj):
        if any(atom.y):
            raise InputError(f"expected atoms over X alone in the input region, got {atom}", path=where)
        nz = [i for i, c in enumerate(atom.x) if c]
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


def _float_layers(net):
    out = []
    for layer in net.layers:
        W = [[int(v.numerator) / int(v.denominator) for v in r] for r in layer.affine.exact_W.to_list()]
        b = [int(r[0].numerator) / int(r[0].denominator) for r in layer.affine.exact_b.to_list()]
        out.append((W, b, layer.activation == "relu"))
    return out


def _atom(a) -> _Atom:
    return _Atom(tuple(rational(v) for v in a.x), tuple(rational(v) for v in a.y), rational(a.rhs))


def _fl(v) -> float:
    return int(v.numerator) / int(v.denominator)


def _context(net, prop, boxes) -> _Context:
    inet = integer_net(net)
    if prop.n_inputs != inet.n_inputs or prop.n_outputs != inet.n_outputs:
        raise InputError(f"the property has {prop.n_inputs} inputs and {prop.n_outputs} outputs, the network "
                         f"{inet.n_inputs} and {inet.n_outputs}", path="property")
    unsafe = tuple(tuple(_atom(a) for a in conj) for conj in prop.unsafe)
    extra = tuple(tuple((k, _atom(prop.input_region[d][k])) for k in ex) for d, (_, _, ex) in enumerate(boxes))
    fu = tuple(tuple(([_fl(v) for v in a.x], [_fl(v) for v in a.y], _fl(a.rhs)) for a in conj) for conj in unsafe)
    return _Context(inet, FloatNet(_float_layers(net)), unsafe, extra, fu)


# -- one node --------------------------------------------------------------------------------------
def _evaluate(ctx: _Context, node):
    """``("closed", facts)``, ``("sat", x)`` (an exact input proposed, to be confirmed) or
    ``("split", input)`` for the node ``(disjunct, lo, hi)``."""
    d, lo, hi = node
    n = len(lo)
    bounds = propagate(ctx.inet, box_scale(lo, hi))
    closes, worst = [], None  # worst: (slack, form) of the least-settled open disjunct
    for conj in ctx.unsafe:
        best = None
        candidates = [(("unsafe", k), a.y, a.x, a.rhs) for k, a in enumerate(conj)]
        candidates += [(("region", k), a.y, a.x, a.rhs) for k, a in ctx.extra[d]]  # a.y: zeros
        for ref, ay, ax, rhs in candidates:
            form = bounds.backward(ay, ax)
            m = bounds.form_min(form)
            if best is None or m - rhs > best[0]:
                best = (m - rhs, ref, m, form)
        if best is not None and best[0] > 0:
            closes.append({"atom": list(best[1]), "bound": format_rational(best[2])})
        elif best is not None and (worst is None or best[0] < worst[0]):
            worst = (best[0], best[3])
    if len(closes) == len(ctx.unsafe):
        phases = ["".join("a" if st == 1 else "i" if st == 0 else "u" for st in layer) for layer in bounds.states]
        relax = [[format_rational(a), format_rational(s), format_rational(t)] for _, _, a, s, t in bounds.relaxed]
        return ("closed", {"phases": phases, "relaxations": relax, "closes": closes}, len(bounds.relaxed))
    # open: a float attack, then a split
    flo, fhi = [_fl(v) for v in lo], [_fl(v) for v in hi]
    disjuncts = [list(c) + [([_fl(v) for v in a.x], [0.0] * ctx.inet.n_outputs, _fl(a.rhs))
                            for _, a in ctx.extra[d]] for c in ctx.float_unsafe]
    seed = zlib.crc32(repr((d, [str(v) for v in lo], [str(v) for v in hi])).encode())  # the same in every process
    x = propose(ctx.fnet, disjuncts, flo, fhi, seed=seed)
    from .attack import margin

    if margin(ctx.fnet, disjuncts, x) >= -1e-9:
        xq = tuple(min(max(Q(*_ratio(v)), a), b) for v, a, b in zip(x, lo, hi))
        return ("sat", xq, None)
    form = worst[1] if worst is not None else None
    widths = [b - a for a, b in zip(lo, hi)]
    if form is None:
        scores = widths
    else:
        scores = [abs(form[i]) * widths[i] for i in range(n)]
        if not any(scores):
            scores = widths
    i = max(range(n), key=lambda k: (scores[k], -k))
    return ("split", i, None)


def _ratio(v: float):
    return v.as_integer_ratio()


def _evaluate_chunk(ctx, chunk):
    """The results of a chunk ``(deadline, nodes)``; None for the nodes left when the
    deadline (wall-clock seconds since the epoch, or None) has passed."""
    deadline, nodes = chunk
    out = []
    for node in nodes:
        if deadline is not None and time.time() >= deadline:
            out.append(None)
        else:
            out.append(_evaluate(ctx, node))
    return out


def _confirm(net, prop, x):
    """The exact outputs at ``x`` when ``x`` is a counterexample (in the region and unsafe), else None."""
    if not prop.in_region(list(x)):
        return None
    y = tuple(net.evaluate_exact(list(x)))
    return y if prop.holds(list(x), list(y)) else None


def _volume(lo, hi, dims):
    v = Q(1)
    for i in dims:
        v *= hi[i] - lo[i]
    return v


# -- the search ------------------------------------------------------------------------------------
def decide(net, prop, *, timeout=None, executor=None, progress=None, batch: int = 32) -> Verdict:
    """Decide ``prop`` on ``net`` exactly (module docstring). ``timeout``: seconds (None: no
    limit); ``executor``: a ``concurrent.futures`` executor or None; ``progress``: called as
    ``progress(stats)`` after each round; ``batch``: nodes per round (the verdict depends on
    it, not on the executor)."""
    start = time.monotonic()
    budget = Budget(timeout)
    boxes = [region_box(conj, prop.n_inputs, f"input disjunct {d}") for d, conj in enumerate(prop.input_region)]
    ctx = _context(net, prop, boxes)
    roots, dims, total = {}, {}, Q(0)
    stack = []
    trees: dict = {}
    for d in reversed(range(len(boxes))):
        lo, hi, _ = boxes[d]
        empty = next((i for i in range(len(lo)) if lo[i] > hi[i]), None)
        roots[d] = (lo, hi, empty)
        if empty is not None:
            continue
        dims[d] = [i for i in range(len(lo)) if hi[i] > lo[i]]
        total += _volume(lo, hi, dims[d])
        stack.append((d, (), lo, hi))
    stats = {"nodes": 0, "leaves": 0, "rounds": 0, "max_depth": 0, "relaxed": 0, "attacks": 0}
    closed_volume = Q(0)
    closed_points = 0
    while stack:
        if budget.expired():
            return _unknown(stack, closed_volume, total, closed_points, stats, start)
        round_ = [stack.pop() for _ in range(min(batch, len(stack)))]
        items = [(d, lo, hi) for d, _, lo, hi in round_]
        left = budget.remaining()
        deadline = None if left is None else time.time() + left
        chunks = [(deadline, part) for part in chunked(items, executor)]
        results = [r for part in map_ordered(_evaluate_chunk, chunks, executor, shared=(ctx,)) for r in part]
        if any(r is None for r in results):  # the time limit came inside the round: its nodes stay open
            stack.extend(reversed(round_))
            return _unknown(stack, closed_volume, total, closed_points, stats, start)
        stats["rounds"] += 1
        children = []
        for (d, path, lo, hi), res in zip(round_, results):
            stats["nodes"] += 1
            stats["max_depth"] = max(stats["max_depth"], len(path))
            if res[0] == "closed":
                trees[(d, path)] = ("leaf", res[1])
                stats["leaves"] += 1
                stats["relaxed"] += res[2]
                if dims[d]:
                    closed_volume += _volume(lo, hi, dims[d])
                else:
                    closed_points += 1
            elif res[0] == "sat":
                stats["attacks"] += 1
                y = _confirm(net, prop, res[1])
                if y is not None:
                    stats["seconds"] = round(time.monotonic() - start, 3)
                    return Verdict("sat", tuple(res[1]), y, None, (), closed_volume / total if total else ZERO, stats)
                children.append((d, path, lo, hi, None))  # a false alarm of the floats: split
            else:
                children.append((d, path, lo, hi, res[1]))
        for d, path, lo, hi, i in reversed(children):
            if i is None:
                widths = [b - a for a, b in zip(lo, hi)]
                i = max(range(len(lo)), key=lambda k: (widths[k], -k))
            if not hi[i] > lo[i]:
                raise InputError("a node that is a single point stayed open (internal error)", path="engine")
            mid = (lo[i] + hi[i]) / 2
            trees[(d, path)] = ("split", i, mid)
            hi0 = tuple(mid if k == i else v for k, v in enumerate(hi))
            lo1 = tuple(mid if k == i else v for k, v in enumerate(lo))
            stack.append((d, path + (1,), lo1, hi))
            stack.append((d, path + (0,), lo, hi0))
        if progress is not None:
            progress(dict(stats, open=len(stack)))
    stats["seconds"] = round(time.monotonic() - start, 3)
    cert = _certificate(net, prop, roots, trees)
    return Verdict("unsat", None, None, cert, (), Q(1), stats)


def _unknown(stack, closed_volume, total, closed_points, stats, start) -> Verdict:
    stats["seconds"] = round(time.monotonic() - start, 3)
    open_leaves = tuple((d, lo, hi) for d, _, lo, hi in reversed(stack))
    covered = closed_volume / total if total else ZERO
    return Verdict("unknown", None, None, None, open_leaves, covered, stats)


# -- the certificate -------------------------------------------------------------------------------
def property_object(prop) -> dict:
    """The property as the certificate's claim records it (docs/format.md)."""
    def atom(a):
        return {"x": [format_rational(v) for v in a.x], "y": [format_rational(v) for v in a.y],
                "rhs": format_rational(a.rhs)}

    return {"inputs": prop.n_inputs, "outputs": prop.n_outputs,
            "input_region": [[atom(a) for a in conj] for conj in prop.input_region],
            "unsafe": [[atom(a) for a in conj] for conj in prop.unsafe]}


def _tree(trees, d):
    out, todo = [], [(d, ())]
    while todo:
        key = todo.pop()
        entry = trees[key]
        if entry[0] == "leaf":
            out.append({"leaf": entry[1]})
        else:
            out.append({"split": entry[1], "at": format_rational(entry[2])})
            todo.append((d, key[1] + (1,)))
            todo.append((d, key[1] + (0,)))
    return out


def _certificate(net, prop, roots, trees) -> dict:
    from ..certificates.core import PROVED, Step
    from ..fileformat import sha256_of
    from ..fileformat.models_io import write_relu

    obj = write_relu(net)
    steps = []
    for d in range(len(roots)):
        lo, hi, empty = roots[d]
        data = {"disjunct": d, "box": {"lower": [format_rational(v) for v in lo],
                                       "upper": [format_rational(v) for v in hi]}}
        data["tree"] = [{"empty": empty}] if empty is not None else _tree(trees, d)
        lemma = f"no input of input disjunct {d} meets the unsafe condition"
        steps.append(Step(lemma, "vnnlib-branch-and-bound", data, PROVED).to_json())
    sha = sha256_of(obj)
    claim = {"kind": CLAIM_KIND, "network_sha256": sha, "property_sha256": prop.sha256,
             "property_source": str(prop.source), "property": property_object(prop)}
    from ..checking import stated  # the statement the checker derives from the data

    return stated({"symrel": 1, "kind": "certificate", "claim": claim,
                   "inputs": {"network": {"object": obj, "sha256": sha}}, "steps": steps})
