"""Preorders on finite sets, stored as networkx digraphs (docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b).

A relation on a finite set X is a :class:`networkx.DiGraph` with node set X and
an edge ``x -> y`` for every pair ``x <= y``. It is a *preorder* when it is
reflexive (a self-loop at every node) and transitive, and *complete* when any
two elements are comparable. :class:`Preorder` holds such a relation; the
axioms are checked, never assumed, and every failed check names a witness.

The structure of a preorder comes from networkx's own algorithms: the
indifference classes are the strongly connected components, the order between
classes is the condensation (a DAG), and the Hasse diagram is the transitive
reduction of the condensation.

>>> P = Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("b", "c"), ("a", "c")])
>>> P.is_transitive(), P.is_complete()
(True, True)
>>> P.indifference_classes()
[['a'], ['b'], ['c']]
>>> Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("b", "c")]).transitivity_witness()
('a', 'b', 'c')
"""

from __future__ import annotations

from functools import cached_property
from typing import Callable, Hashable, Iterable, Sequence

import networkx as nx

from ..errors import InputError, SymrelError
from ..exact import rational


class NotAPreorderError(InputError):
    """The relation is not a preorder. ``witness`` is a triple ``(x, y, z)`` with
    ``x <= y`` and ``y <= z`` but not ``x <= z`` (not transitive), or a 1-tuple
    ``(x,)`` with ``x <= x`` missing (not reflexive)."""

    def __init__(self, witness: tuple, path: str | None = "leq", file: str | None = None):
        self.witness = tuple(witness)
        if len(self.witness) == 3:
            x, y, z = self.witness
            message = f"not transitive: {x!r} <= {y!r} and {y!r} <= {z!r} but not {x!r} <= {z!r}"
        else:
            message = f"not reflexive: {self.witness[0]!r} <= {self.witness[0]!r} is missing"
        super().__init__(message, path=path, file=file)


class IncompletePreorderError(SymrelError):
    """The preorder is not complete, so no utility represents it (Debreu needs
    completeness). ``pair`` names two incomparable elements, ``query`` the query
    whose preorder it is (in a retrieval task)."""

    def __init__(self, pair: tuple, query: str | None = None):
        self.pair = tuple(pair)
        self.query = query
        x, y = self.pair
        at = f"query {query!r}: " if query is not None else ""
        super().__init__(
            f"{at}the preorder is not complete: {x!r} and {y!r} are incomparable, so no utility u with "
            "x <= y iff u(x) <= u(y) exists; use richter_peleg_utility (x < y implies u(x) < u(y)) "
            "or multi_utility (one utility per linear extension) instead"
        )


class Preorder:
    """A binary relation on a finite set, meant to be a preorder.

    ``graph`` is a :class:`networkx.DiGraph` whose edge ``x -> y`` means
    ``x <= y``; reflexive pairs are self-loops. Treat the graph as frozen: the
    condensation is computed once and cached. Build one with
    :meth:`from_pairs`, :meth:`from_ranking`, :meth:`from_utility` or
    :meth:`from_comparison`.

    >>> P = Preorder.from_ranking([["gold"], ["silver", "bronze"]])
    >>> P.leq("bronze", "gold"), P.leq("gold", "bronze"), P.leq("silver", "bronze")
    (True, False, True)
    """

    def __init__(self, graph: nx.DiGraph):
        if not isinstance(graph, nx.DiGraph) or graph.is_multigraph():
            raise InputError("expected a networkx DiGraph", path="graph")
        self.graph = graph
        #: pairs added by a transitive closure when the file said ``"close": true``
        self.added_by_closure: int | None = None

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_pairs(
        cls,
        elements: Sequence[Hashable],
        pairs: Iterable[Sequence[Hashable]],
        *,
        reflexive: bool = True,
        path: str = "leq",
        elements_path: str = "elements",
    ) -> "Preorder":
        """The relation on ``elements`` with ``x <= y`` for each pair ``(x, y)``,
        plus ``x <= x`` for every x when ``reflexive`` (docs/format.md: reflexive pairs
        are implied). Transitivity is *not* added: see :meth:`closure`.

        An unknown element is an :class:`~symrel.errors.InputError` naming its
        path. Cost O(n + m) for n elements and m pairs.

        >>> Preorder.from_pairs(["a", "b"], [("a", "b"), ("b", "z")])
        Traceback (most recent call last):
        ...
        symrel.errors.InputError: leq[1][1]: unknown element 'z'; expected one of the 2 elements
        """
        G = nx.DiGraph()
        for i, x in enumerate(elements):
            try:
                if x in G:
                    raise InputError(f"duplicate element {x!r}", path=f"{elements_path}[{i}]")
            except TypeError:
                raise InputError(f"expected a hashable element name, got {type(x).__name__}", path=f"{elements_path}[{i}]") from None
            G.add_node(x)
        edges = []
        for i, pair in enumerate(pairs):
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise InputError("expected a pair [x, y] meaning x <= y", path=f"{path}[{i}]")
            for j, v in enumerate(pair):
                try:
                    known = v in G
                except TypeError:
                    known = False
                if not known:
                    raise InputError(f"unknown element {v!r}; expected one of the {len(G)} elements", path=f"{path}[{i}][{j}]")
            edges.append((pair[0], pair[1]))
        if reflexive:
            G.add_edges_from((x, x) for x in list(G))
        G.add_edges_from(edges)
        return cls(G)

    @classmethod
    def from_utility(cls, table: dict, *, path: str = "utility") -> "Preorder":
        """The complete preorder ``x <= y iff u(x) <= u(y)`` of a utility table
        ``{element: number}`` (exact rationals). Cost O(n^2) (every pair is an edge
        or its reverse is).

        >>> Preorder.from_utility({"a": 2, "b": "1/2", "c": 2}).indifference_classes()
        [['b'], ['a', 'c']]
        """
        u = {x: rational(v, path=f"{path}.{x}") for x, v in table.items()}
        order = sorted(u, key=u.__getitem__)
        G = nx.DiGraph()
        G.add_nodes_from(table)
        # walk down from the top: everything at or above u(x) is a suffix of ``order``
        start = len(order)
        for i in range(len(order) - 1, -1, -1):
            x = order[i]
            while start > 0 and u[order[start - 1]] >= u[x]:
                start -= 1
            G.add_edges_from((x, y) for y in order[start:])
        return cls(G)

    @classmethod
    def from_ranking(cls, tiers: Sequence) -> "Preorder":
        """The complete preorder of a ranking with ties, best tier first: each tier
        is an element or a list of tied elements. Cost O(n^2).

        >>> P = Preorder.from_ranking(["a", ["b", "c"], "d"])
        >>> P.greatest_elements(), P.indifference_classes()[1]
        (['a'], ['b', 'c'])
        """
        table = {}
        for i, tier in enumerate(tiers):
            members = tier if isinstance(tier, (list, tuple, set, frozenset)) else [tier]
            for x in members:
                if x in table:
                    raise InputError(f"element {x!r} appears twice in the ranking", path=f"tiers[{i}]")
                table[x] = len(tiers) - 1 - i
        return cls.from_utility(table)

    @classmethod
    def from_comparison(cls, elements: Sequence[Hashable], leq: Callable[[Hashable, Hashable], bool]) -> "Preorder":
        """The relation ``{(x, y) : leq(x, y)}`` on a finite set, asking ``leq`` about
        every ordered pair (n^2 calls; reflexivity is whatever ``leq`` says).

        >>> P = Preorder.from_comparison([3, 1, 2], lambda x, y: x % 2 <= y % 2)
        >>> P.indifference_classes()
        [[2], [3, 1]]
        """
        G = nx.DiGraph()
        G.add_nodes_from(elements)
        G.add_edges_from((x, y) for x in elements for y in elements if leq(x, y))
        return cls(G)

    # -- basic access -----------------------------------------------------------------------
    @property
    def elements(self) -> list:
        """The elements, in the order they were given."""
        return list(self.graph)

    def __len__(self) -> int:
        return self.graph.number_of_nodes()

    def __contains__(self, x) -> bool:
        return x in self.graph

    def leq(self, x, y) -> bool:
        """Whether ``x <= y``."""
        return self.graph.has_edge(x, y)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, Preorder)
            and set(self.graph) == set(other.graph)
            and set(self.graph.edges) == set(other.graph.edges)
        )

    def __repr__(self) -> str:
        return f"Preorder({len(self)} elements, {self.graph.number_of_edges()} pairs)"

    @cached_property
    def _index(self) -> dict:
        return {x: i for i, x in enumerate(self.graph)}

    @cached_property
    def condensation(self) -> nx.DiGraph:
        """networkx's condensation: one node per strongly connected component
        (attribute ``members``), ``graph["mapping"]`` sends an element to its
        component. Cost O(n + m)."""
        return nx.condensation(self.graph)

    # -- the axioms -------------------------------------------------------------------------
    def reflexivity_witness(self):
        """An element x with ``x <= x`` missing, or None. Cost O(n).

        >>> Preorder.from_pairs(["a", "b"], [("a", "a")], reflexive=False).reflexivity_witness()
        'b'
        """
        return next((x for x in self.graph if not self.graph.has_edge(x, x)), None)

    def is_reflexive(self) -> bool:
        """Whether ``x <= x`` for every x."""
        return self.reflexivity_witness() is None

    def transitivity_witness(self):
        """A triple ``(x, y, z)`` with ``x <= y``, ``y <= z`` and not ``x <= z``; None
        when the relation is transitive.

        The relation is transitive iff (a) every strongly connected component
        with two or more elements is a clique (self-loops included), (b) an
        element related to one member of a component is related to all of it,
        and (c) the condensation is transitively closed. (a) and (b) are one
        count per element: its successors lie in its own component or in the
        components its component points to, so it has all of them iff their
        number is right. (c) is free when the condensation is a tournament (an
        acyclic tournament is transitive; this is the complete case) and
        otherwise compared with networkx's ``transitive_closure_dag``. A pair
        ``x -> z`` that is reachable but missing gives the triple along a
        shortest path. Cost O(n + m) for complete relations, O(k m_C) on the k
        components otherwise.

        >>> Preorder.from_pairs([1, 2, 3], [(1, 2), (2, 1), (2, 3)]).transitivity_witness()
        (1, 2, 3)
        """
        G, C = self.graph, self.condensation
        mapping = C.graph["mapping"]
        size = {A: len(C.nodes[A]["members"]) for A in C}
        out_size = {A: sum(size[B] for B in C.succ[A]) for A in C}
        for x in G:
            A = mapping[x]
            own = size[A] if size[A] >= 2 else int(G.has_edge(x, x))
            if len(G.succ[x]) != own + out_size[A]:
                targets = (C.nodes[A]["members"] if size[A] >= 2 else ()), *(C.nodes[B]["members"] for B in C.succ[A])
                z = next(z for group in targets for z in group if not G.has_edge(x, z))
                return self._witness_along_path(x, z)
        k = C.number_of_nodes()
        if C.number_of_edges() == k * (k - 1) // 2:
            return None
        closed = nx.transitive_closure_dag(C)
        if closed.number_of_edges() == C.number_of_edges():
            return None
        A, B = next((A, B) for A, B in closed.edges if not C.has_edge(A, B))
        return self._witness_along_path(next(iter(C.nodes[A]["members"])), next(iter(C.nodes[B]["members"])))

    def _witness_along_path(self, x, z) -> tuple:
        """``z`` is reachable from ``x`` but ``x <= z`` is missing: walk a shortest
        path ``x = p0 -> p1 -> ... -> z``; the first ``p_i`` with ``x <= p_i`` missing
        gives the triple ``(x, p_(i-1), p_i)``."""
        G = self.graph
        if x == z:  # x lies on a cycle but x <= x is missing: go round the cycle
            mapping = self.condensation.graph["mapping"]
            w = next(w for w in G.succ[x] if w != x and mapping[w] == mapping[x])
            path = [x] + nx.shortest_path(G, w, x)
        else:
            path = nx.shortest_path(G, x, z)
        for i in range(2, len(path)):
            if not G.has_edge(x, path[i]):
                return (x, path[i - 1], path[i])
        raise AssertionError("no missing pair along the path")  # pragma: no cover

    def is_transitive(self) -> bool:
        """Whether ``x <= y`` and ``y <= z`` imply ``x <= z`` (see :meth:`transitivity_witness`)."""
        return self.transitivity_witness() is None

    def is_preorder(self) -> bool:
        """Reflexive and transitive."""
        return self.is_reflexive() and self.is_transitive()

    def check_preorder(self, path: str | None = "leq") -> None:
        """Raise :class:`NotAPreorderError` with a witness unless this is a preorder."""
        x = self.reflexivity_witness()
        if x is not None:
            raise NotAPreorderError((x,), path=path)
        triple = self.transitivity_witness()
        if triple is not None:
            raise NotAPreorderError(triple, path=path)

    def closure(self) -> "Preorder":
        """The reflexive-transitive closure: the smallest preorder containing the
        relation. The condensation is closed with networkx's
        ``transitive_closure_dag`` and expanded back to elements; the number of
        pairs added is kept in ``added_by_closure``. Cost O(k m_C + size of the
        result) for k components.

        >>> P = Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("b", "c")]).closure()
        >>> P.leq("a", "c"), P.added_by_closure
        (True, 1)
        """
        C = self.condensation
        closed = nx.transitive_closure_dag(C)
        G = nx.DiGraph()
        G.add_nodes_from(self.graph)
        for A in C:
            below = C.nodes[A]["members"]
            above = [y for B in (A, *closed.succ[A]) for y in C.nodes[B]["members"]]
            G.add_edges_from((x, y) for x in below for y in above)
        result = Preorder(G)
        result.added_by_closure = G.number_of_edges() - self.graph.number_of_edges()
        return result

    def incomparable_pair(self):
        """Two elements ``(x, y)`` with neither ``x <= y`` nor ``y <= x`` (x = y when
        ``x <= x`` is missing), or None when the relation is complete. For each x,
        the elements comparable with x are its successors and predecessors.
        Cost O(n + m).

        >>> Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("a", "c")]).incomparable_pair()
        ('b', 'c')
        """
        G = self.graph
        n = len(G)
        for x in G:
            comparable = G.succ[x].keys() | G.pred[x].keys()
            if len(comparable) != n:
                return x, next(y for y in G if y not in comparable)
        return None

    def is_complete(self) -> bool:
        """Whether every two elements are comparable (see :meth:`incomparable_pair`)."""
        return self.incomparable_pair() is None

    # -- structure --------------------------------------------------------------------------
    def indifference_classes(self) -> list[list]:
        """The indifference classes (strongly connected components; for a
        preorder, ``x ~ y`` iff ``x <= y`` and ``y <= x``), lowest first in a
        topological order of the condensation, each in element order. Cost O(n + m).

        >>> Preorder.from_utility({"a": 1, "b": 0, "c": 1}).indifference_classes()
        [['b'], ['a', 'c']]
        """
        C = self.condensation
        index = self._index
        return [sorted(C.nodes[A]["members"], key=index.__getitem__) for A in nx.topological_sort(C)]

    def strict_part(self) -> nx.DiGraph:
        """The strict part ``x < y`` (``x <= y`` and not ``y <= x``) as a DiGraph on
        the same elements. Cost O(n + m).

        >>> sorted(Preorder.from_utility({"a": 0, "b": 1, "c": 1}).strict_part().edges)
        [('a', 'b'), ('a', 'c')]
        """
        G = self.graph
        S = nx.DiGraph()
        S.add_nodes_from(G)
        S.add_edges_from((x, y) for x, y in G.edges if not G.has_edge(y, x))
        return S

    def hasse_diagram(self) -> nx.DiGraph:
        """The Hasse diagram: networkx's transitive reduction of the condensation.
        Nodes are component numbers with attribute ``members`` (a list of elements
        in element order); an edge ``A -> B`` means every member of A is strictly
        below every member of B with nothing in between. Cost O(k m_C).

        >>> H = Preorder.from_ranking(["top", ["x", "y"], "bottom"]).hasse_diagram()
        >>> [H.nodes[A]["members"] for A in nx.topological_sort(H)]
        [['bottom'], ['x', 'y'], ['top']]
        >>> H.number_of_edges()
        2
        """
        C = self.condensation
        H = nx.transitive_reduction(C)
        index = self._index
        for A in H:
            H.nodes[A]["members"] = sorted(C.nodes[A]["members"], key=index.__getitem__)
        return H

    def maximal_elements(self, subset: Iterable | None = None) -> list:
        """The maximal elements of ``subset`` (default: all elements): the x with
        ``x <= y`` implying ``y <= x`` for every y of the subset. Cost O(n + m) for
        all elements, O(s^2) for a subset of size s.

        >>> P = Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("a", "c")])
        >>> P.maximal_elements(), P.maximal_elements(["a", "b"])
        (['b', 'c'], ['b'])
        """
        G = self.graph
        if subset is None:
            return [x for x in G if G.succ[x].keys() <= G.pred[x].keys()]
        S = list(subset)
        return [x for x in S if all(G.has_edge(y, x) for y in S if G.has_edge(x, y))]

    def greatest_elements(self, subset: Iterable | None = None) -> list:
        """The greatest elements of ``subset`` (default: all elements): the x with
        ``y <= x`` for every y of the subset. Cost O(n) for all elements.

        >>> Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("a", "c")]).greatest_elements()
        []
        """
        G = self.graph
        if subset is None:
            n = len(G)
            return [x for x in G if len(G.pred[x]) == n]
        S = list(subset)
        return [x for x in S if all(G.has_edge(y, x) for y in S)]
