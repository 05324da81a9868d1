"""Drawing needs matplotlib; the module itself imports without it."""

import pytest

from symrel.preorders import Preorder
from symrel.preorders.draw import class_levels, draw_preorder


def test_levels_are_the_utility_or_the_richter_peleg_level():
    P = Preorder.from_ranking(["top", ["x", "y"], "bottom"])
    levels, label = class_levels(P)
    assert sorted(levels.values()) == [0, 1, 2] and "Debreu" in label
    Q = Preorder.from_pairs(["a", "b", "c"], [("a", "b"), ("a", "c")])
    assert "Richter-Peleg" in class_levels(Q)[1]


def test_draw_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "hasse.png"
    draw_preorder(Preorder.from_ranking(["a", ["b", "c"], "d"]), path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
