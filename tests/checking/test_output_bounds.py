"""The output-bounds checker (symrel.checking.output_bounds): honest certificates accepted,
tampered and hand-written hostile ones refused, each naming the field; the leaves checked on an
executor as they are here."""

import copy
import json
from concurrent.futures import ThreadPoolExecutor

import pytest

from symrel.checking import CertificateError, CheckLimit, MalformedCertificate, check_certificate
from symrel.checking.vnnlib import leaves_checked_on
from symrel.exact import Q
from symrel.fileformat import sha256_of
from symrel.models import DenseLayer, ReLUNet
from symrel.vnnlib.output_bounds import certificate, search_bounds

# relu(x0 - x1) - relu(x1 - 1/3) and |x0| + x1 on [-1, 1] x [0, 1]: kinks inside the box
NET = ReLUNet(2, [DenseLayer([[1, -1], [0, 1], [1, 0], [-1, 0]], [0, "-1/3", 0, 0]),
                  DenseLayer([[1, -1, 0, 0], [0, 0, 1, 1]], [0, 0], "none"),
                  DenseLayer([[1, 0], [1, 1]], [0, 0], "none")])
LO, HI = [Q(-1), Q(0)], [Q(1), Q(1)]


def make(nodes=200, outputs=None, net=NET):
    found = search_bounds(net, LO, HI, outputs, nodes=nodes)
    return json.loads(json.dumps(certificate(net, LO, HI, found))), found


@pytest.fixture(scope="module")
def made():
    return make()


@pytest.fixture
def cert(made):
    return copy.deepcopy(made[0])


def refused(cert, edit, words, error=CertificateError):
    bad = copy.deepcopy(cert)
    edit(bad)
    with pytest.raises(error) as err:
        check_certificate(bad)
    assert words in str(err.value), str(err.value)
    return err.value


def step(c, k):
    return c["steps"][k]["certificate"]


def first_leaf(c, k=0):
    tree = step(c, k)["tree"]
    return next(e["leaf"] for e in tree if "leaf" in e)


def test_honest_certificates_are_accepted_and_say_what_they_prove(cert, made):
    summary = check_certificate(cert)
    assert summary["result"] == "checked" and summary["rules"] == {"output-bound-branch-and-bound": 4}
    found = made[1]
    assert all(b.attained for b in found.objectives)   # every bound of this net is its exact range
    assert "(the minimum and the maximum attained)" in summary["statement"]
    assert "for every x in [-1, 1] x [0, 1]" in summary["statement"]
    assert cert["claim"]["bounds"][0]["attained"] == ["lower", "upper"]
    assert any("relu" in e for k in range(4) for e in step(cert, k)["tree"])   # kinks split on their neurons


def test_a_root_only_certificate_is_accepted():
    c, found = make(nodes=None, outputs=[1])
    assert len(c["steps"]) == 2 and all(len(step(c, k)["tree"]) == 1 for k in range(2))
    assert check_certificate(c)["result"] == "checked"


def without_statement(c):
    c["claim"].pop("statement", None)


def test_a_leaf_bound_that_is_not_the_recomputed_one_is_refused(cert):
    refused(cert, lambda c: first_leaf(c).update(bound="100"), "the bound recomputed is")


def test_a_claimed_lower_bound_above_a_leaf_is_refused(cert):
    def raise_lower(c):
        without_statement(c)
        c["claim"]["bounds"][0]["lower"] = "1/2"
        c["claim"]["bounds"][0].pop("attained")
        step(c, 0)["bound"] = "1/2"
        step(c, 0).pop("attained")
        step(c, 1).pop("attained")
    refused(cert, raise_lower, "below the claimed lower bound 1/2")


def test_a_claimed_upper_bound_below_a_leaf_is_refused(cert):
    def lower_upper(c):
        without_statement(c)
        b = c["claim"]["bounds"][1]
        b["upper"] = b["lower"]
        b.pop("attained", None)
        for k in (2, 3):
            step(c, k).pop("attained", None)
        step(c, 3)["bound"] = b["upper"]
    refused(cert, lower_upper, "above the claimed upper bound")


def test_a_step_bound_that_is_not_the_claims_is_refused(cert):
    refused(cert, lambda c: step(c, 1).update(bound="7"), "is not the claim's upper bound")


def test_attained_points_are_evaluated_exactly(cert):
    refused(cert, lambda c: step(c, 0).update(attained=["0", "0"]), "the network's output 0 at the point is 0")
    refused(cert, lambda c: step(c, 0).update(attained=["2", "0"]), "outside the box")
    refused(cert, lambda c: step(c, 0).update(attained=["0"]), "a list of 2 entries", MalformedCertificate)
    refused(cert, lambda c: step(c, 0).pop("attained"), "expected an attained point")


def test_an_attained_side_needs_its_claim(cert):
    def drop(c):
        without_statement(c)
        c["claim"]["bounds"][0]["attained"] = ["upper"]
    refused(cert, drop, "expected no attained point")
    refused(cert, lambda c: c["claim"]["bounds"][0].update(attained=["upper", "lower"]), "lower first")
    refused(cert, lambda c: c["claim"]["bounds"][0].update(attained=["lower", "lower"]), "each once")
    refused(cert, lambda c: c["claim"]["bounds"][0].update(attained=["min"]), "one of 'lower', 'upper'",
            MalformedCertificate)


def test_outputs_in_range_once_each_in_order(cert):
    refused(cert, lambda c: c["claim"]["bounds"][1].update(output=0), "each output once")
    refused(cert, lambda c: c["claim"]["bounds"][1].update(output=2), "an index in 0..1", MalformedCertificate)
    refused(cert, lambda c: c["claim"]["bounds"][0].update(output=True), "an index", MalformedCertificate)
    refused(cert, lambda c: c["claim"].update(bounds=[]), "unexpected step")   # the steps of no output: none
    refused(cert, lambda c: step(c, 2).update(output=0), "expected output 1")
    refused(cert, lambda c: step(c, 0).update(side="upper"), "expected side 'lower'")


def test_lower_above_upper_and_unknown_keys_are_refused(cert):
    refused(cert, lambda c: c["claim"]["bounds"][0].update(lower="5"), "expected lower <= upper")
    refused(cert, lambda c: c["claim"]["bounds"][0].update(exact=True), "expected no key 'exact'", MalformedCertificate)
    refused(cert, lambda c: first_leaf(c).update(closes=[]), "expected no key 'closes'", MalformedCertificate)
    refused(cert, lambda c: step(c, 0).update(box=[]), "expected no key 'box'", MalformedCertificate)
    refused(cert, lambda c: c["claim"].update(network_file={"name": "/tmp/n.onnx", "sha256": "0" * 64}),
            "without a directory", MalformedCertificate)


def test_the_steps_are_two_per_output_in_order(cert):
    refused(cert, lambda c: c["steps"].pop(), "ends after 3 steps")
    refused(cert, lambda c: c["steps"].append(copy.deepcopy(c["steps"][0])), "unexpected step")


def test_the_region_must_be_the_networks_box(cert):
    def one_dim(c):
        box = {"symrel": 1, "kind": "box", "bounds": [[-1, 1]]}
        c["inputs"]["region"] = {"object": box, "sha256": sha256_of(box)}
    refused(cert, one_dim, "the region is a box in R^1")

    def wider(c):   # a wider region: the root leaf's bounds no longer hold
        box = {"symrel": 1, "kind": "box", "bounds": [[-2, 1], [0, 1]]}
        c["inputs"]["region"] = {"object": box, "sha256": sha256_of(box)}
        without_statement(c)
    refused(cert, wider, "")

    def missing(c):
        del c["inputs"]["region"]
    refused(cert, missing, "expected an input 'region'", MalformedCertificate)


def test_a_false_phase_or_a_negative_beta_is_refused(cert):
    def lie(c):
        leaf = first_leaf(c)
        leaf["phases"] = [p.replace("u", "i", 1) if "u" in p else p for p in leaf["phases"]]
    leaf = first_leaf(cert)
    if any("u" in p for p in leaf["phases"]):
        refused(cert, lie, "")
    where = next((k, i) for k in range(4) for i, e in enumerate(step(cert, k)["tree"])
                 if "leaf" in e and "beta" in e["leaf"])
    k, i = where
    n = len(step(cert, k)["tree"][i]["leaf"]["beta"])
    refused(cert, lambda c: step(c, k)["tree"][i]["leaf"].update(beta=["-1"] * n), "beta >= 0")


def test_a_tree_that_does_not_cover_the_box_is_refused(cert):
    refused(cert, lambda c: step(c, 0)["tree"].pop(), "")
    refused(cert, lambda c: step(c, 0).update(tree=[{"split": 0, "at": "2"}]), "do not partition")


def test_leaves_beyond_the_checkers_budget_are_refused_before_any_is_checked(monkeypatch):
    from symrel.checking import output_bounds as checker

    c, found = make(nodes=40, outputs=[0])
    leaves = sum(b.leaves for b in found.objectives)
    weights = 4 * 2 + 2 * 4 + 2 * 2
    monkeypatch.setattr(checker, "MAX_LEAF_OPERATIONS", leaves * weights * (2 + 2) - 1)
    with pytest.raises(CheckLimit, match="leaf operations"):
        check_certificate(c)
    monkeypatch.setattr(checker, "MAX_LEAF_OPERATIONS", leaves * weights * (2 + 2))
    assert check_certificate(c)["result"] == "checked"


def test_leaves_on_an_executor_are_checked_as_here(cert, monkeypatch):
    """Runs of two leaves on a thread pool: the same result, and the same first failure."""
    from symrel.checking import leaf_runs as checker_runs

    monkeypatch.setattr(checker_runs, "LEAVES_PER_TASK", 2)
    seen = []
    with ThreadPoolExecutor(2) as pool, leaves_checked_on(pool, lambda k, n: seen.append((k, n))):
        assert check_certificate(cert)["result"] == "checked"
        assert seen[-1][0] == seen[-1][1] > 4
        bad = copy.deepcopy(cert)
        tree = step(bad, 3)["tree"]
        i = max(k for k, e in enumerate(tree) if "leaf" in e)
        tree[i]["leaf"]["bound"] = "-100"
        with pytest.raises(CertificateError) as err:
            check_certificate(bad)
    assert err.value.path == f"steps[3].certificate.tree[{i}].leaf.bound"
    assert err.value.rule == "output-bound-branch-and-bound"
