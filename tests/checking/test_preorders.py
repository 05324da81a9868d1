"""Certificates of utilities and retrieval: checked from the file alone; one altered
number, utility or score makes the check fail."""

import copy

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.fileformat.jsonio import canonical_dumps, loads
from symrel.preorders import (
    build_retrieval_attention,
    debreu_utility,
    multi_utility,
    prove_retrieval,
    richter_peleg_utility,
)
from symrel.preorders.generators import random_complete_preorder, random_preorder, random_retrieval_task
from symrel.certificates.io import certificate_of


def as_file(proof):
    return loads(canonical_dumps(certificate_of(proof)))


def rehash(cert):
    from symrel.fileformat import sha256_of

    for entry in cert["inputs"].values():
        entry["sha256"] = sha256_of(entry["object"])
    return cert


@pytest.fixture(scope="module")
def utility_cert():
    return as_file(debreu_utility(random_complete_preorder(200, classes=30, seed=1)).proof)


def test_utility_certificate_checks(utility_cert):
    assert check_certificate(utility_cert)["result"] == "checked"


def test_altered_utility_fails(utility_cert):
    cert = copy.deepcopy(utility_cert)
    name = sorted(cert["claim"]["utility"])[0]
    cert["claim"]["utility"][name] = "1/1000000"
    with pytest.raises(CertificateError):
        check_certificate(cert)


def test_altered_preorder_fails_even_with_a_fresh_hash(utility_cert):
    cert = copy.deepcopy(utility_cert)
    leq = cert["inputs"]["preorder"]["object"]["leq"]
    leq.pop(len(leq) // 2)
    with pytest.raises(CertificateError, match="sha256"):
        check_certificate(cert)
    with pytest.raises(CertificateError, match="fails at|not transitive"):
        check_certificate(rehash(cert))


def test_altered_pair_count_and_gap_fail(utility_cert):
    cert = copy.deepcopy(utility_cert)
    next(s for s in cert["steps"] if s["rule"] == "utility-pairwise")["certificate"]["pairs"] += 1
    with pytest.raises(CertificateError, match="pairs"):
        check_certificate(cert)
    cert = copy.deepcopy(utility_cert)
    cert["claim"]["utility"] = {x: 2 * int(v) for x, v in cert["claim"]["utility"].items()}  # still represents, gap 2
    with pytest.raises(CertificateError, match="levels are not 0, 1, 2"):
        check_certificate(cert)


def test_richter_peleg_and_multi_utility_certificates():
    P = random_preorder(30, density=3, seed=4)
    for rep in (richter_peleg_utility(P), multi_utility(P)):
        cert = as_file(rep.proof)
        assert check_certificate(cert)["result"] == "checked"
        bad = copy.deepcopy(cert)
        table = bad["claim"]["utility"] if rep.kind == "richter-peleg-utility" else bad["claim"]["utilities"][0]
        top = max(table, key=lambda x: int(table[x]))
        table[top] = -1
        with pytest.raises(CertificateError):
            check_certificate(bad)


@pytest.fixture(scope="module")
def retrieval_cert():
    task = random_retrieval_task(5, 9, seed=2)
    att = build_retrieval_attention(task, eps="1/100")
    return as_file(prove_retrieval(task, att, max_subset=3, eps="1/100"))


def test_retrieval_certificate_checks(retrieval_cert):
    summary = check_certificate(retrieval_cert)
    assert summary["result"] == "checked" and summary["steps"] == len(retrieval_cert["steps"])
    assert summary["rules"] == {"exact-evaluation": 1, "score-order-pairwise": 5, "hardmax-subsets": 5,
                                "softmax-retrieval-margin": 1}


def test_retrieval_altered_score_fails(retrieval_cert):
    cert = copy.deepcopy(retrieval_cert)
    step = next(s for s in cert["steps"] if s["rule"] == "exact-evaluation")
    q = sorted(step["certificate"]["scores"])[0]
    k = sorted(step["certificate"]["scores"][q])[0]
    step["certificate"]["scores"][q][k] = "1/1000000"
    with pytest.raises(CertificateError, match="scores"):
        check_certificate(cert)


def test_retrieval_altered_key_weight_fails(retrieval_cert):
    cert = copy.deepcopy(retrieval_cert)
    W = cert["inputs"]["phi_k"]["object"]["layers"][-1]["W"]
    W[0][0] = f"{W[0][0]}1" if isinstance(W[0][0], str) else W[0][0] + 1
    with pytest.raises(CertificateError):
        check_certificate(rehash(cert))


def test_retrieval_altered_softmax_bound_fails(retrieval_cert):
    cert = copy.deepcopy(retrieval_cert)
    step = next(s for s in cert["steps"] if s["rule"] == "softmax-retrieval-margin")
    step["certificate"]["beta_bound"] = "1"  # too small a beta for eps = 1/100 with 9 keys
    with pytest.raises(CertificateError, match=r"beta_bound \(softmax-retrieval-margin\): at beta 1 .* may exceed eps"):
        check_certificate(cert)


def test_retrieval_altered_subset_count_fails(retrieval_cert):
    cert = copy.deepcopy(retrieval_cert)
    next(s for s in cert["steps"] if s["rule"] == "hardmax-subsets")["certificate"]["subsets"] += 1
    with pytest.raises(CertificateError, match=r"certificate.subsets \(hardmax-subsets\): recorded"):
        check_certificate(cert)


def test_utility_altered_class_count_fails(utility_cert):
    cert = copy.deepcopy(utility_cert)
    next(s for s in cert["steps"] if s["rule"] == "complete-preorder")["certificate"]["classes"] += 1
    with pytest.raises(CertificateError, match="classes"):
        check_certificate(cert)


def _step_numbers(cert):
    from symrel.mutation.tamper import numbers_in

    return [p for p, _ in numbers_in(cert) if p.startswith("steps")]


def test_every_recorded_step_number_is_checked(utility_cert, retrieval_cert):
    from symrel.mutation.tamper import altered

    P = random_preorder(12, density=2, seed=5)
    certs = [utility_cert, retrieval_cert, as_file(richter_peleg_utility(P).proof), as_file(multi_utility(P).proof)]
    for cert in certs:
        paths = _step_numbers(cert)
        assert paths
        for path in paths[:: max(1, len(paths) // 40)]:
            with pytest.raises(CertificateError):
                check_certificate(altered(cert, path))


def test_debreu_utility_values_are_checked(utility_cert):
    from symrel.mutation.tamper import altered

    for name in sorted(utility_cert["claim"]["utility"])[:10]:
        with pytest.raises(CertificateError):
            check_certificate(altered(utility_cert, f"claim.utility.{name}"))


def test_every_claimed_utility_value_is_determined():
    """An altered value of any utility is refused, even where it would still represent."""
    from symrel.mutation.tamper import altered, numbers_in

    P = random_preorder(10, density=2, seed=8)
    for rep in (richter_peleg_utility(P), multi_utility(P)):
        cert = as_file(rep.proof)
        claim_paths = [p for p, _ in numbers_in(cert) if p.startswith("claim.util")]
        assert claim_paths
        for path in claim_paths:
            with pytest.raises(CertificateError):
                check_certificate(altered(cert, path))


def test_retrieval_queries_not_in_alphabetical_order():
    """The embedded task is canonical JSON (keys sorted); the steps follow the prover's order."""
    from symrel.preorders import Preorder, RetrievalTask

    P = Preorder.from_pairs(["k1", "k2"], [["k1", "k2"]])
    Q_ = Preorder.from_pairs(["k1", "k2"], [["k2", "k1"]])
    task = RetrievalTask({"k1": [0], "k2": [1]}, {"zeta": [1], "alpha": [-1]}, {"zeta": P, "alpha": Q_})
    cert = as_file(prove_retrieval(task, build_retrieval_attention(task), max_subset=2))
    assert [s["certificate"].get("query") for s in cert["steps"][1:]] == ["zeta", "zeta", "alpha", "alpha"]
    assert check_certificate(cert)["result"] == "checked"
    cert["steps"][3]["certificate"]["query"] = "zeta"
    with pytest.raises(CertificateError, match="not checked before"):
        check_certificate(cert)


# -- issue 26: the relation must be a preorder; bitmask comparisons; limits; dimensions --------

def _by_hand(kind, leq, steps, **claim):
    from symrel.fileformat import sha256_of

    P = {"symrel": 1, "kind": "preorder", "elements": ["a", "b", "c"], "leq": leq}
    return {"symrel": 1, "kind": "certificate", "claim": {"kind": kind, **claim},
            "inputs": {"preorder": {"object": P, "sha256": sha256_of(P)}},
            "steps": [{"rule": r, "status": "proved", "certificate": c} for r, c in steps]}


def test_a_relation_that_is_not_transitive_is_refused_as_symrel_preorder_refuses_it():
    chain = [["a", "b"], ["b", "c"]]  # a <= b <= c, but a <= c is not listed
    rp = _by_hand("richter-peleg-utility", chain, [("richter-peleg-pairwise", {"related_pairs": 5}),
                                                    ("chain-level", {"elements": 3})], utility={"a": 0, "b": 1, "c": 2})
    with pytest.raises(CertificateError, match="not transitive: 'a' <= 'b' and 'b' <= 'c' but not 'a' <= 'c'") as err:
        check_certificate(rp)
    assert err.value.path == "inputs.preorder.object.leq"
    rp["inputs"]["preorder"]["object"]["leq"].append(["a", "c"])
    rp["steps"][0]["certificate"]["related_pairs"] = 6
    assert check_certificate(rehash(rp))["result"] == "checked"  # closed, the same utility holds


def test_the_bitmask_comparison_finds_the_pair_that_fails():
    from symrel.checking.preorders import _at_least

    masks = _at_least([2, 0, 2, 1])  # out[i] has bit j when u_i <= u_j
    assert masks == [0b0101, 0b1111, 0b0101, 0b1101]
    cert = _by_hand("multi-utility", [["a", "b"]], [("multi-utility-pairwise", {"pairs": 9})],
                    utilities=[{"a": 0, "b": 1, "c": 2}, {"a": 2, "b": 0, "c": 1}])
    with pytest.raises(CertificateError, match="fails at 'a', 'b'"):
        check_certificate(cert)


def test_a_preorder_beyond_the_element_limit_is_refused_naming_the_limit(monkeypatch):
    from symrel.checking import CheckLimit
    from symrel.checking import preorders

    monkeypatch.setattr(preorders, "MAX_ELEMENTS", 2)
    cert = _by_hand("utility", [["a", "b"], ["b", "c"], ["a", "c"]],
                    [("complete-preorder", {"elements": 3, "classes": 3}), ("utility-pairwise", {"pairs": 9}),
                     ("utility-gap", {"gap": 1, "levels": 3})], utility={"a": 0, "b": 1, "c": 2})
    with pytest.raises(CheckLimit, match="limit 'preorder elements': 3, more than the 2"):
        check_certificate(cert)
    monkeypatch.setattr(preorders, "MAX_ELEMENTS", 3)
    assert check_certificate(cert)["result"] == "checked"


def test_retrieval_refuses_feature_maps_of_two_output_dimensions(retrieval_cert):
    cert = copy.deepcopy(retrieval_cert)
    last = cert["inputs"]["phi_q"]["object"]["layers"][-1]
    last["W"].append([0] * len(last["W"][0]))
    last["b"].append(0)
    with pytest.raises(CertificateError, match="needs one dimension"):
        check_certificate(rehash(cert))


def test_retrieval_counts_its_sets_before_building_them(retrieval_cert, monkeypatch):
    from symrel.checking import CheckLimit
    from symrel.checking import preorders

    monkeypatch.setattr(preorders, "MAX_SUBSETS", 5 * 129 - 1)  # 5 queries x (9 + 36 + 84) sets of <= 3 keys
    with pytest.raises(CheckLimit, match="retrieval hardmax evaluations"):
        check_certificate(retrieval_cert)
