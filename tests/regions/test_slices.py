"""Slices of real networks: the ACAS Xu network on a small 2-D sub-box and on a line."""

import pytest

from symrel.exact import Q
from symrel.models import Box
from symrel.regions import count_regions, restrict_to_affine_slice


def test_slice_is_the_composed_network(shared_dir):
    nnet = pytest.importorskip("symrel.interop.nnet")
    f = nnet.load_nnet(shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet")
    net = f.net()
    c = f.normalised_input_box().center()
    s = restrict_to_affine_slice(net, [0, 0] + c[2:], [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]])
    assert s.evaluate(c[:2]) == net.evaluate(c)
    w = Q(1, 100)
    res = count_regions(s, Box([[c[0] - w, c[0] + w], [c[1] - w, c[1] + w]]))
    assert res.count >= 1 and res.activation_cells >= res.count
    # along a line through the centre (one coordinate varies)
    line = restrict_to_affine_slice(net, [0] + c[1:], [[1, 0, 0, 0, 0]])
    pieces = count_regions(line, Box([[c[0] - Q(1, 5), c[0] + Q(1, 5)]]))
    assert pieces.count >= 2
    # every piece's map agrees with the network at its witness
    for cell in pieces.cells[:5]:
        f = cell.outputs[0][0]
        assert line.evaluate(cell.witness)[0] == f.value_at(cell.witness)
