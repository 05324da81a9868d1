"""benchmarks.bench_node_cost: what counts as a number of a certificate, the sizes, and the
wrappers around the engine (which must find the engine's functions, and leave its answer)."""

import pytest

from benchmarks import bench_node_cost as bench


def test_numbers_are_integers_and_fractions_not_hashes_flags_or_decimals():
    cert = {"network_sha256": "1" * 64, "sha256": "9" * 64, "flag": True,
            "x": ["-123/4567", 89, "007", "uu", "1/2/3", "1.5", "0x12", "1e5", "-0"]}
    assert bench.number_digits(cert) == {"numbers": 4, "numerator": 3, "denominator": 4, "fields": {"x": 4}}
    assert bench.number_digits({}) == {"numbers": 0, "numerator": 0, "denominator": 0, "fields": {}}


def test_certificate_parts_are_counted_apart():
    got = bench.certificate_numbers({"inputs": {"W": ["1/3"]}, "claim": {"rhs": 5}, "steps": [{"bound": "-10/7"}]})
    assert [got[p]["numbers"] for p in ("network", "property", "proof")] == [1, 1, 1]
    assert (got["proof"]["numerator"], got["network"]["denominator"]) == (2, 1)


def test_deep_bytes_counts_arrays_by_their_data_once_and_leaves_out_what_is_skipped():
    np = pytest.importorskip("numpy")
    a = np.zeros((100, 100))
    view = a[:10]
    alone = bench.deep_bytes([a])
    assert alone >= a.nbytes
    assert bench.deep_bytes([a, view]) < alone + a.nbytes  # the view's data is its base's, counted once
    assert bench.deep_bytes([a], skip={id(a)}) < a.nbytes


def test_the_meter_measures_each_node_and_leaves_the_verdict(monkeypatch):
    from symrel.models import DenseLayer, ReLUNet
    from symrel.verification import api
    from symrel.verification.api import verify
    from symrel.vnnlib import engine, read_vnnlib_text, symbolic, worker

    for module, name in ((worker, "evaluate"), (worker, "relu_node_run"), (worker, "exact_bounds"),
                         (symbolic, "_remember"), (engine, "prepare"), (engine, "certificate"),
                         (api, "_canonical_text")):
        monkeypatch.setattr(module, name, getattr(module, name))  # put back after the test
    net = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
    prop = read_vnnlib_text("(declare-const X_0 Real) (declare-const Y_0 Real)\n"
                            "(assert (>= X_0 -1)) (assert (<= X_0 1)) (assert (<= Y_0 -0.01))")
    meter = bench.NodeMeter(traced=False)
    meter.install()
    verdict = verify(net, prop, executor="serial")
    assert (verdict.result, verdict.checked) == ("unsat", True)
    assert [r["kind"] for r in meter.nodes] == ["Closed"] * verdict.stats["nodes"]
    assert all(r["cpu"] >= 0 and r["facts"] > 0 for r in meter.nodes)
    assert meter.problem is not None and meter.rss_after_search >= meter.rss_before_search > 0
