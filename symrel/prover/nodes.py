"""Max nodes: the variables a symbolic execution introduces, shared by both models.

A node is ``y = max(t_1, ..., t_k)`` for affine forms ``t_i`` over earlier variables,
in normal form: no two equal terms, and no term *dominated* on the domain (a term
``s`` is dropped when a kept term ``t`` has ``t - s >= 0`` on the box of the
variables' ranges, proved by an exact lower bound). A one-term max is the term
itself. Nodes are hash-consed: the maxout unit ``max(l_1, l_2)`` of net A and the
hardmax head of Transformer B that returns ``max(-B, l_2, l_1)`` both normalise to
the same node, so "layer l of B computes the units of layer l of A, up to the order
and duplication of pieces and units" is equality of node ids.

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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from ..exact import Q, Rational, format_rational
from ..exact.forms import AffineForm, linear_combination


@dataclass
class Node:
    """Variable ``id``: an input (no terms) or ``max(terms)``; ``range`` exact;
    ``origin`` says which model first produced it (``"a"``, ``"b"`` or ``"domain"``)."""

    id: int
    terms: tuple[AffineForm, ...]
    range: tuple[Rational, Rational]
    origin: str = "domain"
    users: set = field(default_factory=set)
    scores: tuple[AffineForm, ...] = ()   # a select node: terms[s] averaged over the argmax set of scores

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
        self.index: dict[tuple, int] = {}
        self.model = "domain"          # who is executing (recorded as a node's users)
        self.new_nodes: list[Node] = []  # nodes created since the last drain

    @property
    def dim(self) -> int:
        return sum(1 for n in self.nodes if not n.terms)

    def max_of(self, terms: Sequence[AffineForm]) -> tuple[AffineForm, dict]:
        """``max(terms)`` in normal form, and the facts that justify it:
        ``{"result": form, "dropped": [[term, kept index, lower bound of kept - term]]}``."""
        unique = list({t.key(): t for t in terms}.values())
        unique.sort(key=AffineForm.key)
        ranges = self.ranges
        kept = list(unique)
        for s in unique:                      # drop s if some other kept term dominates it
            if any(t is not s and (t - s).range_on_box(ranges)[0] >= 0 for t in kept):
                kept.remove(s)
        dropped = []
        for s in unique:
            if any(s is k for k in kept):
                continue
            for i, k in enumerate(kept):      # a kept dominator exists by transitivity
                lo = (k - s).range_on_box(ranges)[0]
                if lo >= 0:
                    dropped.append([s.to_json(), i, format_rational(lo)])
                    break
        if len(kept) == 1:
            result = kept[0]
        else:
            result = AffineForm.var(self._node(tuple(kept)))
        return result, {"result": result.to_json(), "dropped": dropped}

    def _node(self, terms: tuple[AffineForm, ...]) -> int:
        key = tuple(t.key() for t in terms)
        nid = self.index.get(key)
        if nid is None:
            nid = len(self.nodes)
            los, his = zip(*(t.range_on_box(self.ranges) for t in terms))
            node = Node(nid, terms, (max(los), max(his)), origin=self.model)
            self.nodes.append(node)
            self.ranges.append(node.range)
            self.index[key] = nid
            self.new_nodes.append(node)
        self.nodes[nid].users.add(self.model)
        return nid

    def select_of(self, scores: Sequence[AffineForm], values: Sequence[AffineForm]) -> AffineForm:
        """The select node ``y = average of values[s] over the argmax set of scores`` (a
        hardmax head no other rule settles; token order kept). Its range is
        ``[min lo(values), max hi(values)]``: an average of values lies between them."""
        key = ("select", tuple(s.key() for s in scores), tuple(v.key() for v in values))
        nid = self.index.get(key)
        if nid is None:
            nid = len(self.nodes)
            los, his = zip(*(v.range_on_box(self.ranges) for v in values))
            node = Node(nid, tuple(values), (min(los), max(his)), origin=self.model, scores=tuple(scores))
            self.nodes.append(node)
            self.ranges.append(node.range)
            self.index[key] = nid
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
