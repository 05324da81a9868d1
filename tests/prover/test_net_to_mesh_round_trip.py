"""The round trip ReLU net -> cpwl mesh (its exact cells, triangulated, any input
dimension) -> maxout (the lattice form) -> hardmax Transformer, proved equal to the
original ReLU net with a certificate that checks; a mutant net (one weight moved by
1/10^6) is refuted with an exact counterexample."""

import random

import pytest

from symrel.certificates.io import certificate_of
from symrel.checking import check_certificate
from symrel.compiler import compile_model
from symrel.exact import Q
from symrel.models import Box, DenseLayer, Polytope, ReLUNet
from symrel.constructions import cpwl_mesh_to_maxout
from symrel.prover import prove_equivalence
from symrel.regions import net_to_cpwl_mesh


def _layers(seed, d, h1=2, h2=1):
    rng = random.Random(seed)
    row = lambda n: [Q(rng.randint(-3, 3)) for _ in range(n)]        # noqa: E731
    return [([row(d) for _ in range(h1)], [Q(rng.randint(-3, 3), 4) for _ in range(h1)], "relu"),
            ([row(h1) for _ in range(h2)], [Q(rng.randint(-3, 3), 4) for _ in range(h2)], "relu"),
            ([row(h2)], [Q(0)], "none")]


def _net(layers, d):
    return ReLUNet(d, [DenseLayer(W, b, act) for W, b, act in layers])


CASES = {4: (10, Box([[-1, 1]] * 4)),
         5: (1, Polytope([[-1 if i == j else 0 for j in range(5)] for i in range(5)] + [[1] * 5], [1] * 5 + [1]))}


@pytest.mark.parametrize("d", [4, 5])
def test_relu_net_to_mesh_to_transformer_is_proved_and_a_mutant_refuted(d):
    seed, D = CASES[d]
    layers = _layers(seed, d)
    net = _net(layers, d)
    f = net_to_cpwl_mesh(net, D)                    # conforming: the CPWLMesh check ran
    rng = random.Random(d)
    points = [x for x in ([Q(rng.randint(-100, 100), 100) for _ in range(d)] for _ in range(80)) if D.contains(x)]
    assert len(points) > 5 and all(f(x) == net(x) for x in points)
    T = compile_model(cpwl_mesh_to_maxout(f), D).transformer
    proof = prove_equivalence(net, T, D)
    assert proof.result == "proved", proof.obstacle
    assert check_certificate(certificate_of(proof))["result"] == "checked"
    layers[0][0][0][0] += Q(1, 10**6)               # the mutant: one weight moved
    mutant = _net(layers, d)
    bad = prove_equivalence(mutant, T, D)
    x = bad.counterexample
    assert bad.result == "refuted" and D.contains(x) and mutant(x) != T(x) and T(x) == net(x)
