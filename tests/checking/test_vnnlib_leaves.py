"""The leaves of a vnnlib-unsat certificate checked on an executor: the serial verdict, failure
included (the first failing leaf in the trees' order, before any later entry of a tree); a
deadline and progress; and the claim's file records, read strictly (names, never paths)."""

import copy
import json

import pytest

from symrel.checking import MalformedCertificate, check_certificate
from symrel.checking import leaf_runs as checker_runs
from symrel.vnnlib import read_vnnlib_text
from symrel.vnnlib.engine import decide

from ..verification.cases import NET, STRIPS
from .leaf_runs import (BrokenPool, assert_a_deadline_past_stops_the_check,  # noqa: F401 (executors: a fixture)
                        assert_every_executor_gives_the_serial_outcome, assert_progress_counts_the_leaves, broken,
                        executors, leaf_paths, outcome)


@pytest.fixture(scope="module")
def cert():
    verdict = decide(NET, read_vnnlib_text(STRIPS, source="/somewhere/strips.vnnlib"))
    assert verdict.status == "unsat"
    return json.loads(json.dumps(verdict.certificate))


def wrong_bound(d, k):
    def edit(c):
        c["steps"][d]["certificate"]["tree"][k]["leaf"]["closes"][0]["bound"] = "12345"
    return edit


def missing_closes(d, k):
    def edit(c):
        del c["steps"][d]["certificate"]["tree"][k]["leaf"]["closes"]
    return edit


def split_outside(d):
    def edit(c):
        tree = c["steps"][d]["certificate"]["tree"]
        c["steps"][d]["certificate"]["tree"] = [{"split": 0, "at": "5"}] + tree + tree
    return edit


def test_the_certificate_has_leaves_in_many_steps(cert):
    assert len(cert["steps"]) == 10 and len(leaf_paths(cert)) >= 10
    assert cert["claim"]["property_source"] == "strips.vnnlib"   # the file's name, not its directory


@pytest.mark.parametrize("case", ["valid", "bound", "bound then split", "split alone", "malformed leaf",
                                  "two bounds"])
def test_every_executor_gives_the_serial_outcome(cert, executors, monkeypatch, case):
    monkeypatch.setattr(checker_runs, "LEAVES_PER_TASK", 2)   # runs of two leaves, across the steps
    leaves = leaf_paths(cert)
    d3, k3 = leaves[3]
    d8, k8 = leaves[8]
    edits = {"valid": [], "bound": [wrong_bound(d3, k3)],
             "bound then split": [wrong_bound(d3, k3), split_outside(7)],
             "split alone": [split_outside(7)], "malformed leaf": [missing_closes(d8, k8)],
             "two bounds": [wrong_bound(d8, k8), wrong_bound(d3, k3)]}[case]
    where = {"valid": None, "bound": f"steps[{d3}]", "bound then split": f"steps[{d3}]", "split alone": "steps[7]",
             "malformed leaf": f"steps[{d8}]", "two bounds": f"steps[{d3}]"}[case]
    assert_every_executor_gives_the_serial_outcome(broken(cert, *edits) if edits else cert, executors, where)


def test_a_deadline_past_stops_the_check_undecided(cert, executors):
    assert_a_deadline_past_stops_the_check(cert, executors)


def test_progress_counts_the_leaves_checked(cert, executors, monkeypatch):
    monkeypatch.setattr(checker_runs, "LEAVES_PER_TASK", 3)
    assert_progress_counts_the_leaves(cert, executors)


def test_a_broken_pool_has_its_runs_checked_here(cert):
    assert outcome(cert, BrokenPool())["result"] == "checked"


@pytest.mark.parametrize("key, value, expected", [
    ("property_source", "/home/someone/strips.vnnlib", "expected a file name without a directory"),
    ("property_source", "..", "expected a file name without a directory"),
    ("property_source", "C:\\data\\strips.vnnlib", "expected a file name without a directory"),
    ("property_source", 7, "expected a string"),
    ("network_file", {"name": "/data/net.onnx", "sha256": "0" * 64}, "expected a file name without a directory"),
    ("network_file", {"name": "net.onnx", "sha256": "0" * 63}, "expected a sha256"),
    ("network_file", {"name": "net.onnx", "sha256": "A" * 64}, "expected a sha256"),
    ("network_file", {"name": "net.onnx", "sha256": "0" * 64, "path": "/data"}, "expected no key 'path'"),
    ("network_file", {"name": "net.onnx"}, "sha256"),
    ("network_file", "net.onnx", "expected an object"),
])
def test_the_file_records_of_a_claim_are_read_strictly(cert, key, value, expected):
    bad = copy.deepcopy(cert)
    bad["claim"][key] = value
    with pytest.raises(MalformedCertificate, match=expected) as err:
        check_certificate(bad)
    assert err.value.path.startswith(f"claim.{key}")


def test_a_network_file_record_checks_and_changes_no_statement(cert):
    good = copy.deepcopy(cert)
    good["claim"]["network_file"] = {"name": "net.onnx", "sha256": "ab" * 32}
    assert check_certificate(good)["statement"] == check_certificate(copy.deepcopy(cert))["statement"]
