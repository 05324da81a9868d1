import copy
import json
import random

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.compiler import compile_maxout, compile_model
from symrel.models import Box
from symrel.constructions.random import random_cpwl1d, random_maxout_net, random_relu_net
from symrel.certificates.io import certificate_of
from symrel.mutation.tamper import altered, numbers_in
from symrel.prover import prove_equivalence


def _cert(a, b, D):
    proof = prove_equivalence(a, b, D)
    assert proof.result == "proved"
    return json.loads(json.dumps(certificate_of(proof)))


@pytest.fixture(scope="module")
def small_cert():
    net = random_maxout_net(random.Random(2), 2, [2, 2], rank=3, max_num=6, max_den=3)
    D = Box([[-1, 1], ["-1/2", 1]])
    return _cert(net, compile_maxout(net, D).transformer, D)


def test_certificates_of_every_model_kind_are_accepted():
    rng = random.Random(4)
    relu = random_relu_net(rng, 2, [3, 2], max_num=5, max_den=3)
    D = Box.cube(2)
    assert check_certificate(_cert(relu, compile_model(relu, D).transformer, D))["result"] == "checked"
    f = random_cpwl1d(rng, 4)
    D1 = Box([[-25, 25]])
    assert check_certificate(_cert(f, compile_model(f, D1).transformer, D1))["result"] == "checked"
    net = random_maxout_net(rng, 2, [3], rank=2, max_num=5, max_den=3)
    assert check_certificate(_cert(net, net, D))["result"] == "checked"      # maxout against maxout


def test_every_altered_number_is_rejected(small_cert):
    assert check_certificate(small_cert)["result"] == "checked"
    paths = [p for p, _ in numbers_in(small_cert) if p.startswith("steps")]
    rng = random.Random(0)
    sample = paths if len(paths) <= 120 else rng.sample(paths, 120)
    for path in sample:
        with pytest.raises(CertificateError):
            check_certificate(altered(small_cert, path, "1/1000000"))


@pytest.mark.parametrize("change", ["drop_step", "swap_steps", "status", "rule", "input", "node_range", "outputs"])
def test_structural_tampering_is_rejected(small_cert, change):
    cert = copy.deepcopy(small_cert)
    steps = cert["steps"]
    if change == "drop_step":
        del steps[3]
    elif change == "swap_steps":
        steps[3], steps[4] = steps[4], steps[3]
    elif change == "status":
        steps[-1]["status"] = "open"
    elif change == "rule":
        steps[1]["rule"] = "linear-identity"
    elif change == "input":
        cert["inputs"]["a"]["object"]["layers"][0]["units"][0]["pieces"][0]["b"] = "7/3"
    elif change == "node_range":
        node = next(n for s in steps for n in s["certificate"].get("nodes", []))
        node["range"][1] = "1000"
    elif change == "outputs":
        steps[-1]["certificate"]["outputs"][0][0] = "123"
    with pytest.raises(CertificateError) as err:
        check_certificate(cert)
    assert "step" in str(err.value) or "inputs" in str(err.value)


def test_failure_message_names_the_step(small_cert):
    path = next(p for p, _ in numbers_in(small_cert) if ".hidden" in p)
    with pytest.raises(CertificateError, match=r"^steps\[\d+\]\.certificate\.hidden\[\d+\]\[\d+\] \("):
        check_certificate(altered(small_cert, path, "1/3"))


def test_polytope_bounding_box_duals_are_checked():
    from symrel.models import Polytope

    net = random_maxout_net(random.Random(1), 2, [2], rank=2, max_num=6, max_den=3)
    P = Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])
    cert = _cert(net, compile_maxout(net, P).transformer, P)
    assert check_certificate(cert)["result"] == "checked"
    for path in [p for p, _ in numbers_in(cert) if ".duals" in p or "steps[0].certificate.box" in p]:
        with pytest.raises(CertificateError, match=r"^steps\[0\]\.certificate\.(box|duals\[\d+\]) \(domain-box\)"):
            check_certificate(altered(cert, path, "1/1000000"))


@pytest.mark.parametrize("kind", ["relu", "cpwl1d", "transformer-first"])
def test_altered_numbers_are_rejected_for_every_model_kind(kind):
    rng = random.Random(4)
    if kind == "cpwl1d":
        a, D = random_cpwl1d(rng, 4), Box([[-25, 25]])
    else:
        a, D = random_relu_net(rng, 2, [3, 2], max_num=5, max_den=3), Box.cube(2)
    t = compile_model(a, D).transformer
    cert = _cert(t, a, D) if kind == "transformer-first" else _cert(a, t, D)
    paths = [p for p, _ in numbers_in(cert)]
    # every scalar field (layer and block numbers, ids, ranks, bounds) and a sample of the rest
    picked = [p for p in paths if not p.endswith("]")] + random.Random(1).sample(paths, 60)
    for path in picked:
        with pytest.raises(CertificateError):
            check_certificate(altered(cert, path, "1/1000000"))


def _linear_certificate(a, b, box, outputs_a, outputs_b):
    from symrel.fileformat import sha256_of

    inputs = {"a": a, "b": b, "domain": {"symrel": 1, "kind": "box", "bounds": box}}
    return {"symrel": 1, "kind": "certificate", "claim": {"kind": "equivalence", "a": "a", "b": "b", "domain": "domain"},
            "inputs": {k: {"object": v, "sha256": sha256_of(v)} for k, v in inputs.items()},
            "steps": [{"rule": "domain-box", "status": "proved", "certificate": {"box": box}},
                      {"rule": "linear-identity", "status": "proved",
                       "certificate": {"model": "a", "layer": 0, "nodes": [], "outputs": outputs_a}},
                      {"rule": "linear-identity", "status": "proved",
                       "certificate": {"model": "b", "layer": 0, "nodes": [], "outputs": outputs_b}},
                      {"rule": "linear-identity", "status": "proved", "certificate": {"outputs": outputs_a}}]}


def test_a_row_of_many_distinct_denominators_stops_at_the_form_digits_limit():
    # 20 weights 1/(10^39 + i): their common denominator has about 800 digits, beyond 10 x 50
    from symrel.checking import MalformedCertificate
    from symrel.exact import number_limits

    n = 20
    a = {"symrel": 1, "kind": "relu", "input_dim": n,
         "layers": [{"W": [[f"1/{10 ** 39 + i}" for i in range(n)]], "b": [0], "activation": "none"}]}
    b = {"symrel": 1, "kind": "relu", "input_dim": n, "layers": [{"W": [[0] * n], "b": [0], "activation": "none"}]}
    cert = _linear_certificate(a, b, [[0, 1]] * n, [[0, []]], [[0, []]])
    with number_limits(max_digits=50), pytest.raises(MalformedCertificate, match="form-digits"):
        check_certificate(cert)
    with pytest.raises(CertificateError, match="differ"):     # within the default limit: compared, and refused
        check_certificate(cert)


def test_the_models_input_and_output_dimensions_are_the_domains():
    x = [0, [[0, 1]]]
    one_in = {"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [{"W": [[1]], "b": [0], "activation": "none"}]}
    two_in = {"symrel": 1, "kind": "relu", "input_dim": 2, "layers": [{"W": [[1, 0]], "b": [0], "activation": "none"}]}
    two_out = {"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [{"W": [[1], [1]], "b": [0, 0], "activation": "none"}]}
    assert check_certificate(_linear_certificate(one_in, one_in, [[0, 1]], [x], [x]))["result"] == "checked"
    with pytest.raises(CertificateError, match="2 inputs, the domain has dimension 1"):
        check_certificate(_linear_certificate(two_in, one_in, [[0, 1]], [x], [x]))
    with pytest.raises(CertificateError, match="outputs"):
        check_certificate(_linear_certificate(two_out, one_in, [[0, 1]], [x, x], [x]))


def test_a_polytope_certificate_records_the_lexicographic_minimum():
    from symrel.models import Polytope

    tri = Polytope([[-1, 0], [0, -1], [1, 1]], [0, 0, 1])
    net = random_relu_net(random.Random(5), 2, [2], max_num=3, max_den=2)
    cert = _cert(net, net, tri)
    assert cert["steps"][0]["certificate"]["witness"] == [0, 0]
    assert check_certificate(cert)["result"] == "checked"
    for witness in ([0, 1], [1, 0], ["1/3", "1/3"]):     # points of D, not its lexicographic minimum
        bad = copy.deepcopy(cert)
        bad["steps"][0]["certificate"]["witness"] = witness
        with pytest.raises(CertificateError, match="witness|lexicographic"):
            check_certificate(bad)


GOLDEN = __import__("pathlib").Path(__file__).parent / "golden" / "valid"


def _set(cert, path, value):
    obj = cert
    for k in path[:-1]:
        obj = obj[k]
    if value is KeyError:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value


@pytest.mark.parametrize("golden, where, value, path, words", [
    ("equivalence", ["steps", 1, "certificate", "nodes", 0, "terms", 1, 1, 0, 0], True,
     "steps[1].certificate.nodes[0].terms[1][1][0][0]", "variable index"),
    ("equivalence", ["steps", 1, "certificate", "nodes", 0, "range", 0], True,
     "steps[1].certificate.nodes[0].range[0]", "exact rational"),
    ("equivalence", ["steps", 1, "certificate", "nodes", 0, "terms"], KeyError,
     "steps[1].certificate.nodes[0].terms", "missing"),
    ("equivalence", ["steps", 1, "certificate", "model"], "abc", "steps[1].certificate.model", "model 'a'"),
    ("equivalence", ["steps", 2, "certificate", "layer"], True, "steps[2].certificate.layer", "layer 1"),
    ("equivalence", ["steps", 2, "certificate", "outputs", 0, 0], {"x": 1}, "steps[2].certificate.outputs[0][0]",
     "exact rational"),
    ("equivalence", ["steps", 2, "certificate", "outputs"], KeyError, "steps[2].certificate.outputs", "missing"),
    ("equivalence-node-cells", ["steps", 0, "certificate", "box", 1, 1], "abc", "steps[0].certificate.box[1][1]", "exact rational"),
    ("equivalence-cpwl-mesh", ["steps", 6, "certificate", "heads", 0, 1, "max", "dropped", 0, 2], [],
     "steps[6].certificate.heads[0][1].max.dropped[0][2]", "exact rational"),
    ("equivalence-cpwl", ["steps", 1, "certificate", "values", 0], True, "steps[1].certificate.values[0]",
     "exact rational"),
    ("equivalence-cpwl", ["steps", 1, "certificate", "values", 0], "7", "steps[1].certificate.values[0]",
     "value of f"),
    ("equivalence-cpwl", ["steps", 1, "certificate", "points"], KeyError, "steps[1].certificate.points", "missing"),
    ("equivalence-cpwl-mesh", ["steps", 1, "certificate", "lattice", 0, "pieces", 0, 1], True,
     "steps[1].certificate.lattice[0].pieces[0][1]", "exact rational"),
    ("equivalence-cpwl-mesh", ["steps", 1, "certificate", "lattice", 0, "terms", 0, 0], "0",
     "steps[1].certificate.lattice[0].terms[0][0]", "index"),
    ("equivalence-cpwl-mesh", ["steps", 2, "certificate", "units", 0, "result", 1, 0, 0], [],
     "steps[2].certificate.units[0].result[1][0][0]", "variable index"),
    ("equivalence-scaled", ["steps", 2, "certificate", "units", 0, "scale", 0], True,
     "steps[2].certificate.units[0].scale[0]", "exact rational"),
])
def test_a_refusal_names_the_json_path_and_what_was_expected(golden, where, value, path, words):
    """A malformed or false field inside a step is named by its own JSON path, not only the
    step's, with what was expected there."""
    cert = json.loads((GOLDEN / f"{golden}.json").read_text())
    _set(cert, where, value)
    with pytest.raises(CertificateError) as caught:
        check_certificate(cert)
    assert caught.value.path == path, str(caught.value)
    assert "expected" in caught.value.message and words in caught.value.message, str(caught.value)
