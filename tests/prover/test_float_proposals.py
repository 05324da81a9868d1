"""Float-guided counterexample proposals (HiGHS's MILP, the projected ascent), each counted
only after exact evaluation, and the exact LP on the linear region of a proposal."""

import random

import pytest

from symrel.exact import Q
from symrel.models import Box, DenseLayer, ReLUNet
from symrel.prover import prove_equivalence
from symrel.prover.counterexamples import first_difference
from symrel.prover.execution import Context
from symrel.prover.nodes import Registry
from symrel.prover.region_of_point import largest_differences, region
from symrel.prover.relu_to_forms import relu_net_forms

D = Box.cube(2)


def sliver(w):
    """u = ReLU(10^-6 - |x_1 - x_2 - 2/7|) is not zero on a band about 2 10^-6 wide only; the
    net outputs w u + |x_1 - x_2 - 2/7|."""
    return ReLUNet(2, [DenseLayer([[1, -1], [-1, 1]], ["-2/7", "2/7"]),
                       DenseLayer([[-1, -1], [1, 1]], ["1/1000000", 0]),
                       DenseLayer([[w, 1]], [0], "none")])


def diamond(w):
    """u = ReLU(1/1000 - |x_1 - 1/3| - |x_2 + 1/5|): not zero on a diamond of area 2 10^-6 (the box's is 4)."""
    return ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, -1]], ["-1/3", "1/3", "1/5", "-1/5"]),
                       DenseLayer([[-1, -1, -1, -1], [1, 1, 0, 0]], ["1/1000", 0]),
                       DenseLayer([[w, 1]], [0], "none")])


def _confirmed(proof, a, b):
    x = proof.counterexample
    return D.contains(x) and a.evaluate_exact(x) != b.evaluate_exact(x)


def _random_points(n=2000, seed=1):
    rng = random.Random(seed)
    return [[Q(rng.randint(-2 ** 20, 2 ** 20), 2 ** 20) for _ in range(2)] for _ in range(n)]


def test_a_sliver_mutant_that_random_points_miss_is_refuted_via_the_milp_proposal(monkeypatch):
    pytest.importorskip("scipy.optimize")
    monkeypatch.setattr("symrel.prover.equivalence.FEW_NODES", -1)   # the float searches first, as on a large closure
    a, b = sliver(0), sliver(Q(1, 10 ** 6))              # the mutant: one weight + 1/10^6
    assert first_difference(a, b, _random_points()) is None
    proof = prove_equivalence(a, b, D, timeout=60)
    assert proof.result == "refuted" and _confirmed(proof, a, b)
    assert "proposed by HiGHS's MILP" in proof.steps[-1].note and proof.steps[-1].rule == "linear-identity"


def test_a_small_region_is_found_by_the_float_ascent(monkeypatch):
    pytest.importorskip("numpy")
    monkeypatch.setattr("symrel.prover.counterexamples.MILP_FIRST", -1)   # the ascent first, as on a large closure
    monkeypatch.setattr("symrel.prover.equivalence.FEW_NODES", -1)
    a, b = diamond(0), diamond(Q(1, 10 ** 6))
    assert first_difference(a, b, _random_points()) is None
    proof = prove_equivalence(a, b, D, timeout=60)
    assert proof.result == "refuted" and _confirmed(proof, a, b)
    assert "proposed by the float ascent" in proof.steps[-1].note


def test_a_sliver_on_few_nodes_is_refuted_exactly_before_any_float_search(monkeypatch):
    def unwanted():
        raise AssertionError("a float library was asked for")

    monkeypatch.setattr("symrel.prover.milp_proposal._scipy", unwanted)
    monkeypatch.setattr("symrel.prover.float_screen._numpy", unwanted)
    a, b = sliver(0), sliver(Q(1, 10 ** 6))
    proof = prove_equivalence(a, b, D, timeout=60)
    assert proof.result == "refuted" and _confirmed(proof, a, b) and proof.steps[-1].rule == "node-cells"


def test_past_the_first_cells_the_float_searches_propose(monkeypatch):
    pytest.importorskip("scipy.optimize")
    monkeypatch.setattr("symrel.prover.equivalence.FIRST_CELLS", 0)   # the exact trial stops at its first cell
    a, b = sliver(0), sliver(Q(1, 10 ** 6))
    proof = prove_equivalence(a, b, D, timeout=60)
    assert proof.result == "refuted" and _confirmed(proof, a, b)
    assert "proposed by HiGHS's MILP" in proof.steps[-1].note and proof.steps[-1].rule == "linear-identity"


def test_without_the_extras_the_complete_procedure_still_refutes(monkeypatch):
    monkeypatch.setattr("symrel.prover.milp_proposal._scipy", lambda: None)
    monkeypatch.setattr("symrel.prover.float_screen._numpy", lambda: None)
    a, b = sliver(0), sliver(Q(1, 10 ** 6))
    proof = prove_equivalence(a, b, D, timeout=60)
    assert proof.result == "refuted" and _confirmed(proof, a, b)
    assert proof.steps[-1].rule == "node-cells"


def _forms(a, b):
    reg = Registry(list(D.exact_bounds))
    oa = relu_net_forms(a, Context(reg, None, "a"))
    ob = relu_net_forms(b, Context(reg, None, "b"))
    return reg, [fa - fb for fa, fb in zip(oa, ob)]


def test_a_choice_of_terms_describes_the_sliver_exactly_where_a_float_point_misses_it():
    a, b = sliver(0), sliver(Q(1, 10 ** 6))
    reg, diffs = _forms(a, b)
    u = next(v for v in diffs[0].coeffs)
    off = [Q(0), Q(-1, 2)]                    # x_1 - x_2 = 1/2: u is 0 on its region
    assert largest_differences(reg, diffs, D, point=off) == []
    active = dict(enumerate(reg.values_at(off)[1]))
    active[u] = next(i for i, t in enumerate(reg.nodes[u].terms) if t.coeffs)    # u's non-constant term
    points = largest_differences(reg, diffs, D, active=active)
    assert points and all(a.evaluate_exact(x) != b.evaluate_exact(x) for x in points)
    _, rows = region(reg, active)
    assert all(f.value_at(points[0]) <= 0 for f in rows)


def test_an_empty_choice_of_terms_proposes_nothing():
    a, b = sliver(0), sliver(Q(1, 10 ** 6))
    reg, diffs = _forms(a, b)
    u = next(v for v in diffs[0].coeffs)
    h1, h2 = sorted(v for v in range(reg.dim, len(reg.nodes)) if v != u)
    active = {v: next(i for i, t in enumerate(reg.nodes[v].terms) if t.coeffs) for v in (h1, h2, u)}
    # both absolute-value halves positive at once: the region is empty
    assert largest_differences(reg, diffs, D, active=active) == []


def test_highs_writes_nothing_to_the_terminal(capfd):
    """HiGHS's C++ code prints some diagnostics whatever ``disp`` says (this claim made it
    print two lines); ``symrel prove --json`` owns stdout."""
    pytest.importorskip("scipy.optimize")
    from symrel.fileformat import from_json
    from symrel.mutation.decision_claims import compiled_and_mutants

    c = next(c for c in compiled_and_mutants(1010, 5, "small") if "WK[0][4]" in c["name"])
    proof = prove_equivalence(from_json(c["a"]), from_json(c["b"]), from_json(c["domain"]), timeout=60)
    out, err = capfd.readouterr()
    assert proof.result == "refuted" and out == "" and err == ""
