import json
import random

import pytest

from symrel.checking import check_certificate
from symrel.compiler import compile_maxout, compile_model
from symrel.exact import Q
from symrel.models import AffineMap, Box, CPWL1D, MaxoutLayer, MaxoutNet, MaxoutUnit
from symrel.constructions.random import random_cpwl1d, random_maxout_net, random_relu_net
from symrel.certificates.io import certificate_of
from symrel.prover import prove_equivalence


def _checked(proof):
    assert proof.result == "proved", proof.obstacle
    cert = json.loads(json.dumps(certificate_of(proof)))
    assert check_certificate(cert)["result"] == "checked"
    return cert


# (input dim, widths, rank range): dims 1-8, depth 1-6, widths up to 32, ranks 2-5
CASES = [
    (1, [3], (2, 5)),
    (2, [4, 3], (2, 3)),
    (3, [2, 5, 2], (2, 4)),
    (8, [3, 3, 2, 2, 3, 2], (2, 3)),
    (5, [32], (2, 2)),
    (4, [6, 6, 6, 6], (4, 5)),
    (6, [1, 1, 1, 1, 1, 1], (5, 5)),
]


@pytest.mark.parametrize("d, widths, rank", CASES)
def test_random_maxout_nets_are_proved_equal_to_their_transformer(d, widths, rank):
    net = random_maxout_net(random.Random(d * 100 + len(widths)), d, widths, rank=rank, max_num=8, max_den=4)
    D = Box([[-1, 1]] * (d - 1) + [["-1/2", 2]])
    t = compile_maxout(net, D).transformer
    proof = prove_equivalence(net, t, D)
    cert = _checked(proof)
    # one lemma per block, an embedding and a read-out lemma for B; one per layer for A
    rules = [s["rule"] for s in cert["steps"]]
    assert rules.count("embedding") == 1 and len(rules) == 1 + len(widths) + 1 + 1 + 3 * len(widths) + 1 + 1
    assert "hardmax-max-head" in " ".join(rules) and "relu-fixed-sign" in " ".join(rules)


def test_relu_and_cpwl_models_are_proved_against_their_compilation():
    rng = random.Random(7)
    relu = random_relu_net(rng, 3, [4, 3], max_num=6, max_den=3)
    D = Box.cube(3)
    _checked(prove_equivalence(relu, compile_model(relu, D).transformer, D))
    f = random_cpwl1d(rng, 5)
    D1 = Box([[-30, 30]])
    cert = _checked(prove_equivalence(f, compile_model(f, D1).transformer, D1))
    assert cert["steps"][1]["rule"] == "cpwl-lattice-check"


def _reordered_and_duplicated(net: MaxoutNet) -> MaxoutNet:
    """Pieces of every unit reversed, the first unit of every layer duplicated (the next
    layer reads the copy with half the weight of the original)."""
    layers, prev_dup = [], False
    for layer in net.layers:
        units = []
        for u in layer.units:
            W, b = [list(r) for r in u.pieces.exact_W.to_list()][::-1], u.pieces.exact_b.to_list()[::-1]
            if prev_dup:  # the input has one extra coordinate (the copy of unit 0)
                W = [[w[0] / 2] + w[1:] + [w[0] / 2] for w in W]
            units.append(MaxoutUnit(W, [c[0] for c in b]))
        units.append(units[0])
        layers.append(MaxoutLayer(units))
        prev_dup = True
    W = [[r[0] / 2] + r[1:] + [r[0] / 2] for r in net.readout.exact_W.to_list()]
    return MaxoutNet(net.input_dim, layers, AffineMap(W, [c[0] for c in net.readout.exact_b.to_list()]))


def test_equivalent_but_different_nets_are_proved():
    net = random_maxout_net(random.Random(3), 2, [3, 3], rank=3, max_num=8, max_den=4)
    other = _reordered_and_duplicated(net)
    D = Box.cube(2)
    pts = D.sample(20, seed=1)
    assert other.evaluate_points(pts) == net.evaluate_points(pts)
    _checked(prove_equivalence(net, compile_maxout(other, D).transformer, D))
    _checked(prove_equivalence(other, net, D))          # maxout against maxout


@pytest.mark.parametrize("seed", [0, 1, 2, 4])
def test_wrong_domain_is_refuted_outside_the_first_box(seed):
    net = random_maxout_net(random.Random(seed), 2, [3, 2], rank=3, max_num=8, max_den=4)
    t = compile_maxout(net, Box.cube(2)).transformer
    big = Box.cube(2, -4, 4)
    proof = prove_equivalence(net, t, big)
    assert proof.result == "refuted"
    x = proof.counterexample
    assert big.contains(x) and not Box.cube(2).contains(x)
    assert net.evaluate(x) != t.evaluate(x)


def test_larger_box_within_the_margin_is_proved(without_complete_procedure):
    # the margin covers the larger box exactly: B on [-2, 2]^2 minus B on [-1, 1]^2
    net = random_maxout_net(random.Random(11), 2, [3, 2], rank=3, max_num=8, max_den=4)
    small, big = Box.cube(2), Box.cube(2, -2, 2)
    need = max(gb.bound - gs.bound for gs, gb in zip(compile_maxout(net, small).gates, compile_maxout(net, big).gates))
    comp = compile_maxout(net, small, margin=need)
    _checked(prove_equivalence(net, comp.transformer, big))
    # one notch less and a gate fails on the larger box, but the function does not change
    # (z3 agrees): the outputs come out as different forms, and the decision on the cells of
    # the nodes they depend on proves it, without the complete procedure of symrel.regions
    tight = compile_maxout(net, small, margin=need - Q(1, 10**6)).transformer
    proof = prove_equivalence(net, tight, big)
    assert proof.steps[-1].rule == "node-cells"
    _checked(proof)


def test_single_unit_robust_outside_its_box_is_not_refuted():
    # max(x, -x) compiled for [-1, 1] happens to stay right on [-3, 3] (the gating fails,
    # the function does not): the prover must not refute it, and proves it when the
    # complete procedure is present
    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])])
    t = compile_maxout(net, Box([[-1, 1]])).transformer
    proof = prove_equivalence(net, t, Box([[-3, 3]]))
    assert proof.result in ("proved", "open")


def test_non_corresponding_layers_are_decided_on_the_cells_of_their_nodes(without_complete_procedure):
    # max(x, y) - max(-x, -y) = x + y, but not layer by layer: the outputs differ as forms
    # and are proved equal on the cells of the two max nodes, without symrel.regions
    a = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [0, 1]]), MaxoutUnit([[-1, 0], [0, -1]])])],
                  AffineMap([[1, -1]]))
    b = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 1]])])])
    proof = prove_equivalence(a, b, Box.cube(2))
    assert proof.steps[-1].rule == "node-cells"
    _checked(proof)


def test_tampered_transformer_is_refuted_with_a_verified_counterexample():
    net = random_maxout_net(random.Random(5), 3, [4, 3], rank=3, max_num=8, max_den=4)
    D = Box.cube(3)
    t = compile_maxout(net, D).transformer
    from symrel.mutation.mutants import mutant

    bad = mutant(t, "readout.b[0]", "+tiny")
    proof = prove_equivalence(net, bad, D)
    assert proof.result == "refuted"
    assert net.evaluate(proof.counterexample) != bad.evaluate(proof.counterexample)
    assert proof.steps[-1].certificate["counterexample"]


def test_mismatched_dimensions_are_input_errors():
    from symrel.errors import InputError

    net = random_maxout_net(random.Random(1), 2, [2], rank=2)
    with pytest.raises(InputError):
        prove_equivalence(net, net, Box.cube(3))
    with pytest.raises(InputError):
        prove_equivalence(net, CPWL1D([0, 1], [0, 1]), Box.cube(2))


def test_value_other_than_score_is_an_obstacle_or_argmax_rule():
    # a selection head: the carrier wins on C-slot scores; exercised through compile of a rank-1 net
    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[2]], [Q(1)])])])
    D = Box([[-1, 1]])
    _checked(prove_equivalence(net, compile_maxout(net, D).transformer, D))


def test_executor_is_used_for_the_counterexample_search(without_complete_procedure):
    from concurrent.futures import ThreadPoolExecutor

    net = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [2]])])])        # max(x, 2x)
    t = compile_maxout(net, Box([[-1, 1]])).transformer
    with ThreadPoolExecutor(2) as ex:
        proof = prove_equivalence(net, t, Box([[-3, 3]]), executor=ex)
    assert proof.result == "refuted" and net.evaluate(proof.counterexample) != t.evaluate(proof.counterexample)


def test_polytope_domain(without_complete_procedure):
    from symrel.models import Polytope

    net = random_maxout_net(random.Random(1), 2, [3, 2], rank=3, max_num=6, max_den=3)
    P = Polytope([[1, 1], [-1, 0], [0, -1], [1, -2]], [1, 0, 0, "1/2"])
    cert = _checked(prove_equivalence(net, compile_maxout(net, P).transformer, P))
    assert cert["steps"][0]["certificate"]["duals"]
    big = Polytope([[1, 1], [-1, 0], [0, -1]], [6, 0, 0])
    proof = prove_equivalence(net, compile_maxout(net, P).transformer, big)
    assert proof.result == "refuted" and big.contains(proof.counterexample) and not P.contains(proof.counterexample)
