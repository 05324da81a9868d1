"""The point generators: exact segment walks land exactly on boundaries and ties."""

from symrel.exact import Q
from symrel.interop.floats import FORMATS, is_representable
from symrel.models import AffineMap, Box, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from symrel.crossval.points import make_points, segment_breakpoints

def _relu():
    return ReLUNet(2, [DenseLayer([[1, 2], [-1, 1], [2, -3]], [0, "1/3", "-1/5"]),
                       DenseLayer([[1, -1, 1], [0, 1, 1]], ["1/7", 0]), DenseLayer([[1, -1], [2, 1]], [0, 0], "none")])

def _preacts(net, x):
    h, out = [[v] for v in x], []
    from symrel.exact import from_rationals

    H = from_rationals(h, (len(h), 1))
    for L in net.layers:
        Z = L.affine._evaluate_batch(H)
        out += [r[0] for r in Z.to_list()] if L.activation == "relu" else []
        H = L.apply_batch(H)
    return out

def test_relu_boundaries_and_ties_are_exact():
    net = _relu()
    walk = segment_breakpoints(net, [Q(-1), Q(-1)], [Q(1), Q(1, 2)])
    assert walk.boundaries
    for x in walk.boundaries:  # some ReLU is exactly at 0 there
        assert any(z == 0 for z in _preacts(net, x))
    for x in walk.ties:  # two outputs exactly equal
        y = net(x)
        assert y[0] == y[1]

def test_maxout_boundaries_are_piece_ties():
    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1], [0]], [0, 0, "1/2"])])], AffineMap([[1]]))
    walk = segment_breakpoints(net, [Q(-1)], [Q(1)])
    assert [x[0] for x in walk.boundaries] == [Q(-1, 2), Q(1, 2)]

def test_points_are_floats_of_the_dtype_inside_the_box():
    box = Box([["-3/7", 1], [0, "1/3"]])
    for name in ("float32", "float16", "bfloat16"):
        fmt = FORMATS[name]
        ps = make_points(_relu(), box, 40, fmt, seed=2)
        assert {"random", "near boundary", "grid", "extreme"} <= set(ps.sources)
        assert len(set(map(tuple, ps.points))) == len(ps.points)
        assert all(is_representable(v, fmt) for p in ps.points for v in p)
        assert all(box.contains(p) for p in ps.points)
