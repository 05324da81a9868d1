import random

import pytest

from symrel.errors import DimensionError
from symrel.exact import Q, from_rationals, matrix
from symrel.relations.examples import random_gram_relation
from symrel.relations.ldl import ldl_product, ldl_psd, quadratic_form


def _check_certificate(R, cert):
    n = R.shape[0]
    assert all(cert.L[i][i] == 1 and all(cert.L[i][j] == 0 for j in range(i + 1, n)) for i in range(n))
    assert all(d >= 0 for d in cert.D)
    assert ldl_product(cert.L, cert.D) == R


@pytest.mark.parametrize("n, rank, seed", [(1, 1, 0), (5, 5, 1), (8, 3, 2), (12, 12, 3), (20, 7, 4), (25, 1, 5)])
def test_random_psd_tables_factor_exactly(n, rank, seed):
    R = random_gram_relation(n, rank, seed=seed).exact_R
    cert = ldl_psd(R)
    assert cert.psd
    assert cert.rank == R.rank() == min(n, rank)
    _check_certificate(R, cert)


def test_zero_matrix_and_zero_rows():
    cert = ldl_psd(matrix([[0, 0], [0, 0]]))
    assert cert.psd and cert.D == [0, 0]
    R = matrix([[0, 0, 0], [0, 2, 1], [0, 1, 1]])
    cert = ldl_psd(R)
    assert cert.psd and cert.rank == 2
    _check_certificate(R, cert)


@pytest.mark.parametrize(
    "rows_",
    [
        [[-1]],
        [[0, 1], [1, 0]],
        [[1, 2], [2, 1]],
        [[0, 0, 1], [0, 0, 0], [1, 0, 5]],  # zero pivot, nonzero entry further down
        [[1, 1, 1], [1, 1, 1], [1, 1, "1/2"]],  # zero pivot after elimination, negative later
    ],
)
def test_non_psd_witnesses_are_verified(rows_):
    R = matrix(rows_)
    w = ldl_psd(R)
    assert not w.psd
    # recompute z^T R z from scratch, without the library's quadratic_form
    z = w.z
    value = sum(z[i] * R.to_list()[i][j] * z[j] for i in range(len(z)) for j in range(len(z)))
    assert value == w.value < 0


def test_random_perturbations_are_refused_with_witness():
    rng = random.Random(11)
    for seed in range(6):
        rel = random_gram_relation(10, 6, seed=seed)
        n = 10
        k = rng.randrange(n)
        # rank-deficient PSD minus a tiny diagonal entry: no longer PSD
        E = from_rationals([[Q(-1, 10**6) if i == j == k else Q(0) for j in range(n)] for i in range(n)], (n, n))
        R = rel.exact_R + E
        w = ldl_psd(R)
        assert not w.psd
        assert quadratic_form(R, w.z) == w.value < 0


def test_non_square_refused():
    with pytest.raises(DimensionError):
        ldl_psd(matrix([[1, 2]]))


def test_sixty_by_sixty_rank_deficient_and_perturbed():
    rel = random_gram_relation(60, 35, seed=60, size=2, max_den=2)
    cert = ldl_psd(rel.R)
    assert cert.psd and cert.rank == 35
    _check_certificate(rel.exact_R, cert)
    n = 60
    E = from_rationals([[Q(-1, 10**6) if i == j == 59 else Q(0) for j in range(n)] for i in range(n)], (n, n))
    w = ldl_psd(rel.exact_R + E)
    assert not w.psd and quadratic_form(rel.exact_R + E, w.z) == w.value < 0
