import pytest

from symrel.errors import DimensionError, InputError
from symrel.exact import affine_batch, columns, dot, format_matrix, from_columns, hstack, identity, matrix, rational, rows, vector, vstack, zeros


def test_matrix_parsing_and_shape_errors():
    M = matrix([[1, "1/2"], ["-3", 0]])
    assert format_matrix(M) == [[1, "1/2"], [-3, 0]]
    with pytest.raises(DimensionError, match=r"W\[1\]"):
        matrix([[1, 2], [3]], path="W")
    with pytest.raises(DimensionError, match=r"W\[0\]: expected a row of 3 numbers"):
        matrix([[1, 2]], path="W", shape=(None, 3))
    with pytest.raises(InputError, match=r"W\[0\]\[1\]"):
        matrix([[1, "x"]], path="W")


def test_affine_batch_matches_pointwise():
    W = matrix([[1, 2], ["1/3", -1]])
    b = vector([1, "-1/2"])
    pts = [[rational(1), rational(2)], [rational("1/2"), rational(-4)]]
    Y = affine_batch(W, b, from_columns(pts))
    for p, y in zip(pts, columns(Y)):
        assert y == [dot(r, p) + c for r, c in zip(rows(W), [rational(1), rational("-1/2")])]


def test_stacking_and_identity():
    I = identity(2)
    assert rows(hstack(I, zeros(2, 1))) == [[1, 0, 0], [0, 1, 0]]
    assert vstack(I, I).shape == (4, 2)
    assert (I * matrix([[3], [4]])) == matrix([[3], [4]])
