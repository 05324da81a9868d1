import pytest

from symrel.errors import DimensionError, InputError
from symrel.exact import Q, matrix
from symrel.constructions.interpolate import interpolating_relu_net
from symrel.relations import Relation, RelationFeatures


def test_one_set_and_symmetry():
    rel = Relation([[0], [1]], [[1, 2], [2, 5]])
    assert rel.one_set and rel.is_symmetric() and rel.asymmetric_pair() is None
    rel = Relation([[0], [1]], [[1, 2], [3, 5]])
    assert rel.one_set and not rel.is_symmetric() and rel.asymmetric_pair() == (0, 1)
    rel = Relation([[0], [1]], [[1, 2], [2, 5]], y=[[0], [2]])
    assert not rel.one_set and not rel.is_symmetric()
    # y equal to x counts as one set
    assert Relation([[0], [1]], [[1, 2], [2, 5]], y=[[0], [1]]).is_symmetric()


def test_shapes_are_checked_with_paths():
    with pytest.raises(DimensionError) as info:
        Relation([[0], [1]], [[1, 2]])
    assert info.value.path == "r"
    with pytest.raises(DimensionError) as info:
        Relation([[0], [1]], [[1, 2], [1]])
    assert info.value.path == "r[1]"
    with pytest.raises(InputError) as info:
        Relation([[0], [1, 2]], [[1, 2], [2, 1]])
    assert info.value.path == "x[1]"
    with pytest.raises(InputError) as info:
        Relation([[0]], [["x"]])
    assert info.value.path == "r[0][0]"
    with pytest.raises(DimensionError):
        Relation([[0], [1]], matrix([[1, 2, 3], [4, 5, 6]]))


def test_repeated_points_need_equal_rows_and_columns():
    Relation([[0], [0]], [[1, 1], [1, 1]])  # fine
    with pytest.raises(InputError) as info:
        Relation([[0], [1]], [[1, 2], [1, 3]], y=[[5], [5]])
    assert info.value.path == "y[1]" and "column 1" in str(info.value)


def test_features_value_and_dimension_mismatch():
    phi = interpolating_relu_net([[0], [1]], [[1, 0], [0, 1]])
    f = RelationFeatures(phi)
    assert f.psi is phi and f.dimension == 2
    assert f.value([0], [1]) == Q(0) and f.value([1], [1]) == Q(1)
    psi = interpolating_relu_net([[0], [1]], [[1], [2]])
    with pytest.raises(DimensionError) as info:
        RelationFeatures(phi, psi)
    assert info.value.path == "psi"
