import pytest

from symrel.exact import Q, dot
from symrel.models import DenseLayer, ReLUNet
from symrel.relations import RelationFeatures, factor_relation, factors_to_features, prove_relation
from symrel.relations.examples import random_gram_relation, random_relation


def mutate_first_output_weight(net: ReLUNet, delta=Q(1, 10**6)) -> ReLUNet:
    """The same net with one read-out weight moved by ``delta``."""
    layers = list(net.layers)
    last = layers[-1]
    W = last.affine.exact_W.to_list()
    W[0][0] += delta
    layers[-1] = DenseLayer(W, [r[0] for r in last.affine.exact_b.to_list()], last.activation)
    return ReLUNet(net.input_dim, layers)


def test_symmetric_proof_with_ldl_step():
    rel = random_gram_relation(9, 4, seed=5)
    fac = factor_relation(rel, symmetric=True)
    proof = prove_relation(rel, factors_to_features(rel, fac), symmetric=True, ldl=fac.ldl)
    assert proof.proved
    assert [s.rule for s in proof.steps[:2]] == ["table-psd", "feature-values"]
    assert sum(s.rule == "table-row" for s in proof.steps) == 9


def test_asymmetric_proof():
    rel = random_relation(7, 5, 3, seed=2)
    fac = factor_relation(rel)
    proof = prove_relation(rel, factors_to_features(rel, fac))
    assert proof.proved and proof.claim_data["dimension"] == 3


@pytest.mark.parametrize("which", ["phi", "psi"])
def test_mutated_net_is_refuted_with_the_failing_entry(which):
    rel = random_relation(8, 6, 3, seed=4)
    feats = factors_to_features(rel, factor_relation(rel))
    bad = RelationFeatures(mutate_first_output_weight(feats.phi), feats.psi) if which == "phi" else \
        RelationFeatures(feats.phi, mutate_first_output_weight(feats.psi))
    proof = prove_relation(rel, bad)
    assert proof.result == "refuted"
    i, j = proof.extra["failing_entry"]
    # the counterexample is verified by plain exact evaluation
    assert dot(bad.phi(rel.x[i]), bad.psi(rel.ys[j])) != rel.entry(i, j)
    assert proof.counterexample == list(rel.x[i]) + list(rel.ys[j])
    assert f"entry ({i}, {j})" in proof.counterexample_note


def test_symmetric_claim_needs_one_net():
    rel = random_gram_relation(5, 2, seed=1)
    feats = factors_to_features(rel, factor_relation(rel, symmetric=True))
    other = RelationFeatures(feats.phi, mutate_first_output_weight(feats.phi, Q(0)))  # equal, distinct object
    assert prove_relation(rel, other, symmetric=True).proved
    bad = RelationFeatures(feats.phi, mutate_first_output_weight(feats.phi))
    assert prove_relation(rel, bad, symmetric=True).result == "refuted"
