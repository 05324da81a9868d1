"""Retrieval tasks: one preorder per query over a shared set of keys (docs/format.md, retrieval).

A task has keys ``y_1..y_n`` and queries ``x_1..x_m``, each a named rational
feature vector, and for every query x a preorder ``<=_x`` on the key names. The
utility matrix ``U[i][j] = u_(x_i)(y_j)`` holds the Debreu utility of each
query's preorder (docs/theory.md#preorders-debreu-utilities-and-retrieval-paper-b).

>>> from symrel.preorders import Preorder
>>> task = RetrievalTask({"k1": [0], "k2": [1]}, {"q": [5]},
...                      {"q": Preorder.from_ranking(["k2", "k1"])})
>>> task.utility_matrix(), task.keys["k2"]
([[0, 1]], [1])
"""

from __future__ import annotations

from functools import cached_property

import sympy

from ..errors import InputError
from ..exact import PublicView, Rational, inner, to_public
from ..models.base import as_point
from .preorder import IncompletePreorderError, NotAPreorderError, Preorder
from .utility import UtilityRepresentation, debreu_utility


def _points(table, name: str) -> dict[str, list[Rational]]:
    if not isinstance(table, dict) or not table:
        raise InputError(f"expected a non-empty object {{name: [numbers]}} of {name}", path=name)
    dim = None
    out = {}
    for key, value in table.items():
        p = f"{name}.{key}"
        if dim is None:
            dim = len(value) if isinstance(value, (list, tuple)) else 0
            if dim == 0:
                raise InputError("expected a non-empty list of numbers (a feature vector)", path=p)
        out[key] = as_point(value, dim, path=p)
    return out


class RetrievalTask:
    """Keys and queries with feature vectors, and a preorder per query on the key names.

    ``keys`` and ``queries``: ``{name: [numbers]}`` (one dimension each);
    ``preorders``: ``{query name: Preorder}`` whose elements are exactly the key
    names. Errors name the path (``preorders.q1.elements``).

    ``keys``, ``queries`` and ``utility_matrix()`` give sympy Rationals (fresh dicts and
    lists, :mod:`symrel.exact.public`); ``exact_keys``, ``exact_queries`` and
    ``exact_utility_matrix()`` the same numbers in ``QQ``, for the library.
    """

    keys, queries = PublicView(), PublicView()

    def __init__(self, keys: dict, queries: dict, preorders: dict):
        self.exact_keys = _points(keys, "keys")
        self.exact_queries = _points(queries, "queries")
        if not isinstance(preorders, dict):
            raise InputError("expected an object {query name: preorder}", path="preorders")
        for q in self.exact_queries:
            if q not in preorders:
                raise InputError(f"missing the preorder of query {q!r}", path=f"preorders.{q}")
        key_set = set(self.exact_keys)
        for q, P in preorders.items():
            if q not in self.exact_queries:
                raise InputError(f"a preorder for {q!r}, which is not a query", path=f"preorders.{q}")
            if not isinstance(P, Preorder):
                raise InputError("expected a preorder", path=f"preorders.{q}")
            if set(P.elements) != key_set:
                extra = sorted(map(str, set(P.elements) - key_set))
                missing = sorted(map(str, key_set - set(P.elements)))
                raise InputError(
                    f"expected the key names as elements; unknown: {extra}, missing: {missing}",
                    path=f"preorders.{q}.elements",
                )
        self.preorders = {q: preorders[q] for q in self.exact_queries}

    @property
    def key_names(self) -> list[str]:
        return list(self.exact_keys)

    @property
    def query_names(self) -> list[str]:
        return list(self.exact_queries)

    @property
    def key_dim(self) -> int:
        return len(next(iter(self.exact_keys.values())))

    @property
    def query_dim(self) -> int:
        return len(next(iter(self.exact_queries.values())))

    @cached_property
    def utilities(self) -> dict[str, UtilityRepresentation]:
        """The Debreu utility (with its proof) of every query's preorder.
        Raises with the query named when one is not a complete preorder."""
        reps = {}
        for q, P in self.preorders.items():
            try:
                reps[q] = debreu_utility(P)
            except NotAPreorderError as err:
                raise err.under(f"preorders.{q}") from None
            except IncompletePreorderError as err:
                raise IncompletePreorderError(err.pair, query=q) from None
        return reps

    def utility_matrix(self) -> list[list[sympy.Rational]]:
        """``U[i][j]``: the utility of key j for query i (rows follow the queries,
        columns the keys), in sympy Rationals. Cost O(m n^2)."""
        return to_public(self.exact_utility_matrix())

    def exact_utility_matrix(self) -> list[list[Rational]]:
        """:meth:`utility_matrix` in ``QQ``."""
        keys = self.key_names
        return [[inner(self.utilities[q], "utilities")[0][k] for k in keys] for q in self.query_names]

    def __eq__(self, other):
        return (
            isinstance(other, RetrievalTask)
            and (self.exact_keys, self.exact_queries) == (other.exact_keys, other.exact_queries)
            and self.preorders == other.preorders
        )

    def __repr__(self):
        return f"RetrievalTask({len(self.exact_queries)} queries, {len(self.exact_keys)} keys)"
