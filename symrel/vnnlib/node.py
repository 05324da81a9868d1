"""The state of one node of the exact engine's search, and the records the search passes on.

Definition. The search of :func:`symrel.vnnlib.engine.decide` covers the box of each input
disjunct by a binary tree. A *node* is a box ``lo <= x <= hi`` of input disjunct ``disjunct``
and the ReLU phases fixed on its path from the root (``splits``, each a :class:`PhaseSplit`:
neuron ``neuron`` of ReLU layer ``layer`` set to ``z <= 0``, phase 0, or ``z >= 0``, phase 1).
Its ``path`` is the sequence of 0 (first part) and 1 (second part) from the root, so that
``(disjunct, path)`` names the node in the tree.

The records are small and picklable (they go to the executor's workers and back): frozen
dataclasses, so that a record equals only a record of its own class (a :class:`ReluSplit`
never equals an :class:`InputSplit` of the same numbers), and named tuples where they are
unpacked (:class:`PhaseSplit`, by the float and exact bounds; :class:`Root`):

* :class:`Node`: an open node as the driver keeps it; :class:`Task`: what a worker needs to
  evaluate it (:func:`symrel.vnnlib.worker.evaluate`);
* a split, the choice that makes two children of a node: :class:`InputSplit` (a cut of one
  input, at a given point or, ``at=None``, halving it) or :class:`ReluSplit` (one ReLU's two
  phases, the box unchanged);
* the result of evaluating a node: :class:`Closed` (a leaf and its exact facts),
  :class:`Proposal` (a point, a counterexample if exact evaluation confirms it) or
  :class:`Open` (the split to make);
* a tree entry, what the certificate records of a decided node (docs/format.md): a
  :class:`Leaf`, a :class:`ReluSplit` or an :class:`InputSplit` with its cut point.

Cost: a record holds its fields and nothing else; a node's size is that of its box (``2 n``
rationals) plus its path and splits (one entry per level).

>>> from symrel.exact import rational as q
>>> root = Node(0, (), (q(-1), q(0)), (q(1), q(2)), ())
>>> part = root.child(1, root.lo, root.hi, PhaseSplit(0, 3, 1))
>>> part.path, part.splits, part.task(fresh=False).splits
((1,), (PhaseSplit(layer=0, neuron=3, phase=1),), (PhaseSplit(layer=0, neuron=3, phase=1),))
>>> [[str(v) for v in box] for box in InputSplit(1).halves(root.lo, root.hi)]   # X_1 halved at 1
[['-1', '0'], ['1', '1'], ['-1', '1'], ['1', '2']]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


class PhaseSplit(NamedTuple):
    """One ReLU fixed on a node's path: neuron ``neuron`` of ReLU layer ``layer`` (counted
    among the ReLU layers) on its side ``z <= 0`` (``phase`` 0) or ``z >= 0`` (1). It unpacks
    as the ``(k, i, phase)`` triple that :mod:`symrel.vnnlib.betas` reads."""

    layer: int
    neuron: int
    phase: int


@dataclass(frozen=True)
class InputSplit:
    """A cut of input ``input`` at ``at`` (``lo[input] < at < hi[input]``), the first part
    ``x_input <= at``, the second ``x_input >= at``; ``at=None`` in a choice: halve the input.
    As a tree entry ``at`` is always set (the certificate's ``{"split": input, "at": at}``)."""

    input: int
    at: object = None

    def halves(self, lo, hi):
        """The two parts ``(lo0, hi0, lo1, hi1)`` of the box ``[lo, hi]`` cut by this split
        (halving the input when ``at`` is None)."""
        i = self.input
        mid = (lo[i] + hi[i]) / 2 if self.at is None else self.at
        hi0 = tuple(mid if k == i else v for k, v in enumerate(hi))
        lo1 = tuple(mid if k == i else v for k, v in enumerate(lo))
        return lo, hi0, lo1, hi


@dataclass(frozen=True)
class ReluSplit:
    """A split of neuron ``neuron`` of ReLU layer ``layer`` into its two phases: the part
    ``z <= 0`` first, then ``z >= 0`` (the certificate's ``{"relu": [layer, neuron]}``)."""

    layer: int
    neuron: int


@dataclass(frozen=True)
class Leaf:
    """A closed node in the tree: ``facts``, the leaf object of docs/format.md (its phases,
    relaxations and, per unsafe disjunct, the atom that closes it)."""

    facts: dict


class Root(NamedTuple):
    """An input disjunct's box, the root of its tree; ``empty``: an input ``i`` with
    ``lo[i] > hi[i]`` (the disjunct has no point), else None."""

    lo: tuple
    hi: tuple
    empty: int | None


@dataclass(frozen=True)
class Task:
    """A node as a worker evaluates it; ``fresh``: its box is new (a root or a part of an input
    split, not of a ReLU split), so that a float attack is tried on it; ``hint``: the best
    float point of its parent's box, as the attack starts from it and the split orders its
    parts by it (None: none); ``root``: the node is an input disjunct's root (attacked harder);
    ``warm``: its parent's optimised slopes and multipliers (:class:`Open`), from which it starts
    its own (None: none)."""

    disjunct: int
    lo: tuple
    hi: tuple
    splits: tuple
    fresh: bool
    hint: tuple | None = None
    root: bool = False
    warm: object = None


@dataclass(frozen=True)
class Node:
    """An open node of the search (module docstring); ``owner``: for a part of a ReLU split,
    the ``(disjunct, path)`` of the box that was phase-split, whose volume counts as covered
    once all its parts are closed (None otherwise); ``hint``: the best float point of its
    parent's box when it lies in this part (None otherwise); ``score``: the float margin of the
    parent's best point, by which the search takes the most promising nodes first; ``warm``: the
    parent's optimised slopes and multipliers (:class:`Open`), None for a root or an input split's part."""

    disjunct: int
    path: tuple
    lo: tuple
    hi: tuple
    splits: tuple
    owner: tuple | None = None
    hint: tuple | None = None
    score: float = float("-inf")
    warm: object = None

    @property
    def key(self) -> tuple:
        """``(disjunct, path)``: the node's name in the tree."""
        return self.disjunct, self.path

    def child(self, side: int, lo, hi, phase: PhaseSplit | None = None, owner=None) -> Node:
        """Part ``side`` (0 or 1) of the node: the box ``[lo, hi]``, one more ReLU fixed
        when ``phase`` is given, and ``owner`` (default: the node's)."""
        splits = self.splits if phase is None else self.splits + (phase,)
        return Node(self.disjunct, self.path + (side,), lo, hi, splits, self.owner if owner is None else owner,
                    score=self.score)

    def task(self, fresh: bool) -> Task:
        """The node as a worker evaluates it."""
        return Task(self.disjunct, self.lo, self.hi, self.splits, fresh, self.hint, not self.path, self.warm)


@dataclass(frozen=True)
class Closed:
    """The node is a leaf: ``facts`` (:class:`Leaf`), ``relaxed`` the number of unstable
    ReLUs its exact bounds relaxed."""

    facts: dict
    relaxed: int


@dataclass(frozen=True)
class Proposal:
    """The floats found a point ``x`` of the node (exact rationals) that looks like a
    counterexample; the driver confirms it exactly. ``split``: the split to make should it
    not be one (None: the driver halves the widest input); ``hint``, ``first`` and
    ``warm`` as :class:`Open`'s."""

    x: tuple
    split: InputSplit | ReluSplit | None
    hint: tuple | None = None
    first: int = 0
    warm: object = None


@dataclass(frozen=True)
class Open:
    """The node stays open and is split by ``split``; ``hint``: the best float point the
    attacks found in its box and its float margin, ``(x, m)`` (None: none), and ``first``
    the part of the split that holds ``x``, searched first; ``warm``: the node's optimised
    slopes and multipliers per unsafe disjunct it optimised (a net split on ReLUs alone:
    :func:`symrel.vnnlib.relu_branch.plan`), from which a ReLU split's parts start theirs
    (None: none). They travel with the nodes, not in a worker's cache: a round holds up to
    ``BATCH`` nodes, and a cache of the last few missed most parents.
    """

    split: InputSplit | ReluSplit
    hint: tuple | None = None
    first: int = 0
    warm: object = None
