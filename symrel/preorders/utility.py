"""Utilities of preorders on finite sets (docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b), each with a proof.

* :func:`debreu_utility`: a complete preorder has a utility ``u`` with
  ``x <= y iff u(x) <= u(y)``: the rank of x's indifference class in the chain
  that the condensation of a complete preorder is, so consecutive classes
  differ by exactly 1 (Debreu's theorem, finite case).
* An incomplete preorder has no such utility; :func:`debreu_utility` refuses it
  naming an incomparable pair, and two weaker representations are offered:
  :func:`richter_peleg_utility` (``x < y`` implies ``u(x) < u(y)``, ``x ~ y``
  implies ``u(x) = u(y)``) and :func:`multi_utility` (utilities u_1..u_K with
  ``x <= y iff u_k(x) <= u_k(y) for all k``, one per linear extension).

Each returns a :class:`UtilityRepresentation` whose proof checks its defining
property on every pair, exactly; :mod:`symrel.checking.preorders` re-checks the
certificates independently.

>>> from symrel.preorders import Preorder
>>> rep = debreu_utility(Preorder.from_ranking(["a", ["b", "c"]]))
>>> {x: str(v) for x, v in rep.utility.items()}, rep.proof.result
({'a': '1', 'b': '0', 'c': '0'}, 'proved')
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from ..exact import Public, Q, format_rational
from ..certificates import PROVED, REFUTED, Proof, Step
from .preorder import IncompletePreorderError, Preorder


@dataclass
class UtilityRepresentation:
    """Utilities representing a preorder, and the proof that they do.

    ``kind`` is ``"utility"`` (Debreu), ``"richter-peleg-utility"`` or
    ``"multi-utility"``; ``utilities`` is a list of ``{element: rational}``
    tables (one for the first two kinds), whose values read as sympy Rationals."""

    kind: str
    utilities: list[dict] = Public()
    proof: Proof

    @property
    def utility(self) -> dict:
        """The single utility table (the first one of a multi-utility family)."""
        return self.utilities[0]


def format_utility(u: dict) -> dict:
    """``{element: canonical rational}`` (ints, or ``"p/q"`` strings)."""
    return {x: format_rational(v) for x, v in u.items()}


# -- verification on every pair ------------------------------------------------------------
def representation_mismatch(preorder: Preorder, utilities: list[dict]):
    """The first ordered pair ``(x, y)`` where ``x <= y`` disagrees with
    ``u_k(x) <= u_k(y) for all k``, or None: the multi-utility iff (the Debreu iff
    for one utility), checked on all n^2 pairs: for one utility, by comparing the
    successors of each x with the up-set of its level as sets. Cost O(n^2 K).

    >>> P = Preorder.from_ranking(["b", "a"])
    >>> representation_mismatch(P, [{"a": Q(0), "b": Q(1)}]) is None
    True
    >>> representation_mismatch(P, [{"a": Q(1), "b": Q(1)}])
    ('b', 'a')
    """
    G = preorder.graph
    elements = list(G)
    if len(utilities) == 1:
        # all pairs at once: the up-set {y : u(x) <= u(y)} of each utility level,
        # compared as a set with the successors of every x at that level
        (u,) = utilities
        at_level: dict = {}
        for y in elements:
            at_level.setdefault(u[y], []).append(y)
        up_sets, members = {}, set()
        for level in sorted(at_level, reverse=True):
            members.update(at_level[level])
            up_sets[level] = frozenset(members)
        for x in elements:
            succ = G.succ[x].keys()
            if succ != up_sets[u[x]]:
                return x, next(iter(succ ^ up_sets[u[x]]))
        return None
    for x in elements:
        succ = G.succ[x]
        for y in elements:
            if (y in succ) != all(u[x] <= u[y] for u in utilities):
                return x, y
    return None


def richter_peleg_mismatch(preorder: Preorder, u: dict):
    """The first related pair ``(x, y)``, ``x <= y``, where ``u`` fails to be a
    Richter-Peleg utility (``x < y`` needs ``u(x) < u(y)``, ``x ~ y`` needs
    ``u(x) = u(y)``), or None. Only related pairs constrain u. Cost O(n + m)."""
    G = preorder.graph
    for x, y in G.edges:
        if G.has_edge(y, x):
            if u[x] != u[y]:
                return x, y
        elif not u[x] < u[y]:
            return x, y
    return None


# -- the three constructions -----------------------------------------------------------------
def debreu_utility(preorder: Preorder) -> UtilityRepresentation:
    """The utility of a complete preorder on a finite set: ``u(x)`` is the rank
    of x's indifference class in the chain formed by the condensation (networkx
    ``condensation`` and ``topological_sort``), so ``x <= y iff u(x) <= u(y)`` and
    consecutive classes differ by exactly 1. The proof checks the iff on all n^2
    pairs.

    Raises :class:`NotAPreorderError` (with a witness triple) when the relation
    is not a preorder and :class:`IncompletePreorderError` (with an incomparable
    pair and the alternatives) when it is not complete. Cost O(n^2).

    >>> rep = debreu_utility(Preorder.from_utility({"x": "-7/2", "y": 5, "z": 0}))
    >>> [str(rep.utility[e]) for e in "xyz"]
    ['0', '2', '1']
    >>> debreu_utility(Preorder.from_pairs(["a", "b"], []))
    Traceback (most recent call last):
    ...
    symrel.preorders.preorder.IncompletePreorderError: the preorder is not complete: 'a' and 'b' are incomparable, so no utility u with x <= y iff u(x) <= u(y) exists; use richter_peleg_utility (x < y implies u(x) < u(y)) or multi_utility (one utility per linear extension) instead
    """
    preorder.check_preorder()
    pair = preorder.incomparable_pair()
    if pair is not None:
        raise IncompletePreorderError(pair)
    C = preorder.condensation
    u = {}
    for rank, A in enumerate(nx.topological_sort(C)):
        value = Q(rank)
        for x in C.nodes[A]["members"]:
            u[x] = value
    u = {x: u[x] for x in preorder.graph}
    n, k = len(preorder), C.number_of_nodes()
    proof = Proof(
        claim="for all x, y in X: x <= y iff u(x) <= u(y)",
        construction="Debreu utility of a complete preorder: rank of the indifference class in the chain of the condensation",
        claim_data={"kind": "utility", "utility": format_utility(u)},
        inputs={"preorder": preorder},
    )
    proof.add(
        Step(
            f"the relation is a complete preorder with {k} indifference classes",
            "complete-preorder",
            {"elements": n, "classes": k},
            PROVED,
            note="reflexive, transitive (component count and closure of the condensation), every pair comparable",
        )
    )
    _add_pairwise_step(proof, preorder, [u], "x <= y iff u(x) <= u(y)", "utility-pairwise")
    levels = sorted(set(u.values()))
    gaps_ok = all(b - a == 1 for a, b in zip(levels, levels[1:]))
    proof.add(
        Step(
            "consecutive indifference classes differ in utility by exactly 1",
            "utility-gap",
            {"gap": 1, "levels": len(levels)},
            PROVED if gaps_ok else REFUTED,
        )
    )
    return UtilityRepresentation("utility", [u], proof)


def richter_peleg_utility(preorder: Preorder) -> UtilityRepresentation:
    """A Richter-Peleg utility of any preorder: ``u(x)`` is the length of the
    longest strict chain below x, i.e. the index of x's class among networkx's
    ``topological_generations`` of the condensation. Then ``x < y`` implies
    ``u(x) < u(y)`` and ``x ~ y`` implies ``u(x) = u(y)``; the converse fails
    exactly on incomparable pairs. The proof checks every related pair. Cost
    O(n + m).

    >>> P = Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("a", "c")])
    >>> rep = richter_peleg_utility(P)
    >>> [str(rep.utility[x]) for x in "abc"], rep.proof.result
    (['0', '1', '1'], 'proved')
    """
    preorder.check_preorder()
    C = preorder.condensation
    u = {}
    for level, generation in enumerate(nx.topological_generations(C)):
        for A in generation:
            for x in C.nodes[A]["members"]:
                u[x] = Q(level)
    u = {x: u[x] for x in preorder.graph}
    proof = Proof(
        claim="for all x, y in X: x < y implies u(x) < u(y), and x ~ y implies u(x) = u(y); "
        "u(y) is the length of the longest strict chain below y",
        construction="Richter-Peleg utility: length of the longest strict chain below (topological generations of the condensation)",
        claim_data={"kind": "richter-peleg-utility", "utility": format_utility(u)},
        inputs={"preorder": preorder},
    )
    bad = richter_peleg_mismatch(preorder, u)
    proof.add(
        Step(
            "x < y implies u(x) < u(y) and x ~ y implies u(x) = u(y), on every related pair",
            "richter-peleg-pairwise",
            {"related_pairs": preorder.graph.number_of_edges()},
            PROVED if bad is None else REFUTED,
            note="" if bad is None else f"fails at {bad[0]!r} <= {bad[1]!r}",
        )
    )
    off = chain_level_mismatch(preorder, u)
    proof.add(
        Step(
            "u(y) = 1 + max{u(x) : x < y}, and 0 when nothing is strictly below y: u is the length of the longest strict chain below",
            "chain-level",
            {"elements": len(preorder)},
            PROVED if off is None else REFUTED,
            note="" if off is None else f"fails at {off!r}",
        )
    )
    return UtilityRepresentation("richter-peleg-utility", [u], proof)


def chain_level_mismatch(preorder: Preorder, u: dict):
    """The first y with ``u(y) != 1 + max{u(x) : x < y}`` (0 when nothing is strictly
    below y), or None. This recursion pins u down to the longest-chain level, so
    every value of the utility is determined. Cost O(n + m)."""
    G = preorder.graph
    for y in G:
        below = [u[x] + 1 for x in G.pred[y] if not G.has_edge(y, x)]
        if u[y] != max(below, default=Q(0)):
            return y
    return None


def realiser(preorder: Preorder) -> list[list[int]]:
    """A small set of linear extensions of the order on indifference classes
    whose intersection is that order (a realiser), as lists of condensation
    nodes, lowest first.

    Candidates, all from networkx's ``lexicographical_topological_sort``: a first
    extension; the extension that reverses it wherever the order allows
    (preferring classes late in the first), which alone suffices for orders of
    dimension 2 such as antichains; then, for each class A, the extension that
    puts A as high as possible, which places every class incomparable with A
    below A, so these separate every incomparable pair both ways. A candidate is
    kept only if it separates a pair not yet separated. Cost O(k^3) for k
    classes.

    >>> P = Preorder.from_pairs(["a", "b", "c", "d"], [])
    >>> len(realiser(P))
    2
    """
    C = preorder.condensation
    closed = C if preorder.is_transitive() else nx.transitive_closure_dag(C)
    needed = {(A, B) for A in C for B in C if A != B and not closed.has_edge(A, B) and not closed.has_edge(B, A)}
    first = list(nx.lexicographical_topological_sort(C))
    position = {A: i for i, A in enumerate(first)}
    candidates = [
        lambda: first,
        lambda: list(nx.lexicographical_topological_sort(C, key=lambda B: -position[B])),
        *(lambda A=A: list(nx.lexicographical_topological_sort(C, key=lambda B: (B == A, B))) for A in sorted(C)),
    ]
    chosen = []
    for make in candidates:
        order = make()
        place = {B: i for i, B in enumerate(order)}
        separated = {(B, D) for (B, D) in needed if place[B] < place[D]}
        if separated or not chosen:
            chosen.append(order)
            needed -= separated
        if not needed:
            break
    return chosen


def multi_utility(preorder: Preorder) -> UtilityRepresentation:
    """A multi-utility family of a preorder: one utility per linear extension of
    a :func:`realiser` (u_k(x) = position of x's class in extension k), so that
    ``x <= y iff u_k(x) <= u_k(y) for all k``; for a complete preorder the family
    is the single Debreu-style utility. The proof checks the iff on all n^2
    pairs. Cost O(n^2 K + k^3).

    >>> P = Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("a", "c")])
    >>> rep = multi_utility(P)
    >>> [[str(u[x]) for x in "abc"] for u in rep.utilities], rep.proof.result
    ([['0', '1', '2'], ['0', '2', '1']], 'proved')
    """
    preorder.check_preorder()
    C = preorder.condensation
    family = []
    for order in realiser(preorder):
        position = {A: Q(i) for i, A in enumerate(order)}
        family.append({x: position[C.graph["mapping"][x]] for x in preorder.graph})
    proof = Proof(
        claim="for all x, y in X: x <= y iff u_k(x) <= u_k(y) for every utility u_k of the family; "
        "each u_k is the position 0, 1, .. of the indifference class in a linear extension",
        construction=f"multi-utility family: {len(family)} linear extension(s) of the order on indifference classes",
        claim_data={"kind": "multi-utility", "utilities": [format_utility(u) for u in family]},
        inputs={"preorder": preorder},
    )
    _add_pairwise_step(proof, preorder, family, "x <= y iff u_k(x) <= u_k(y) for all k", "multi-utility-pairwise")
    return UtilityRepresentation("multi-utility", family, proof)


def _add_pairwise_step(proof: Proof, preorder: Preorder, utilities: list[dict], what: str, rule: str) -> None:
    n = len(preorder)
    bad = representation_mismatch(preorder, utilities)
    if bad is None:
        proof.add(Step(f"{what}, checked on all {n * n} ordered pairs", rule, {"pairs": n * n}, PROVED))
    else:
        x, y = bad
        proof.add(Step(f"{what}, checked on all {n * n} ordered pairs", rule, {"pairs": n * n}, REFUTED, note=f"fails at ({x!r}, {y!r})"))

