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


def _random_rows(rng, m, n, rank=None):
    """An ``m x n`` list of rows of small rationals; with ``rank``, of at most that rank."""
    Q = rational(1).__class__
    if rank is None:
        return [[Q(rng.randint(-4, 4), rng.randint(1, 3)) for _ in range(n)] for _ in range(m)]
    basis = _random_rows(rng, rank, n)
    return [[sum((c * b[j] for c, b in zip(coeffs, basis)), Q(0)) for j in range(n)]
            for coeffs in _random_rows(rng, m, rank)]


@pytest.mark.parametrize("pure", [False, True], ids=["ground", "pure-python"])
def test_matrix_algebra_agrees_with_sympy(monkeypatch, pure):
    """Products, inverses, determinants, ranks and echelon forms of :class:`Matrix` (flint's
    ``fmpq_mat`` above a size, Gauss-Jordan in Python otherwise) against sympy's DomainMatrix."""
    import random

    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    from symrel.exact import matrices
    from symrel.exact.matrices import Matrix, SingularMatrixError, from_rationals

    if pure:
        monkeypatch.setattr(matrices, "FMPQ_MAT", None)
    rng = random.Random(7)

    def dm(rows_, shape):
        return DomainMatrix([[QQ(int(v.numerator), int(v.denominator)) for v in r] for r in rows_], shape, QQ)

    def same(M, D):
        return M.shape == D.shape and [[str(v) for v in r] for r in M.to_list()] == \
            [[str(v) for v in r] for r in D.to_dense().to_list()]

    for m, k, n in [(1, 1, 1), (2, 3, 4), (3, 1, 2), (9, 9, 9), (12, 5, 10)]:
        A, B = _random_rows(rng, m, k), _random_rows(rng, k, n)
        assert same(from_rationals(A) * from_rationals(B), dm(A, (m, k)) * dm(B, (k, n)))
    for n, rank in [(1, 1), (3, 3), (4, 2), (6, 6), (5, 0)]:
        A = _random_rows(rng, n, n, rank)
        M, D = from_rationals(A, (n, n)), dm(A, (n, n))
        assert M.det() == D.det() and M.rank() == D.rank()
        R, pivots = M.rref()
        R2, pivots2 = D.rref()
        assert same(R, R2) and pivots == tuple(pivots2)
        if D.det():
            assert same(M.inv(), D.inv()) and M * M.inv() == matrices.identity(n)
        else:
            with pytest.raises(SingularMatrixError):
                M.inv()
    W = from_rationals(_random_rows(rng, 3, 5))
    assert same(W.transpose(), dm(W.to_list(), (3, 5)).transpose()) and isinstance(W.transpose(), Matrix)
    assert W - W == zeros(3, 5) and (W + W) == W * rational(2) == 2 * W and (-W).is_zero_matrix is False
