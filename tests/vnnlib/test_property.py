"""VnnProperty: exact membership, the unsafe test and the boxes of the input region."""

import pytest

from symrel.errors import InputError
from symrel.exact import rational as q
from symrel.vnnlib.property import LinearAtom, VnnProperty


def atom(x, y, rhs):
    return LinearAtom(tuple(map(q, x)), tuple(map(q, y)), q(rhs))


def prop(region, unsafe, n_in=2, n_out=2):
    return VnnProperty(n_in, n_out, region, unsafe, sha256="0" * 64, source="t.vnnlib")


BOX = (atom([1, 0], [0, 0], 1), atom([-1, 0], [0, 0], 0), atom([0, 1], [0, 0], "1/2"),
       atom([0, -1], [0, 0], "1/2"), atom([2, 0], [0, 0], 1))   # tighter X_0 <= 1/2 last


def test_boxes_take_the_tightest_bound():
    p = prop((BOX,), ((atom([0, 0], [1, -1], 0),),))
    ((lower, upper),) = p.boxes()
    assert lower == (q(0), q("-1/2")) and upper == (q("1/2"), q("1/2"))
    assert p.is_box_union()


def test_unbounded_or_coupled_region_is_not_a_box():
    p = prop((BOX[:3],), ())
    with pytest.raises(InputError, match="X_1 has no lower bound"):
        p.boxes()
    coupled = prop((BOX + (atom([1, 1], [0, 0], 0),),), ())
    assert not coupled.is_box_union()


def test_holds_and_in_region_are_exact():
    p = prop((BOX,), ((atom([0, 0], [1, -1], 0),), (atom([0, 0], [0, 1], -10),)))
    assert p.in_region([q("1/2"), q("-1/2")]) and not p.in_region([q("1/2") + q(1) / q(10**30), q(0)])
    assert p.holds([q(0), q(0)], [q(1), q(1)])            # Y_0 - Y_1 <= 0, on the boundary
    assert not p.holds([q(0), q(0)], [q(1) + q("1e-40"), q(1)])
    assert p.holds([q(0), q(0)], [q(5), q(-10)])          # the second disjunct
    with pytest.raises(InputError):
        p.holds([q(0)], [q(0), q(0)])


def test_str_of_an_atom():
    assert str(atom([1, "-1/2"], [0, 3], 2)) == "X_0 - 1/2*X_1 + 3*Y_1 <= 2"
