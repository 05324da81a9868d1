"""Max nodes: the variables a symbolic execution introduces, shared by both models.

A node is ``y = max(t_1, ..., t_k)`` for affine forms ``t_i`` over earlier variables,
in normal form: no two equal terms, and no term *dominated* on the domain (a term
``s`` is dropped when a kept term ``t`` has ``t - s >= 0`` on the box of the
variables' ranges, proved by an exact lower bound). A one-term max is the term
itself. Nodes are hash-consed: the maxout unit ``max(l_1, l_2)`` of net A and the
hardmax head of Transformer B that returns ``max(-B, l_2, l_1)`` both normalise to
the same node, so "layer l of B computes the units of layer l of A, up to the order
and duplication of pieces and units" is equality of node ids. Scaled and shifted
copies are the same node too (rule ``max-scale-shift``): ``max(c a + k, c b + k) =
c max(a, b) + k`` for rational ``c > 0``, found through the canonical form of the terms
(:func:`canonical_terms`), so the max comes out as the form ``c y + k``.

Every variable has an exact range ``[lo, hi]``: an input its interval of the box, a
node ``[max_i lo(t_i), max_i hi(t_i)]``.

>>> reg = Registry([(Q(-1), Q(1))])
>>> x = AffineForm.var(0)
>>> y, facts = reg.max_of([x, -x, AffineForm.constant(Q(-3))])
>>> y.to_json(), facts["dropped"]
([0, [[1, 1]]], [[[-3, []], 0, 2]])
>>> [str(v) for v in reg.nodes[1].range]    # interval bound: max of the terms' ranges
['-1', '1']
>>> reg.max_of([-x, x])[0] == y          # same node, whatever the order
True
>>> z, facts = reg.max_of([linear_combination([(Q(3), x)], Q(1)), linear_combination([(Q(-3), x)], Q(1))])
>>> z.to_json(), facts["scale"]          # max(3x + 1, -3x + 1) = 3 |x| + 1
([1, [[1, 3]]], [3, 1])
"""

from __future__ import annotations

from typing import Sequence

from ..exact import Q, Rational, format_rational
from ..exact.forms import AffineForm, linear_combination

ONE, ZERO = Q(1), Q(0)


def canonical_terms(terms: Sequence[AffineForm]) -> tuple[Rational, Rational, list[AffineForm]]:
    """``(c, k, u)`` with ``terms[i] = c u[i] + k``, ``c > 0``: ``k`` the least constant of the
    terms and ``c`` their largest absolute coefficient (a variable's), so that ``u`` is the same
    list (sorted by key) for ``terms`` and for ``c' terms + k'`` whatever ``c' > 0`` and ``k'``.
    Since ``max(c u_i + k) = c max(u_i) + k``, maxes with the same ``u`` are one node.
    Needs a non-constant term. Cost: O(size of the terms).

    >>> x = AffineForm.var(0)
    >>> c, k, u = canonical_terms([linear_combination([(Q(2), x)], Q(3)), AffineForm.constant(Q(3))])
    >>> str(c), str(k), [t.to_json() for t in u]        # max(2x + 3, 3) = 2 max(x, 0) + 3
    ('2', '3', [[0, []], [0, [[0, 1]]]])
    """
    k = min(t.const for t in terms)
    c = max(abs(a) for t in terms for a in t.coeffs.values())
    u = sorted((linear_combination([(1 / c, t)], -k / c) for t in terms), key=AffineForm.key)
    return c, k, u


class Node:
    """Variable ``id``: an input (no terms) or ``max(terms)``; ``range`` exact;
    ``origin`` says which model first produced it (``"a"``, ``"b"`` or ``"domain"``);
    ``users``: the ids of the nodes whose terms read it; ``scores``: for a select node, whose
    value is ``terms[s]`` averaged over the argmax set of ``scores``.

    (A plain class, not a dataclass: defining a dataclass compiles its methods, a cost every
    ``symrel prove`` process paid.)"""

    __slots__ = ("id", "terms", "range", "origin", "users", "scores")

    def __init__(self, id: int, terms: tuple[AffineForm, ...], range: tuple[Rational, Rational],
                 origin: str = "domain", users: set | None = None, scores: tuple[AffineForm, ...] = ()):
        self.id, self.terms, self.range, self.origin, self.scores = id, terms, range, origin, scores
        self.users = set() if users is None else users

    def __repr__(self):
        return f"Node(id={self.id}, terms={len(self.terms)}, range={self.range}, origin={self.origin!r})"

    def to_json(self) -> dict:
        out = {"id": self.id, "terms": [t.to_json() for t in self.terms],
               "range": [format_rational(self.range[0]), format_rational(self.range[1])]}
        if self.scores:
            out["scores"] = [s.to_json() for s in self.scores]
        return out


class Registry:
    """The variables of one proof: inputs ``0..d-1`` with the box's ranges, then nodes."""

    def __init__(self, box: Sequence[tuple[Rational, Rational]]):
        self.nodes: list[Node] = [Node(i, (), (lo, hi)) for i, (lo, hi) in enumerate(box)]
        self.ranges: list[tuple[Rational, Rational]] = [n.range for n in self.nodes]
        self.index: dict[tuple, tuple] = {}     # canonical terms of a max node -> (id, c, k), terms = c u + k
        self.selects: dict[tuple, int] = {}
        self.model = "domain"          # who is executing (recorded as a node's users)
        self.new_nodes: list[Node] = []  # nodes created since the last drain

    @property
    def dim(self) -> int:
        return sum(1 for n in self.nodes if not n.terms)

    def max_of(self, terms: Sequence[AffineForm]) -> tuple[AffineForm, dict]:
        """``max(terms)`` in normal form, and the facts that justify it:
        ``{"result": form, "dropped": [[term, kept index, lower bound of kept - term]]}``,
        plus ``"scale": [c, k]`` when the kept terms are ``c u_i + k`` for the terms ``u_i``
        of an existing node y (then the result is ``c y + k``: rule ``max-scale-shift``)."""
        unique = list({t.key(): t for t in terms}.values())
        unique.sort(key=AffineForm.key)
        ranges = self.ranges
        kept = list(unique)
        for s in unique:                      # drop s if some other kept term dominates it
            if any(t is not s and (t - s).range_on_box(ranges)[0] >= 0 for t in kept):
                kept.remove(s)
        scale = None
        if len(kept) == 1:
            result, dominators = kept[0], kept
        else:
            nid, c, k = self._node(tuple(kept))
            result = linear_combination([(c, AffineForm.var(nid))], k)
            dominators = kept
            if (c, k) != (ONE, ZERO):         # the node's terms, scaled and shifted, are the kept terms
                scale = [format_rational(c), format_rational(k)]
                dominators = [linear_combination([(c, u)], k) for u in self.nodes[nid].terms]
        dropped = []
        for s in unique:
            if any(s is t for t in kept):
                continue
            for i, t in enumerate(dominators):   # a kept dominator exists by transitivity
                lo = (t - s).range_on_box(ranges)[0]
                if lo >= 0:
                    dropped.append([s.to_json(), i, format_rational(lo)])
                    break
        facts = {"result": result.to_json(), "dropped": dropped}
        if scale is not None:
            facts["scale"] = scale
        return result, facts

    def _node(self, terms: tuple[AffineForm, ...]) -> tuple[int, Rational, Rational]:
        """The node of ``max(terms)`` (two terms or more, none dominated) as ``(id, c, k)``
        with ``max(terms) = c y_id + k``: a new node, or an existing one whose terms are
        ``(terms - k) / c`` (same canonical form, :func:`canonical_terms`)."""
        c1, k1, canon = canonical_terms(terms)
        key = tuple(u.key() for u in canon)
        found = self.index.get(key)
        if found is None:
            nid = len(self.nodes)
            los, his = zip(*(t.range_on_box(self.ranges) for t in terms))
            node = Node(nid, terms, (max(los), max(his)), origin=self.model)
            self.nodes.append(node)
            self.ranges.append(node.range)
            self.index[key] = (nid, c1, k1)
            self.new_nodes.append(node)
            c, k = ONE, ZERO
        else:      # terms = c1 u + k1 and the node's terms = c0 u + k0, so terms = (c1/c0) node + k1 - c1 k0 / c0
            nid, c0, k0 = found
            c = c1 / c0
            k = k1 - c * k0
        self.nodes[nid].users.add(self.model)
        return nid, c, k

    def select_of(self, scores: Sequence[AffineForm], values: Sequence[AffineForm]) -> AffineForm:
        """The select node ``y = average of values[s] over the argmax set of scores`` (a
        hardmax head no other rule settles; token order kept). Its range is
        ``[min lo(values), max hi(values)]``: an average of values lies between them."""
        key = ("select", tuple(s.key() for s in scores), tuple(v.key() for v in values))
        nid = self.selects.get(key)
        if nid is None:
            nid = len(self.nodes)
            los, his = zip(*(v.range_on_box(self.ranges) for v in values))
            node = Node(nid, tuple(values), (min(los), max(his)), origin=self.model, scores=tuple(scores))
            self.nodes.append(node)
            self.ranges.append(node.range)
            self.selects[key] = nid
            self.new_nodes.append(node)
        self.nodes[nid].users.add(self.model)
        return AffineForm.var(nid)

    def drain_new(self) -> list[dict]:
        """The definitions of the nodes created since the last call (for a step's certificate)."""
        out = [n.to_json() for n in self.new_nodes]
        self.new_nodes = []
        return out

    # -- evaluation at a point (for counterexample search) --------------------------------
    def values_at(self, x: Sequence[Rational]) -> tuple[list[Rational], list[int]]:
        """The value of every variable at the input ``x`` and, for nodes, the index of a
        maximising term (-1 for inputs). Valid for x in the domain."""
        vals, active = list(x), [-1] * len(x)
        for n in self.nodes[len(x):]:
            if n.scores:
                sv = [s.value_at(vals) for s in n.scores]
                top = max(sv)
                win = tuple(i for i, v in enumerate(sv) if v == top)
                vals.append(sum((n.terms[i].value_at(vals) for i in win), Q(0)) / len(win))
                active.append(win)
                continue
            best, arg = None, -1
            for i, t in enumerate(n.terms):
                v = t.value_at(vals)
                if best is None or v > best:
                    best, arg = v, i
            vals.append(best)
            active.append(arg)
        return vals, active

    def linearize(self, form: AffineForm, x: Sequence[Rational]) -> tuple[list[Rational], Rational]:
        """The affine function of x that equals ``form`` near ``x`` on the linear region of
        ``x`` (every max node replaced by its maximising term, a select node by the mean of its winners): ``(gradient, constant)``.
        Nodes use earlier variables only, so one pass in id order substitutes them all."""
        d = len(x)
        _, active = self.values_at(x)
        images = [AffineForm.var(i) for i in range(d)]
        for n in self.nodes[d:]:
            if n.scores:   # a select node: the average of the winners' values
                win = active[n.id]
                images.append(linear_combination([(Q(1, len(win)), n.terms[i].substitute(images)) for i in win]))
            else:
                images.append(n.terms[active[n.id]].substitute(images))
        f = form.substitute(images)
        return f.to_dense(d), f.const


class NormalForms:
    """A model seen through its outputs' forms over a registry: ``evaluate_exact(x)`` evaluates
    the forms at the node values of x (exact, and cheap next to evaluating a large
    Transformer; used to screen candidate points before the models' own evaluation)."""

    def __init__(self, registry: Registry, outs: Sequence[AffineForm]):
        self.registry, self.outs = registry, list(outs)

    def evaluate_exact(self, x):
        vals, _ = self.registry.values_at(list(x))
        return [f.value_at(vals) for f in self.outs]
