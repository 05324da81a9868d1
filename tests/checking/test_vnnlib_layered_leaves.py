"""The leaves of a vnnlib-unsat certificate of a layered net checked on an executor, by the
machinery of the ReLU nets' checker (symrel.checking.leaf_runs.run_leaves): the serial verdict,
failure included (the first failing leaf in the trees' order, before any later entry of a
tree); a deadline; progress in leaves checked out of the total; a broken pool; and
``symrel.verify`` on a layered net reporting the check's progress."""

import json

import pytest

from symrel.checking import leaf_runs as checker_runs
from symrel.models.layered import from_relu_net
from symrel.vnnlib import read_vnnlib_text

pytest.importorskip("scipy")

from symrel.vnnlib.layered.search import decide  # noqa: E402

from ..verification.cases import NET, STRIPS  # noqa: E402
from .leaf_runs import (BrokenPool, assert_a_deadline_past_stops_the_check,  # noqa: E402, F401 (executors: a fixture)
                        assert_every_executor_gives_the_serial_outcome, assert_progress_counts_the_leaves, broken,
                        executors, leaf_paths, outcome)
from .test_vnnlib_layered import _make  # noqa: E402


@pytest.fixture(scope="module", params=["strips", "splits"])
def cert(request):
    """Ten steps of one leaf each (the strips), or one step of ten leaves under input, ReLU and
    max splits (a random layered net of tests/vnnlib/layered/oracle.py)."""
    if request.param == "strips":
        verdict = decide(from_relu_net(NET), read_vnnlib_text(STRIPS, source="strips.vnnlib"))
        assert verdict.status == "unsat"
        return json.loads(json.dumps(verdict.certificate))
    return _make(228, 1)


def wrong_bound(d, k):
    def edit(c):
        leaf = c["steps"][d]["certificate"]["tree"][k]["leaf"]
        if "closes" in leaf:
            leaf["closes"][0]["bound"] = "12345"
        else:
            leaf["empty"]["op"] = 0
    return edit


def both_keys(d, k):
    def edit(c):
        leaf = c["steps"][d]["certificate"]["tree"][k]["leaf"]
        leaf["empty" if "closes" in leaf else "closes"] = []
    return edit


def entry_after_the_tree(d):
    def edit(c):
        c["steps"][d]["certificate"]["tree"].append({"leaf": {"closes": []}})
    return edit


def test_the_certificates_have_ten_leaves_or_more(cert):
    assert len(leaf_paths(cert)) >= 10 and cert["inputs"]["network"]["object"]["kind"] == "layered"


@pytest.mark.parametrize("case", ["valid", "bound", "bound then tree", "tree alone", "malformed leaf",
                                  "two bounds"])
def test_every_executor_gives_the_serial_outcome(cert, executors, monkeypatch, case):
    monkeypatch.setattr(checker_runs, "LEAVES_PER_TASK", 2)   # runs of two leaves (across the steps of the strips)
    leaves = leaf_paths(cert)
    d3, k3 = leaves[3]
    d8, k8 = leaves[8]
    last = len(cert["steps"]) - 1
    edits = {"valid": [], "bound": [wrong_bound(d3, k3)],
             "bound then tree": [wrong_bound(d3, k3), entry_after_the_tree(last)],
             "tree alone": [entry_after_the_tree(last)], "malformed leaf": [both_keys(d8, k8)],
             "two bounds": [wrong_bound(d8, k8), wrong_bound(d3, k3)]}[case]
    where = {"valid": None, "bound": (d3, k3), "bound then tree": (d3, k3), "tree alone": (last, None),
             "malformed leaf": (d8, k8), "two bounds": (d3, k3)}[case]
    prefix = where and f"steps[{where[0]}].certificate.tree" + ("" if where[1] is None else f"[{where[1]}]")
    assert_every_executor_gives_the_serial_outcome(broken(cert, *edits) if edits else cert, executors, prefix)


def test_a_deadline_past_stops_the_check_undecided(cert, executors):
    assert_a_deadline_past_stops_the_check(cert, executors)


def test_progress_counts_the_leaves_checked(cert, executors, monkeypatch):
    monkeypatch.setattr(checker_runs, "LEAVES_PER_TASK", 3)
    assert_progress_counts_the_leaves(cert, executors)


def test_a_broken_pool_has_its_runs_checked_here(cert):
    assert outcome(cert, BrokenPool())["result"] == "checked"


def test_verify_on_a_layered_net_shows_the_check_in_leaves(tmp_path, monkeypatch):
    """``symrel.verify`` on a layered net: the check's progress is leaves checked out of the
    total, and a pool of two workers gives the serial certificate."""
    import symrel
    from symrel.parallel import WarmingProcessPool

    (tmp_path / "strips.vnnlib").write_text(STRIPS)
    net = from_relu_net(NET)
    seen = []
    serial = symrel.verify(net, tmp_path / "strips.vnnlib", executor="serial", progress=seen.append)
    check = [s for s in seen if s["stage"] == "check"]
    assert serial.result == "unsat" and serial.checked
    assert serial.certificate["inputs"]["network"]["object"]["kind"] == "layered"
    assert check and check[-1] == {"stage": "check", "leaves_checked": serial.stats["leaves"],
                                   "leaves": serial.stats["leaves"]}
    monkeypatch.setattr(checker_runs, "LEAVES_PER_TASK", 2)
    pool = WarmingProcessPool(2, warmup=0)
    try:
        pooled = symrel.verify(net, tmp_path / "strips.vnnlib", executor=pool)
    finally:
        pool.shutdown()
    assert pooled.checked and pooled.certificate_sha256 == serial.certificate_sha256
