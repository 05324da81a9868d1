"""The node state and the search's records (symrel.vnnlib.node): what crosses process boundaries."""

import pickle

from symrel.exact import rational as q
from symrel.vnnlib.node import (Closed, InputSplit, Leaf, Node, Open, PhaseSplit, Proposal, ReluSplit, Root,
                                Task)

LO, HI = (q(-1), q(0)), (q(1), q(2))


def test_records_survive_pickling_as_their_own_class():
    """The executor pickles tasks to its workers and results back: every record comes back
    equal and of its class (a result is told by its class, a split's kind too)."""
    records = [PhaseSplit(1, 2, 0), InputSplit(0), InputSplit(1, q("1/3")), ReluSplit(1, 2), Leaf({"phases": ["au"]}),
               Root(LO, HI, None), Task(0, LO, HI, (PhaseSplit(0, 1, 1),), True), Node(1, (0, 1), LO, HI, (), (1, ())),
               Closed({"closes": []}, 3), Proposal((q(0), q(1)), ReluSplit(0, 0)), Open(InputSplit(1))]
    for record in records:
        back = pickle.loads(pickle.dumps(record))
        assert back == record and type(back) is type(record)


def test_a_split_equals_only_a_split_of_its_kind():
    assert ReluSplit(0, 1) != InputSplit(0, 1)
    assert InputSplit(0) != (0, None) and Open(InputSplit(0)) != Proposal(InputSplit(0), None)
    assert PhaseSplit(0, 1, 1) == (0, 1, 1)  # a triple, as the float and exact bounds unpack it


def test_children_of_a_node():
    """An input split's parts keep the node's phases and owner and halve or cut its box; a
    ReLU split's parts keep the box, fix one more phase and take the owner given."""
    node = Node(0, (1,), LO, HI, (PhaseSplit(0, 0, 1),), None)
    lo0, hi0, lo1, hi1 = InputSplit(0, q("1/4")).halves(node.lo, node.hi)
    assert (lo0, hi0, lo1, hi1) == (LO, (q("1/4"), q(2)), (q("1/4"), q(0)), HI)
    part = node.child(0, lo0, hi0)
    assert part.key == (0, (1, 0)) and part.splits == node.splits and part.owner is None
    relu = node.child(1, LO, HI, PhaseSplit(1, 3, 0), owner=node.key)
    assert relu.key == (0, (1, 1)) and relu.splits[-1] == PhaseSplit(1, 3, 0) and relu.owner == (0, (1,))
    assert relu.child(0, LO, HI).owner == (0, (1,))
    assert relu.task(fresh=False) == Task(0, LO, HI, relu.splits, False)
    assert InputSplit(1).halves(LO, HI)[1] == (q(1), q(1))  # halved at the middle without a point
