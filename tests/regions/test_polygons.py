"""Exact polygon clipping, areas and interior points."""

from symrel.exact import rational as r
from symrel.exact.forms import AffineForm
from symrel.regions.polygons import area2, bounding_box, box_polygon, clip, meets_open, simple_interior_point


def _form(*coeffs):
    """``(a_1, .., a_d, c)`` as the affine form ``a . x + c``."""
    return AffineForm.from_dense(coeffs[:-1], coeffs[-1])


def test_clip_square_to_triangle_and_interval():
    sq = box_polygon([(r(0), r(2)), (r(0), r(2))])
    tri = clip(sq, _form(r(1), r(1), r(-2)))  # x + y <= 2
    assert area2(tri) == 4
    assert clip(sq, _form(r(1), r(0), r(1))) == []  # x <= -1: nothing left
    seg = clip(box_polygon([(r(0), r(3))]), _form(r(1), r(-1)))  # x <= 1
    assert seg == [(r(0),), (r(1),)] and area2(seg) == 1


def test_open_meeting_and_interior_points():
    sq = box_polygon([(r(0), r(1)), (r(0), r(1))])
    assert meets_open(sq, _form(r(1), r(0), r("-1/2")))      # x < 1/2 meets the square
    assert meets_open(sq, _form(r(-1), r(0), r(0)))          # -x < 0 holds inside
    assert not meets_open(sq, _form(r(1), r(0), r(0)))       # x < 0 touches only the edge x = 0
    thin = clip(sq, _form(r(1), r(1), r("-1/1000")))         # a tiny corner triangle
    p = simple_interior_point(thin)
    assert p[0] > 0 and p[1] > 0 and p[0] + p[1] < r("1/1000")


def test_bounding_box_is_outward_and_bounds_are_valid():
    tri = [(r("1/3"), r(0)), (r(1), r("1/7")), (r(0), r(1))]
    box = bounding_box(tri, bits=4)
    assert box[0][0] <= r(0) and box[0][1] >= r(1) and box[1][1] >= r(1)
    f = _form(r(1), r(1), r(0))
    assert f.range_on_box(box)[0] <= min(v[0] + v[1] for v in tri)
