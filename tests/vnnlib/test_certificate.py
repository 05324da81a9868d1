"""The certificate writer (symrel.vnnlib.certificate): the trees in the order the checker reads."""

import pytest

from symrel.exact import rational as q
from symrel.vnnlib.certificate import file_name, tree_entries
from symrel.vnnlib.node import InputSplit, Leaf, ReluSplit


def test_a_tree_is_written_in_preorder_part_zero_first():
    trees = {(0, ()): ReluSplit(1, 4), (0, (0,)): InputSplit(2, q("-1/8")), (0, (0, 0)): Leaf({"a": 1}),
             (0, (0, 1)): Leaf({"b": 2}), (0, (1,)): Leaf({"c": 3}), (1, ()): Leaf({"d": 4})}
    assert tree_entries(trees, 0) == [{"relu": [1, 4]}, {"split": 2, "at": "-1/8"}, {"leaf": {"a": 1}},
                                      {"leaf": {"b": 2}}, {"leaf": {"c": 3}}]
    assert tree_entries(trees, 1) == [{"leaf": {"d": 4}}]


def test_an_entry_of_another_kind_is_refused_not_misread():
    """A tuple of the engine's former form (``("leaf", facts)``) or a halving without its
    point is no tree entry: refused, never written as something else."""
    with pytest.raises(TypeError, match="not a tree entry"):
        tree_entries({(0, ()): ("leaf", {})}, 0)
    with pytest.raises(TypeError, match="without its point"):
        tree_entries({(0, ()): InputSplit(0)}, 0)
    with pytest.raises(KeyError):  # a split whose parts were never decided
        tree_entries({(0, ()): ReluSplit(0, 0)}, 0)


def test_file_names_carry_no_directory():
    assert file_name("C:\\props\\prop_1.vnnlib") == "prop_1.vnnlib"
    assert file_name("/") == "inline" and file_name("dir/..") == "inline"
    assert file_name("a\nb.vnnlib") == "a?b.vnnlib"
