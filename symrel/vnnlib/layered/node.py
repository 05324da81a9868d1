"""The records of the search: a node, what its work found, and the tree's entries.

A :class:`Node` is a part of an input disjunct's box: the box itself (exact rationals) and
the splits on its path from the root, which keep the box and restrict the part: ReLU splits
(``sides``: ``(op, entry, side)``, side 1 the part where the entry is ``>= 0``, 0 where it
is ``<= 0``) and max splits (``winners``: ``(op, group, position)``, the part where that piece
is the largest of its group). ``unsafe`` names the unsafe disjuncts the node must close
(None: all of them; after a split by unsafe disjunct, one).

The work on a node (:mod:`~symrel.vnnlib.layered.worker`) ends in one :class:`Outcome`: ``closed`` (with the leaf's
facts, exact), ``candidate`` (a float point the driver confirms exactly) or ``split`` (a
:class:`Split`). The tree of a certificate is a list of entries in preorder, each a record
here with its JSON form (docs/format.md, "vnnlib-unsat").

>>> n = Node(0, (), (0,), (1,))
>>> n.child(1, sides=((2, 5, 1),)).path, InputSplit(0, 1).to_json()
((1,), {'split': 0, 'at': 1})
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...exact import format_rational


@dataclass(frozen=True)
class Node:
    """A node of the search (module docstring); ``fresh``: its box is new (a root or a part
    of an input split), so an attack is worth it; ``owner``: the key of the box this node
    shares with its siblings of a ReLU, max or unsafe split (for the covered volume)."""

    disjunct: int
    path: tuple
    lo: tuple
    hi: tuple
    sides: tuple = ()
    winners: tuple = ()
    unsafe: tuple | None = None
    fresh: bool = True
    owner: tuple | None = None

    def child(self, k: int, **changes) -> "Node":
        return replace(self, path=self.path + (k,), **changes)

    def side_map(self) -> dict:
        """``{op: {entry: side}}``."""
        out: dict = {}
        for k, i, s in self.sides:
            out.setdefault(k, {})[i] = s
        return out

    def winner_map(self) -> dict:
        """``{op: {group: position}}``."""
        out: dict = {}
        for k, g, p in self.winners:
            out.setdefault(k, {})[g] = p
        return out

    @property
    def key(self) -> tuple:
        return (self.disjunct, self.path)


# -- splits and tree entries -----------------------------------------------------------------------
@dataclass(frozen=True)
class InputSplit:
    """The box cut at ``x_i = at``: the part ``x_i <= at``, then ``x_i >= at``."""

    i: int
    at: object

    def to_json(self) -> dict:
        return {"split": self.i, "at": format_rational(self.at)}


@dataclass(frozen=True)
class ReluSplit:
    """Entry ``i`` of the vector ReLU op ``k`` reads: the part ``<= 0`` (side 0), then ``>= 0``."""

    k: int
    i: int

    def to_json(self) -> dict:
        return {"relu": [self.k, self.i]}


@dataclass(frozen=True)
class MaxSplit:
    """Group ``g`` of max op ``k``: one part per position ``p`` of the group, in order, the
    part where piece ``p`` is the largest."""

    k: int
    g: int
    pieces: int

    def to_json(self) -> dict:
        return {"max": [self.k, self.g]}


@dataclass(frozen=True)
class UnsafeSplit:
    """One part per unsafe disjunct, in order: the part closes that disjunct alone."""

    count: int

    def to_json(self) -> dict:
        return {"each_unsafe": self.count}


@dataclass(frozen=True)
class Leaf:
    """A closed node: its facts (docs/format.md), exact."""

    facts: dict

    def to_json(self) -> dict:
        return {"leaf": self.facts}


@dataclass(frozen=True)
class Outcome:
    """What the work on one node found: ``kind`` is ``"closed"`` (``facts``), ``"candidate"``
    (``point``, floats, with ``split`` to take if the point is refuted) or ``"split"``
    (``split``; ``closed_parts``: ``{part: facts}`` of the parts already closed, for an
    :class:`UnsafeSplit`)."""

    kind: str
    facts: dict | None = None
    point: tuple | None = None
    split: object = None
    closed_parts: dict = field(default_factory=dict)
    cost: int = 0       # the leaf's operations as the checker counts them
