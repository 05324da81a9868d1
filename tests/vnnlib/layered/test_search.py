"""The layered engine (symrel.vnnlib.layered): verdicts against z3 on random small nets, exact
witnesses, checked certificates, executors, limits."""

import json
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from symrel.checking import check_certificate
from symrel.exact import rational as q
from symrel.models.layered import LayeredNet, MaxGroups, Relu, SparseAffine
from symrel.vnnlib import LinearAtom, VnnProperty
from symrel.vnnlib.layered.search import decide

from .oracle import box_conj, random_net, random_property, z3_sat

pytest.importorskip("scipy")


def _sample_range(net, rng):
    pts = [[q(f"{rng.randint(-8, 8)}/8") for _ in range(net.input_dim)] for _ in range(40)]
    ys = [net.evaluate_exact(p) for p in pts]
    return [min(y[j] for y in ys) for j in range(net.output_dim)], [max(y[j] for y in ys) for j in range(net.output_dim)]


def _agrees(net, prop):
    v = decide(net, prop, timeout=120)
    expected = z3_sat(net, prop)
    assert v.status in ("sat", "unsat"), v
    if v.status == "sat":
        assert prop.in_region(list(v.witness_x)) and prop.holds(list(v.witness_x), net.evaluate_exact(list(v.witness_x)))
    else:
        assert check_certificate(json.loads(json.dumps(v.certificate)))["result"] == "checked"
    assert (v.status == "sat") == expected, (v.status, expected)
    return v


@pytest.mark.parametrize("seed", range(24))
def test_random_nets_agree_with_z3(seed):
    rng = random.Random(seed)
    net = random_net(rng, rng.randint(1, 3))
    y_lo, y_hi = _sample_range(net, rng)
    for _ in range(3):
        _agrees(net, random_property(rng, net, y_lo, y_hi))


def _abs_net():
    """max(x0, -x0) + max(x1, -x1) - 1 through ReLUs: |x0| + |x1| - 1."""
    return LayeredNet(2, [SparseAffine([[(0, 1)], [(0, -1)], [(1, 1)], [(1, -1)]]), Relu(4),
                          MaxGroups([[0, 1], [2, 3]]), SparseAffine([[(0, 1), (1, 1)]], [-1])])


def _prop(unsafe, lo=(-1, -1), hi=(1, 1), extra=()):
    region = (tuple(LinearAtom(a.x, (q(0),), a.rhs) for a in box_conj(lo, hi)) + tuple(extra),)
    return VnnProperty(2, 1, region, unsafe, "0" * 64, "inline")


def atom(x, y, rhs):
    return LinearAtom(tuple(q(v) for v in x), tuple(q(v) for v in y), q(rhs))


def test_the_touching_minimum_is_found_exactly():
    v = decide(_abs_net(), _prop(((atom([0, 0], [1], -1),),)))   # |x0| + |x1| - 1 <= -1 only at 0
    assert v.status == "sat" and list(v.witness_x) == [0, 0] and list(v.witness_y) == [-1]


def test_unsat_with_a_checked_certificate_and_full_coverage():
    v = _agrees(_abs_net(), _prop(((atom([0, 0], [1], "-1001/1000"),), (atom([0, 0], [-1], "-11/10"),))))
    assert v.status == "unsat" and v.covered == 1
    assert v.certificate["inputs"]["network"]["object"]["kind"] == "layered"


def test_the_verdict_and_certificate_do_not_depend_on_the_executor():
    rng = random.Random(7)
    net = random_net(rng, 2)
    y_lo, y_hi = _sample_range(net, rng)
    props = [random_property(rng, net, y_lo, y_hi) for _ in range(4)]
    serial = [decide(net, p) for p in props]
    with ThreadPoolExecutor(2) as pool:
        threaded = [decide(net, p, executor=pool, batch=3) for p in props]
    for a, b in zip(serial, threaded):
        assert a.status == b.status
        if a.status == "unsat":
            assert check_certificate(json.loads(json.dumps(b.certificate)))["result"] == "checked"


def test_a_timeout_of_zero_is_unknown_with_the_region_open():
    v = decide(_abs_net(), _prop(((atom([0, 0], [1], "-1001/1000"),),)), timeout=0)
    assert v.status == "unknown" and v.limit == "time" and v.covered == 0 and len(v.open_leaves) == 1


def test_a_tree_limit_is_unknown_naming_the_limit():
    v = decide(_abs_net(), _prop(((atom([0, 0], [1], "-999/1000"),),)), max_tree_entries=0)
    assert v.status == "unknown" and v.limit == "tree entries"


def test_a_certificate_beyond_the_leaf_operations_limit_is_not_written():
    v = decide(_abs_net(), _prop(((atom([0, 0], [1], "-1001/1000"),),)), max_leaf_operations=1)
    assert v.status == "unknown" and v.limit == "leaf operations" and v.certificate is None


def test_progress_is_reported_per_round():
    seen = []
    decide(_abs_net(), _prop(((atom([0, 0], [1], "-1001/1000"),),)), progress=seen.append)
    assert seen and "nodes" in seen[-1] and "open" in seen[-1]


def test_a_process_pool_gives_the_serial_certificate():
    from symrel.parallel import RestartingProcessPool

    rng = random.Random(28)
    net = random_net(rng, rng.randint(1, 3))
    y_lo, y_hi = _sample_range(net, rng)
    prop = [random_property(rng, net, y_lo, y_hi) for _ in range(3)][2]
    pool = RestartingProcessPool(2)
    try:
        parallel = decide(net, prop, executor=pool, batch=2)
    finally:
        pool.shutdown()
    serial = decide(net, prop, batch=2)
    assert parallel.status == serial.status == "unsat"
    assert json.dumps(parallel.certificate) == json.dumps(serial.certificate)


def test_a_net_beyond_the_arithmetic_limits_is_unknown_naming_the_limit():
    from symrel.exact.sizes import arithmetic_limits

    net = LayeredNet(2, [SparseAffine([[(0, q(f"1/{10 ** 100 + 2 * k + 1}")), (1, 1)] for k in range(8)]), Relu(8),
                         SparseAffine([[(j, 1) for j in range(8)]])])
    with arithmetic_limits(denominator_bits=500):
        v = decide(net, _prop(((atom([0, 0], [1], -1),),)))
    assert v.status == "unknown" and v.limit == "denominator bits"


def test_a_fresh_box_is_attacked_before_any_lp(monkeypatch):
    """|x0| + |x1| - 1 >= 1/2 holds at the box's corners: the attack finds one before an LP runs."""
    from symrel.vnnlib.layered import worker

    def no_lp(*args, **kwargs):
        raise AssertionError("an LP ran on a box the attack could refute")

    monkeypatch.setattr(worker, "multipliers", no_lp)
    net, prop = _abs_net(), _prop(((atom([0, 0], [-1], "-1/2"),),))
    v = decide(net, prop)
    assert v.status == "sat" and v.stats["attacks"] == 1 and prop.holds(list(v.witness_x), net(list(v.witness_x)))


def test_a_refuted_early_candidate_leaves_the_same_tree(monkeypatch):
    """A float point the exact check refutes: the node is evaluated again without the attack,
    and the verdict and the certificate are those of a search whose attack finds nothing."""
    from symrel.vnnlib.layered import worker

    net = _abs_net()
    prop = _prop(((atom([0, 0], [1], "-1001/1000"),), (atom([0, 0], [-1], "-11/10"),)))
    monkeypatch.setattr(worker, "_attack", lambda *args: None)
    quiet = decide(net, prop)
    monkeypatch.setattr(worker, "_attack", lambda problem, node, flo, fhi, todo: tuple(float(v) for v in flo))
    refuted = decide(net, prop)   # the box's corner, which meets no unsafe disjunct
    assert quiet.status == refuted.status == "unsat" and refuted.stats["attacks"] >= 1
    assert json.dumps(refuted.certificate, sort_keys=True) == json.dumps(quiet.certificate, sort_keys=True)
    assert check_certificate(json.loads(json.dumps(refuted.certificate)))["result"] == "checked"
