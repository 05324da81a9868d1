"""The complete decision procedure: proofs with checkable certificates, exact refutations."""

import pytest

from symrel.checking import check_certificate
from symrel.exact import rational as r
from symrel.fileformat import canonical_dumps, loads
from symrel.models import Box, CPWL1D
from symrel.constructions import relu_to_maxout, to_maxout
from symrel.certificates.io import certificate_of
from symrel.regions import decide_equivalence

from .regions_fixtures import small_relu_net, tie_transformer

D2 = Box([[-1, 1], [-1, 1]])


def _roundtrip(cert):
    return loads(canonical_dumps(cert))


def test_relu_net_equals_its_maxout_form_with_a_certificate():
    net = small_relu_net()
    proof = decide_equivalence(net, relu_to_maxout(net), D2)
    assert proof.result == "proved"
    cert = _roundtrip(certificate_of(proof))
    assert check_certificate(cert)["result"] == "checked"
    assert cert["claim"]["kind"] == "equivalence-cells" and cert["claim"]["mode"] == "open"


def test_broken_weight_is_refuted_with_an_exact_counterexample():
    net = small_relu_net()
    broken = small_relu_net(eps="1/1000000")
    proof = decide_equivalence(relu_to_maxout(net), broken, D2)
    assert proof.result == "refuted"
    x = proof.counterexample
    assert D2.contains(x)
    assert relu_to_maxout(net).evaluate(x) != broken.evaluate(x)


def test_cpwl_against_its_lattice_form_and_a_perturbed_one():
    f = CPWL1D([0, "1/3", 1, 2], [0, 1, "-1/2", 2])
    D = Box([[-1, 3]])
    assert decide_equivalence(f, to_maxout(f), D).result == "proved"
    g = CPWL1D([0, "1/3", 1, 2], [0, 1, "-1/2", r(2) + r("1/1000000")])
    proof = decide_equivalence(f, g, D)
    assert proof.result == "refuted" and f(proof.counterexample) != g(proof.counterexample)


def test_maxout_equals_the_compiled_transformer():
    compiler = pytest.importorskip("symrel.compiler")
    mx = to_maxout(CPWL1D([0, 1, 2], [0, 1, 0]))
    D = Box([[-1, 3]])
    tf = compiler.compile_model(mx, D).transformer
    proof = decide_equivalence(mx, tf, D)
    assert proof.result == "proved"
    cert = _roundtrip(certificate_of(proof))
    assert cert["claim"]["mode"] == "exact"  # a hardmax model: ties decided exactly
    assert check_certificate(cert)["result"] == "checked"


def test_discontinuous_tie_is_told_apart_exactly_on_the_tie():
    jumpy = tie_transformer(1)   # 0 off the tie, 1/3 at x = 0
    flat = tie_transformer(0)    # 0 everywhere: the continuous twin
    D = Box([[-1, 1]])
    proof = decide_equivalence(jumpy, flat, D)
    assert proof.result == "refuted"
    assert proof.counterexample == [r(0)]
    assert jumpy.evaluate([0]) == [r("1/3")] and flat.evaluate([0]) == [r(0)]
    # off the tie they agree everywhere: the open cells alone would not see it
    assert jumpy.evaluate(["1/1000"]) == flat.evaluate(["1/1000"]) == [r(0)]


def test_equal_hardmax_models_prove_with_tie_cells():
    proof = decide_equivalence(tie_transformer(1), tie_transformer(1), Box([[-1, 1]]))
    assert proof.result == "proved"
    assert check_certificate(_roundtrip(certificate_of(proof)))["result"] == "checked"


def test_cell_limit_leaves_the_claim_open():
    net = small_relu_net()
    proof = decide_equivalence(net, relu_to_maxout(net), D2, max_cells=2)
    assert proof.result == "open" and "cell limit" in proof.obstacle
    assert proof.exit_code == 3


def test_mismatched_dimensions_are_bad_input():
    from symrel.errors import InputError

    with pytest.raises(InputError):
        decide_equivalence(small_relu_net(), small_relu_net(), Box([[0, 1]]))


def test_relu_maxout_and_compiled_transformer_chain():
    compiler = pytest.importorskip("symrel.compiler")
    from .regions_fixtures import tent_net

    net = tent_net(2)
    mx = relu_to_maxout(net)
    D = Box([[0, 1]])
    tf = compiler.compile_model(net, D).transformer
    for a, b in ((net, mx), (mx, tf), (net, tf)):
        proof = decide_equivalence(a, b, D)
        assert proof.result == "proved"
        assert check_certificate(_roundtrip(certificate_of(proof)))["result"] == "checked"
    # the compiled Transformer with one weight moved by 1/10^6 is refuted, exactly
    from symrel.fileformat import from_json, to_json

    obj = to_json(tf)
    obj["readout"]["b"] = ["1/1000000"] + obj["readout"]["b"][1:]
    broken = from_json(obj)
    proof = decide_equivalence(net, broken, D)
    assert proof.result == "refuted"
    assert net.evaluate(proof.counterexample) != broken.evaluate(proof.counterexample)


def test_process_pool_gives_a_checkable_certificate():
    from concurrent.futures import ProcessPoolExecutor

    net = small_relu_net()
    with ProcessPoolExecutor(max_workers=2) as ex:
        proof = decide_equivalence(net, relu_to_maxout(net), D2, executor=ex)
    assert proof.result == "proved"
    assert check_certificate(_roundtrip(certificate_of(proof)))["result"] == "checked"
