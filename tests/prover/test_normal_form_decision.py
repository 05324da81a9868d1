"""The decision on the cells of the nodes the outputs depend on (prover.normal_form_decision),
budgets, and the tie pair."""

import json
import random

import pytest

from symrel.budget import Budget
from symrel.certificates.io import certificate_of
from symrel.checking import CertificateError, check_certificate
from symrel.compiler import compile_maxout
from symrel.exact import Q
from symrel.fileformat import from_json
from symrel.models import AffineMap, Box, MaxoutLayer, MaxoutNet, MaxoutUnit
from symrel.constructions.random import random_maxout_net
from symrel.mutation.decision_claims import campaign_claims, tie_pair
from symrel.mutation.mutants import mutant
from symrel.prover import prove_equivalence


def _cert(proof):
    assert proof.result == "proved", proof.obstacle
    return json.loads(json.dumps(certificate_of(proof)))


def _pair():
    a = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [0, 1]]), MaxoutUnit([[-1, 0], [0, -1]])])],
                  AffineMap([[1, -1]]))
    b = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 1]])])])
    return a, b, Box.cube(2)


def test_scaled_copies_are_one_node_when_built():
    # 2 max(x, -x) against max(2x, -2x): the same node (max-scale-shift), no cells to decide
    a = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])], AffineMap([[2]]))
    b = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[2], [-2]])])])
    proof = prove_equivalence(a, b, Box([[-1, 1]]))
    assert proof.steps[-1].rule == "linear-identity" and "max-scale-shift" in proof.steps[3].rule
    assert check_certificate(_cert(proof))["result"] == "checked"


def test_equal_nodes_with_different_terms_are_identified_by_their_cells():
    # max(x, -x) against max(x, -x, x/2): different nodes (x/2 is below neither term alone), equal functions
    a = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])])
    b = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1], ["1/2"]])])])
    proof = prove_equivalence(a, b, Box([[-1, 1]]))
    assert proof.steps[-1].rule == "node-cells"
    assert check_certificate(_cert(proof))["result"] == "checked"


def test_a_broken_scaled_copy_is_refuted_with_a_confirmed_point():
    a = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]])])], AffineMap([[2]]))
    b = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[2], [Q(-2) - Q(1, 10**6)]])])])
    proof = prove_equivalence(a, b, Box([[-1, 1]]))
    assert proof.result == "refuted"
    x = proof.counterexample
    assert Box([[-1, 1]]).contains(x) and a.evaluate(x) != b.evaluate(x)


def test_the_tie_pair_is_refuted_at_the_tie():
    c = tie_pair()
    a, b, D = from_json(c["a"]), from_json(c["b"]), from_json(c["domain"])
    proof = prove_equivalence(a, b, D)
    assert proof.result == "refuted"
    assert [str(v) for v in proof.counterexample] == ["0"]
    assert a.evaluate([0]) != b.evaluate([0])
    assert a.evaluate(["1/3"]) == b.evaluate(["1/3"]) and a.evaluate(["-1/3"]) == b.evaluate(["-1/3"])


def test_a_key_mutant_is_decided_through_select_nodes_and_checked():
    net = random_maxout_net(random.Random(3), 2, [3], rank=3, max_num=5, max_den=3)
    D = Box.cube(2)
    t = compile_maxout(net, D).transformer
    seen = set()
    for path in ("blocks[1].attention.heads[0].WK[0][0]", "blocks[1].attention.heads[0].WK[0][2]",
                 "blocks[1].attention.heads[1].WK[0][1]"):
        m = mutant(t, path, "+tiny")
        proof = prove_equivalence(net, m, D)
        seen.add(proof.result)
        if proof.result == "refuted":
            x = proof.counterexample
            assert D.contains(x) and net.evaluate(x) != m.evaluate(x)
        else:
            assert check_certificate(_cert(proof))["result"] == "checked"
    assert seen <= {"proved", "refuted"}


def _node_cells_step(cert):
    return next(s for s in cert["steps"] if s["rule"] == "node-cells")


def _first_farkas(tree):
    if "leaf" in tree:
        return next(e["pos"] for e in tree["leaf"] if e)
    for br in tree["branches"]:
        if "empty" in br and not br.get("constant"):
            return br["empty"]
        if "sub" in br:
            found = _first_farkas(br["sub"])
            if found is not None:
                return found
    return None


@pytest.mark.parametrize("tamper", ["status", "farkas", "drop-branch", "cells", "nodes", "free"])
def test_tampered_node_cells_certificates_are_rejected(tamper):
    cert = _cert(prove_equivalence(*_pair()))
    step = _node_cells_step(cert)
    if tamper == "status":
        step["status"] = "open"
    elif tamper == "farkas":
        vec = _first_farkas(step["certificate"]["tree"])
        vec[0][1] = "1/3" if vec[0][1] != "1/3" else "1/4"
    elif tamper == "drop-branch":
        step["certificate"]["tree"]["branches"].pop()
    elif tamper == "cells":
        step["certificate"]["cells"] += 1
    elif tamper == "nodes":
        step["certificate"]["nodes"] = step["certificate"]["nodes"][:-1]
    else:        # every node relaxed: nothing decided
        step["certificate"]["free"] = list(step["certificate"]["nodes"])
    with pytest.raises(CertificateError):
        check_certificate(cert)


def test_a_relaxed_decision_is_certified():
    # a key perturbation that moves every score by the same amount: the winners do not move;
    # decided on the top nodes with the rest relaxed, and checked
    from symrel.mutation.decision_claims import compiled_and_mutants

    proofs = []
    for c in compiled_and_mutants(1003, 10, "large"):
        if "WK" in c["name"]:
            a, b, D = from_json(c["a"]), from_json(c["b"]), from_json(c["domain"])
            p = prove_equivalence(a, b, D, timeout=60)
            if p.result == "proved" and p.steps[-1].rule == "node-cells":
                proofs.append(p)
    assert proofs
    for p in proofs:
        assert check_certificate(_cert(p))["result"] == "checked"
    assert any(p.steps[-1].certificate["free"] for p in proofs)


def test_the_budget_ends_the_claim_open_saying_what_stayed_open():
    a, b, D = _pair()
    proof = prove_equivalence(a, b, D, timeout=0)
    assert proof.result == "open"
    assert "time limit" in proof.obstacle and "open:" in proof.obstacle
    proof = prove_equivalence(a, b, D, budget=Budget(max_cells=0))
    assert proof.result == "open" and "cell limit" in proof.obstacle and "cells" in proof.obstacle


# a seeded subset of the decision campaign (docs/decision.md runs all of it)
SUBSET = [c for c in campaign_claims(seeds=range(1000, 1004), mutants_per_pair=6)]


@pytest.mark.parametrize("claim", SUBSET, ids=[c["name"] for c in SUBSET])
def test_campaign_subset_is_decided_with_confirmed_answers(claim):
    a, b, D = from_json(claim["a"]), from_json(claim["b"]), from_json(claim["domain"])
    proof = prove_equivalence(a, b, D, timeout=60)
    assert proof.result in ("proved", "refuted"), proof.obstacle
    if proof.result == "refuted":
        x = proof.counterexample
        assert D.contains(x) and a.evaluate(x) != b.evaluate(x)
    else:
        assert check_certificate(_cert(proof))["result"] == "checked"
    if claim["group"] in ("compiled", "equal"):
        assert proof.result == "proved"
    if claim["group"] == "tie":
        assert proof.result == "refuted"


def test_a_differing_cell_gives_the_point_where_the_difference_is_largest():
    """On the one cell where max(x, -x, (1 + eps) x - eps/2) differs from |x| the exact LP
    maximises the difference: the counterexample is the vertex x = 1, not an interior point."""
    from symrel.exact.forms import AffineForm, linear_combination
    from symrel.prover.nodes import Registry
    from symrel.prover.normal_form_decision import decide_on_nodes

    eps = Q(1, 10 ** 6)
    reg = Registry([(Q(-1), Q(1))])
    x = AffineForm.var(0)
    y, _ = reg.max_of([x, -x])
    z, _ = reg.max_of([x, -x, linear_combination([(1 + eps, x)], -eps / 2)])
    res = decide_on_nodes(reg, [y], [z], Box([[-1, 1]]))
    assert res.status == "refuted" and res.point == [1]


def test_float_proposals_find_a_small_differing_region():
    pytest.importorskip("numpy")
    from symrel.exact.forms import AffineForm, linear_combination
    from symrel.prover.float_screen import ranked
    from symrel.prover.nodes import Registry

    reg = Registry([(Q(0), Q(1)), (Q(0), Q(1))])
    x0, x1 = AffineForm.var(0), AffineForm.var(1)
    # differs from x0 only where x0 + x1 > 19/10 (an area of 1/200 of the square)
    y, _ = reg.max_of([x0, linear_combination([(Q(2), x0), (Q(1), x1)], Q(-19, 10))])
    pts = ranked(reg, [y - x0], [[Q(1, 2), Q(1, 2)]], reg.ranges[:2], points=4096)
    assert pts[-1] == [Q(1, 2), Q(1, 2)] and len(pts) == 9
    assert all(p[0] + p[1] > Q(19, 10) for p in pts[:8])
