"""benchmarks.bench_bounds: the sampled range is exact values at points of the box, inside the
true range, and it reaches the range where the extremes are at corners."""

import pytest

from symrel.exact import Q
from symrel.models import DenseLayer, ReLUNet

pytest.importorskip("numpy")


def test_the_sampled_range_is_inside_the_true_range():
    from benchmarks.bench_bounds import sampled_range

    # (|x0| - x1, relu(x0 - 1/3) - 1/7) on [-1, 2] x [0, 1]: ranges [-1, 2] and [-1/7, 5/3 - 1/7]
    net = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [1, 0]], [0, 0, 0, "-1/3"]),
                      DenseLayer([[1, 1, -1, 0], [0, 0, 0, 1]], [0, "-1/7"], "none")])
    (lo0, hi0), (lo1, hi1) = sampled_range(net, [Q(-1), Q(0)], [Q(2), Q(1)])
    assert -1 <= lo0 <= Q(-99, 100) and hi0 == 2      # the minimum is at x0 = 0, inside: approached
    assert (lo1, hi1) == (Q(-1, 7), Q(5, 3) - Q(1, 7))  # at corners: reached
