import pytest

from symrel.exact import from_rationals, matrix
from symrel.relations.examples import random_gram_relation, random_relation
from symrel.relations.ldl import NotPSDWitness
from symrel.relations.table_to_factors import gram_factors, rank_factors


def _product(P, Q):
    k = len(P[0])
    return from_rationals(P, (len(P), k)) * from_rationals(Q, (len(Q), k)).transpose()


@pytest.mark.parametrize("n, rank, seed", [(1, 1, 0), (6, 2, 1), (10, 10, 2), (16, 5, 3), (24, 12, 4)])
def test_gram_factors_reproduce_psd_tables(n, rank, seed):
    R = random_gram_relation(n, rank, seed=seed).exact_R
    f = gram_factors(R)
    assert f.symmetric and f.rank == min(n, rank)
    assert f.rank <= f.dimension <= 4 * f.rank
    assert f.dimension <= sum(f.squares_per_pivot)
    assert _product(f.P, f.P) == R


def test_gram_factors_reduce_square_pivots():
    # the identity and squares of rationals need one square per pivot
    f = gram_factors(matrix([[4, 0], [0, "9/4"]]))
    assert f.dimension == 2 and f.squares_per_pivot == [1, 1]
    f = gram_factors(matrix([[0, 0], [0, 0]]))
    assert f.dimension == 1 and f.rank == 0  # one zero feature
    assert _product(f.P, f.P) == matrix([[0, 0], [0, 0]])


@pytest.mark.parametrize(
    "diagonal, dimension",
    [
        (["2", "2", "2", "2"], 4),  # sums of two squares, one class: 2 features per pair
        (["7", "7", "7", "7"], 4),  # four squares each, one class: 4 features instead of 16
        (["7", "28", "63"], 4),  # 28 = 7 * 2^2, 63 = 7 * 3^2: one class of three
        (["7", "3", "7", "3"], 8),  # two classes of two: 4 + 4 (not 4 + 3 + 4 + 3)
        (["1", "4", "0", "9/4"], 3),  # squares: one feature each, zero pivot dropped
    ],
)
def test_square_classes_share_features(diagonal, dimension):
    n = len(diagonal)
    R = matrix([[diagonal[i] if i == j else 0 for j in range(n)] for i in range(n)])
    f = gram_factors(R)
    assert f.dimension == dimension
    assert _product(f.P, f.P) == R
    # the same with a dense change of basis (pivots keep their square classes)
    L = matrix([[1 if i == j else (i - j if i > j else 0) for j in range(n)] for i in range(n)])
    R2 = L * R * L.transpose()
    g = gram_factors(R2)
    assert g.dimension == dimension and _product(g.P, g.P) == R2


def test_gram_factors_refuse_non_psd():
    w = gram_factors(matrix([[1, 2], [2, 1]]))
    assert isinstance(w, NotPSDWitness) and w.value < 0


@pytest.mark.parametrize("n, m, rank, seed", [(1, 1, 1, 0), (5, 7, 2, 1), (12, 9, 9, 2), (20, 30, 6, 3)])
def test_rank_factors_have_dimension_rank(n, m, rank, seed):
    R = random_relation(n, m, rank, seed=seed).exact_R
    f = rank_factors(R)
    assert f.dimension == f.rank == R.rank()
    assert _product(f.P, f.Q) == R


def test_rank_factors_of_zero_table():
    f = rank_factors(matrix([[0, 0, 0]]))
    assert f.rank == 0 and f.dimension == 1
    assert _product(f.P, f.Q) == matrix([[0, 0, 0]])
