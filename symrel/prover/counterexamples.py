"""Counterexamples: an exact rational input of D where the two models differ.

Candidates come first from the failing bounds (the hints of the executions: ReLU
arguments whose sign is not fixed on D, terms of max nodes only model B has): for
each such form, follow its linear region towards the box vertex that maximises it
(the form is affine on the region of the current point; step to the vertex its
gradient points to, and to the midpoint, a few times), then the vertices of the box,
its centre and seeded random rational points. A candidate is reported only after plain
exact evaluation of both models (``model.evaluate``) shows different outputs.
Cost: O(candidates x evaluation).

>>> from symrel.models import CPWL1D, Box
>>> f, g = CPWL1D([0, 1], [0, 1]), CPWL1D([0, 1, 2], [0, 1, 1])
>>> D = Box([[0, 2]])
>>> [str(v) for v in find_counterexample(f, g, D, D.exact_bounds)[0]]
['2']
"""

from __future__ import annotations

import itertools
import random
from typing import Sequence

from ..exact import Q, Rational, rational_str
from .nodes import NormalForms

MAX_HINTS = 16
MAX_VERTICES = 64
RANDOM_POINTS = 48
MILP_SECONDS = 10.0
MILP_FIRST = 32         # nodes in the differences' closure up to which the MILP is tried first


def _ascent(registry, form, start, box, steps: int = 3) -> list[list[Rational]]:
    """Points following ``form`` upwards: vertex of its local gradient, and midpoints."""
    x, out = list(start), []
    for _ in range(steps):
        g, _ = registry.linearize(form, x)
        v = [hi if gi > 0 else lo if gi < 0 else xi for gi, xi, (lo, hi) in zip(g, x, box)]
        if v == x:
            break
        out.append(v)
        out.append([(a + b) / 2 for a, b in zip(x, v)])
        x = v
    return out


def hint_forms(registry, hints) -> list:
    """The forms to push upwards: failing ReLU arguments (both signs), then the pairwise
    differences of the terms of nodes that only model B produced."""
    forms = []
    for z in hints:
        forms += [z, -z]
    for node in registry.nodes:
        if node.terms and node.users == {"b"}:
            for s, t in itertools.permutations(node.terms, 2):
                forms.append(s - t)
    return forms[:MAX_HINTS]


def candidates(domain, box, registry=None, hints=(), seed: int = 0, extra_points=()) -> list[list[Rational]]:
    """Candidate points of D, most promising first, without repetitions (``extra_points``,
    e.g. the vertices of a polytope domain, come right after the centre)."""
    center = [(lo + hi) / 2 for lo, hi in box]
    pts: list[list[Rational]] = [center] + [list(p) for p in extra_points]
    if extra_points:
        pts.append([sum(c) / len(extra_points) for c in zip(*extra_points)])
    if registry is not None:
        for form in hint_forms(registry, hints):
            pts += _ascent(registry, form, center, box)
    verts = itertools.islice(itertools.product(*[sorted({lo, hi}) for lo, hi in box]), MAX_VERTICES)
    pts += [list(v) for v in verts]
    rng = random.Random(seed)
    for _ in range(RANDOM_POINTS):
        pts.append([lo + (hi - lo) * Q(rng.randint(0, 96), 96) for lo, hi in box])
    seen, out = set(), []
    for p in pts:
        key = tuple(p)
        if key not in seen and domain.contains(p):
            seen.add(key)
            out.append(p)
    return out


def first_difference(a, b, points: Sequence[Sequence[Rational]], budget=None):
    """The first point where ``a`` and ``b`` differ, with both outputs, or None."""
    for x in points:
        if budget is not None:
            budget.check()
        ya, yb = a.evaluate_exact(x), b.evaluate_exact(x)
        if ya != yb:
            return list(x), ya, yb
    return None


def find_counterexample(a, b, domain, box, hints=(), registry=None, executor=None, seed: int = 0, extra_points=(),
                        budget=None, forms=None, floats: bool = True, tried=None):
    """``(point, note)`` for a point of D where a and b differ (confirmed by exact
    evaluation), or None when no candidate shows a difference. ``budget``: a
    :class:`~symrel.budget.Budget` checked before every evaluation. ``forms``: the outputs
    of a and b as forms over ``registry`` (when the layer-by-layer execution got that far):
    the candidates are ranked and float proposals added (:mod:`symrel.prover.float_screen`), and
    all are screened on the forms, so only a point where they differ is evaluated on the models;
    when none differs, the float ascent and HiGHS's MILP propose more (:func:`_proposed`).
    With ``floats=False`` only the candidates themselves are screened, exactly, in their
    order (no float library is imported); ``tried``: a set of points (tuples) already
    screened, skipped, and added to as points are screened."""
    pts = candidates(domain, box, registry, hints, seed, extra_points)
    source = ""
    if forms is not None:
        diffs = [fa - fb for fa, fb in zip(*forms)]
        if floats:
            from .float_screen import ranked

            pts = [p for p in ranked(registry, diffs, pts, box, seed=seed) if domain.contains(p)]
        if tried is not None:
            pts = [p for p in pts if tuple(p) not in tried]
            tried.update(tuple(p) for p in pts)
        fa, fb = NormalForms(registry, forms[0]), NormalForms(registry, forms[1])
        found = _first_confirmed(a, b, fa, fb, pts, budget)
        if found is None and floats:
            found, source = _proposed(a, b, fa, fb, domain, box, registry, diffs, budget)
        if found is None:
            return None
    elif executor is None:
        found = first_difference(a, b, pts, budget)
    else:
        from ..parallel import chunked, map_ordered

        found = next((r for r in map_ordered(first_difference, chunked(pts, executor), executor, shared=(a, b))
                      if r is not None), None)
    if found is None:
        return None
    x, ya, yb = found
    fmt = lambda v: "(" + ", ".join(rational_str(q) for q in v) + ")"  # noqa: E731
    return x, f"{source}exact evaluation: A(x) = {fmt(ya)}, B(x) = {fmt(yb)}"


def _first_confirmed(a, b, fa, fb, points, budget):
    """The first point where the normal forms ``fa``, ``fb`` differ and the models too."""
    for x in points:
        if budget is not None:
            budget.check()
        if fa.evaluate_exact(x) != fb.evaluate_exact(x):
            found = first_difference(a, b, [x], budget)
            if found is not None:
                return found
    return None


def milp_seconds(budget) -> float:
    """The time HiGHS's MILP may take: :data:`MILP_SECONDS`, and at most a quarter of what
    is left of the budget."""
    left = None if budget is None else budget.remaining()
    return MILP_SECONDS if left is None else min(MILP_SECONDS, left / 4)


def _proposed(a, b, fa, fb, domain, box, registry, diffs, budget):
    """Float-guided proposals, each confirmed exactly: the projected ascent
    (:mod:`symrel.prover.float_ascent`), then HiGHS's MILP (:mod:`symrel.prover.milp_proposal`),
    each proposal also moved to where the difference is largest on its linear region
    (:mod:`symrel.prover.region_of_point`). ``((x, A(x), B(x)), source)`` or ``(None, "")``."""
    from .float_ascent import ascent_proposals
    from .milp_proposal import milp_proposals
    from .region_of_point import largest_differences

    from .normal_form_decision import dependency_closure

    ascent = ("the float ascent", lambda: [(p, None) for p in ascent_proposals(registry, diffs, box, budget=budget)])
    milp = ("HiGHS's MILP", lambda: milp_proposals(registry, diffs, box, milp_seconds(budget), budget))
    # a small MILP is solved in a moment, and lands on slivers; a large one stalls where the ascent does not
    small = len(dependency_closure(registry, diffs)) <= MILP_FIRST
    for name, propose in (milp, ascent) if small else (ascent, milp):
        if budget is not None:
            budget.at(lemma=f"a counterexample proposed by {name}")
        for p, active in propose():
            found = _first_confirmed(a, b, fa, fb, [p], budget) if domain.contains(p) else None
            for choice in ([active] if active is not None else []) + [None]:   # the MILP's terms, then p's
                if found is None:
                    found = _first_confirmed(a, b, fa, fb, largest_differences(registry, diffs, domain, p, choice, budget),
                                             budget)
            if found is not None:
                return found, f"proposed by {name}; "
    return None, ""
