import pytest

from symrel.errors import InputError
from symrel.exact import dot
from symrel.relations import NotPSDError, Relation, relation_features
from symrel.relations.examples import random_gram_relation, random_relation


def _all_entries_match(rel, feats):
    # plain exact evaluation of the nets, point by point
    phis = [feats.phi(x) for x in rel.x]
    psis = [feats.psi(y) for y in rel.ys]
    table = rel.exact_R.to_list()
    return all(dot(phis[i], psis[j]) == table[i][j] for i in range(len(phis)) for j in range(len(psis)))


@pytest.mark.parametrize("n, rank, d, seed", [(3, 3, 1, 0), (8, 4, 2, 1), (15, 15, 3, 2), (20, 6, 1, 3)])
def test_symmetric_features_reproduce_every_entry(n, rank, d, seed):
    rel = random_gram_relation(n, rank, seed=seed, d=d)
    feats = relation_features(rel, symmetric=True)
    assert feats.psi is feats.phi
    assert feats.phi.num_relus <= n - 1
    assert _all_entries_match(rel, feats)


@pytest.mark.parametrize("n, m, rank, seed", [(4, 6, 2, 0), (12, 10, 5, 1), (18, 25, 9, 2)])
def test_asymmetric_features_reproduce_every_entry(n, m, rank, seed):
    rel = random_relation(n, m, rank, seed=seed)
    feats = relation_features(rel)
    assert feats.dimension == rel.exact_R.rank()
    assert feats.phi.num_relus <= n - 1 and feats.psi.num_relus <= m - 1
    assert _all_entries_match(rel, feats)


def test_repeated_points_are_fine():
    rel = Relation([[0], [1], [0]], [[2, 1, 2], [1, 1, 1], [2, 1, 2]])
    feats = relation_features(rel, symmetric=True)
    assert _all_entries_match(rel, feats)


def test_symmetric_refusals():
    with pytest.raises(NotPSDError) as info:
        relation_features(Relation([[0], [1]], [[1, 2], [2, 1]]), symmetric=True)
    assert info.value.witness.value < 0
    with pytest.raises(InputError) as info:
        relation_features(Relation([[0], [1]], [[1, 2], [3, 1]]), symmetric=True)
    assert info.value.path == "r[0][1]"
    with pytest.raises(InputError) as info:
        relation_features(Relation([[0], [1]], [[1, 2], [2, 1]], y=[[0], [2]]), symmetric=True)
    assert info.value.path == "y"


@pytest.mark.slow
def test_sixty_by_sixty_rank_deficient_psd_table():
    rel = random_gram_relation(60, 40, seed=60, size=2, max_den=1)
    feats = relation_features(rel, symmetric=True)
    assert _all_entries_match(rel, feats)
