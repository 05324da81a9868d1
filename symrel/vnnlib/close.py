"""The exact close of a node: its exact bounds, and the leaf facts when they close it.

Definition. A node (a box and fixed ReLU phases, :mod:`symrel.vnnlib.node`) is *closed* when,
for every unsafe disjunct, one of its candidate atoms ``y . Y + x . X <= rhs``
(:func:`symrel.vnnlib.problem.candidates`) has a certified lower bound of ``y . Y + x . X``
above ``rhs`` on the node: no input of the node meets that disjunct. :func:`exact_bounds`
propagates the symbolic intervals of :mod:`symrel.vnnlib.symbolic` through the net (integer
arithmetic); :func:`leaf_facts` tries, per unsafe disjunct, the float's proposal first (an
:class:`Attempt` with the splits' betas and the neurons' lower slopes) and then every
candidate plainly, and returns the leaf object of docs/format.md (``phases``,
``relaxations``, ``closes``), which :mod:`symrel.checking.vnnlib` re-checks. A leaf whose
numbers the trusted checker would refuse raises :class:`BeyondChecker` (the search stops at
that limit instead of writing a certificate the checker refuses).

Cost: one exact propagation (:func:`symbolic.propagate <symrel.vnnlib.symbolic.propagate>`),
then one backward substitution and one box minimisation per attempt tried.

>>> from symrel.exact import rational as q
>>> from symrel.models import DenseLayer, ReLUNet
>>> from symrel.vnnlib import LinearAtom, VnnProperty
>>> from symrel.vnnlib.problem import prepare, region_box
>>> net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
>>> box = ((LinearAtom((q(-1),), (q(0),), q(1)), LinearAtom((q(1),), (q(0),), q(1))),)  # -1 <= x <= 1
>>> neg = VnnProperty(1, 1, box, ((LinearAtom((q(0),), (q(1),), q("-1/100")),),), "0" * 64, "inline")
>>> boxes = [region_box(c, 1, "input disjunct 0") for c in neg.input_region]
>>> problem = prepare(net, neg, boxes)
>>> lo, hi, _ = boxes[0]
>>> facts = leaf_facts(problem, 0, lo, hi, exact_bounds(problem, lo, hi, {}))
>>> facts["phases"], facts["closes"][0]["atom"]         # |x| <= -1/100 closed by the atom itself
(['uu'], ['unsafe', 0])
"""

from __future__ import annotations

from typing import NamedTuple

from ..checking.vnnlib import MAX_RELAXATION_BITS, box_bits, leaf_bits
from ..errors import LimitError
from ..exact import Q, format_rational, rational
from ..exact.sizes import check_product_bits, number_bits
from .problem import Candidate, Problem, candidates
from .symbolic import SLOPE_BITS, box_scale, propagate

#: the denominator of the lower slopes a close may choose (the exact bounds' slope grid)
SLOPE_DENOMINATOR = 1 << SLOPE_BITS


class BeyondChecker(Exception):
    """A closed leaf whose facts the trusted checker would refuse (its argument: the name of
    the checker's limit); the search stops as unknown at that limit."""


class SplitBeta(NamedTuple):
    """The beta multiplier (an exact dyadic ``beta >= 0``) of the ReLU split ``(layer,
    neuron, phase)`` in a lower bound (beta-CROWN); it unpacks as the ``(k, i, phase,
    beta)`` that :meth:`symrel.vnnlib.symbolic.Bounds.backward` reads."""

    layer: int
    neuron: int
    phase: int
    beta: object


class Attempt(NamedTuple):
    """One way to close an unsafe disjunct: the lower bound of ``atom`` with the splits'
    ``betas`` (a tuple of :class:`SplitBeta`, or None: none) and the lower slopes ``alphas``
    (``{(relu layer, neuron): numerator over SLOPE_DENOMINATOR}``, or None: the rule's)."""

    atom: Candidate
    betas: tuple | None = None
    alphas: dict | None = None


def exact_bounds(problem: Problem, lo, hi, fixed, hints=None, tight=None):
    """The exact bounds (:class:`~symrel.vnnlib.symbolic.Bounds`) of the node ``[lo, hi]``
    with the phases ``fixed`` (``{(k, i): phase}``); ``hints``: the float bounds of the node,
    which save work, not change the result; ``tight``: the node's intermediate slopes and
    multipliers (:mod:`symrel.vnnlib.relu_branch`), else the problem's (docs/format.md, "tighten")."""
    return propagate(problem.int_net, box_scale(lo, hi), fixed=fixed, hints=hints,
                     tighten=tight if tight is not None else problem.tight)


def _close(bounds, attempt: Attempt) -> dict | None:
    """The certificate's close object of ``attempt`` when its exact lower bound is above the
    atom's right-hand side, else None."""
    atom, betas, alphas = attempt
    m = bounds.form_min(bounds.backward(atom.y, atom.x, betas or (), alphas))
    if not m > atom.rhs:
        return None
    done = {"atom": list(atom.ref), "bound": format_rational(m)}
    if betas:
        done["beta"] = [format_rational(b.beta) for b in betas]
    if alphas:  # one lower slope per unstable neuron, in the order of the relaxations
        done["alpha"] = [format_rational(Q(alphas.get((k, i), st[0]), SLOPE_DENOMINATOR))
                         for k, layer in enumerate(bounds.states)
                         for i, st in enumerate(layer) if isinstance(st, tuple)]
    return done


def leaf_facts(problem: Problem, d: int, lo, hi, bounds, plan=None) -> dict | None:
    """The leaf object of the node ``[lo, hi]`` of input disjunct ``d`` when its exact
    ``bounds`` close every unsafe disjunct, else None (module docstring). ``plan``: per unsafe
    disjunct the float's :class:`Attempt` (or None), tried before the plain candidates."""
    chosen = []
    for u, conj in enumerate(problem.unsafe):
        tries = [plan[u]] if plan is not None and plan[u] is not None else []
        tries += [Attempt(c) for c in candidates(problem, d, conj)]
        found = next(((a, done) for a in tries if (done := _close(bounds, a)) is not None), None)
        if found is None:
            return None
        chosen.append(found)
    closes = [done for _, done in chosen]
    used_betas = [b.beta for a, _ in chosen if a.betas for b in a.betas]
    numbers = [v for _, _, a, s, t in bounds.relaxed for v in (a, s, t)] + used_betas
    if any(max(int(v.numerator).bit_length(), int(v.denominator).bit_length()) > MAX_RELAXATION_BITS
           for v in numbers):  # the net's own numbers are that large: a smaller box does not help
        raise BeyondChecker("relaxation bits")
    _within_checker_sizes(problem, d, lo, hi, closes, bounds.states)
    phases = ["".join("a" if st == 1 else "i" if st == 0 else "u" for st in layer) for layer in bounds.states]
    relax = [[format_rational(a), format_rational(s), format_rational(t)] for _, _, a, s, t in bounds.relaxed]
    facts = {"phases": phases, "relaxations": relax, "closes": closes}
    if bounds.tightened:  # the slopes of the intermediate bounds tightened (docs/format.md, "tighten")
        facts["tighten"] = [_tighten_entry(*e) for e in sorted(bounds.tightened, key=lambda e: e[:2])]
    return facts


def _tighten_entry(k, i, lower, upper, lower_beta, upper_beta) -> dict:
    """A leaf's ``tighten`` entry: the sides' slopes (numerators over ``SLOPE_DENOMINATOR``) and
    multipliers, as docs/format.md writes them."""
    entry = {"relu": [k, i], "lower": [format_rational(Q(a, SLOPE_DENOMINATOR)) for a in lower],
             "upper": [format_rational(Q(a, SLOPE_DENOMINATOR)) for a in upper]}
    if lower_beta is not None:
        entry["lower_beta"] = [format_rational(b) for b in lower_beta]
        entry["upper_beta"] = [format_rational(b) for b in upper_beta]
    return entry


def _within_checker_sizes(problem: Problem, d, lo, hi, closes, states) -> None:
    """Raise :class:`BeyondChecker` when the trusted checker would refuse the leaf's numbers:
    its box beyond ``denominator bits``, or its bounds or a close's beyond ``product bits``
    (bounded as :func:`symrel.checking.vnnlib.leaf_bits` bounds them)."""
    try:
        bits = box_bits(lo, hi)
        check_product_bits(leaf_bits(problem.sizes, bits))
        relus = sum(1 for layer in problem.int_net.layers[:len(problem.sizes)] if layer.relu)
        for u, close in enumerate(closes):
            side, k = close["atom"]
            a = problem.unsafe[u][k] if side == "unsafe" else dict(problem.extra[d])[k]
            chosen = [rational(v) for v in close.get("beta", ())]
            chosen += [rational(v) for v in close["alpha"]] if "alpha" in close else \
                [st[0] for layer in states for st in layer if isinstance(st, tuple)]
            check_product_bits(leaf_bits(problem.sizes, bits, number_bits(list(a.x) + list(a.y) + [a.rhs])
                                         + relus * number_bits(chosen)))
    except LimitError as err:
        raise BeyondChecker(getattr(err, "limit", None) or "product bits") from None
