"""The exact engine (symrel.vnnlib.engine): known verdicts, exact witnesses, executors."""

import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from symrel.exact import rational as q
from symrel.models import DenseLayer, ReLUNet
from symrel.vnnlib import LinearAtom, VnnProperty
from symrel.vnnlib.engine import decide

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "vnncomp2021"
if not DATA.exists():
    DATA = Path("/work/shared/data/vnncomp2021")


def atom(x, y, rhs):
    return LinearAtom(tuple(q(v) for v in x), tuple(q(v) for v in y), q(rhs))


def box_region(lo, hi):
    n = len(lo)
    conj = []
    for i in range(n):
        e = [0] * n
        e[i] = 1
        conj.append(atom(e, [0], hi[i]))
        e = [0] * n
        e[i] = -1
        conj.append(atom(e, [0], str(-q(lo[i]))))
    return (tuple(conj),)


# |x0| + |x1| - 1, a net with two unstable layers of ReLUs
NET = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0]),
                  DenseLayer([[1, 1, 1, 1]], [-1], "none")])


def prop(unsafe, lo=("-1", "-1"), hi=("1", "1")):
    return VnnProperty(2, 1, box_region(lo, hi), unsafe, "0" * 64, "inline")


def test_unsat_small_net_with_certificate():
    v = decide(NET, prop(((atom([0, 0], [1], "-1001/1000"),),)))  # f <= -1.001 never (f >= -1)
    assert v.status == "unsat"
    assert v.certificate["claim"]["kind"] == "vnnlib-unsat"
    assert v.covered == 1


def test_touching_minimum_is_sat_exactly():
    v = decide(NET, prop(((atom([0, 0], [1], "-1"),),)))  # f <= -1 only at x = 0
    assert v.status == "sat"
    assert list(v.witness_x) == [0, 0] and list(v.witness_y) == [-1]


def test_sat_witness_is_exact_and_in_box():
    p = prop(((atom([0, 0], [-1], "-3/4"),),))  # f >= 3/4
    v = decide(NET, p)
    assert v.status == "sat"
    assert p.in_region(list(v.witness_x)) and p.holds(list(v.witness_x), list(NET.evaluate_exact(list(v.witness_x))))


def test_disjunctions_and_serial_equals_threads():
    p = prop(((atom([0, 0], [-1], "-2"),), (atom([1, 0], [1], "-3/2"),)))  # f >= 2 or x0 + f <= -3/2
    serial = decide(NET, p)
    with ThreadPoolExecutor(2) as pool:
        threaded = decide(NET, p, executor=pool)
    assert serial.status == threaded.status == "unsat"
    assert serial.certificate == threaded.certificate


def test_timeout_is_unknown_with_open_leaves():
    v = decide(NET, prop(((atom([0, 0], [1], "-1001/1000"),),)), timeout=0)
    assert v.status == "unknown" and v.open_leaves and v.covered == 0 and v.limit == "time"




# g = relu(x0) - 2 relu(x0 - 1/2) >= 0 on [-1, 1]^2, so g <= -1/4 never holds; at the root the
# best relaxation (the triangle LP's) bounds g by -1/2 only (at x0 = 0), and one split closes
# both parts. (NET's functions are sums of |x_i|: the LP's slopes bound them exactly.)
HUMP = ReLUNet(2, [DenseLayer([[1, 0], [1, 0]], [0, "-1/2"]), DenseLayer([[1, -2]], [0], "none")])
SPLIT_ONCE = prop(((atom([0, 0], [1], "-1/4"),),))


def test_tree_entries_limit_is_unknown_with_its_name():
    """Without a timeout the search stops at a named size limit (no unbounded queue)."""
    v = decide(HUMP, SPLIT_ONCE, max_tree_entries=1)
    assert v.status == "unknown" and v.limit == "tree entries" and v.open_leaves
    assert len(v.open_leaves) + v.stats["nodes"] > 1


def test_leaf_operations_limit_is_unknown_with_its_name():
    full = decide(HUMP, SPLIT_ONCE, batch=1)
    assert full.status == "unsat" and full.stats["leaves"] == 2
    v = decide(HUMP, SPLIT_ONCE, batch=1, max_leaf_operations=0)
    assert v.status == "unknown" and v.limit == "leaf operations" and v.covered == q("1/2")


def test_default_limits_are_the_checkers():
    """A search never builds a certificate the trusted checker would refuse for its size."""
    import inspect

    from symrel.checking.vnnlib import MAX_LEAF_OPERATIONS, MAX_TREE_ENTRIES

    params = inspect.signature(decide).parameters
    assert params["max_tree_entries"].default == MAX_TREE_ENTRIES
    assert params["max_leaf_operations"].default == MAX_LEAF_OPERATIONS


@pytest.mark.skipif(not (DATA / "test").exists(), reason="../shared/data/vnncomp2021 absent")
@pytest.mark.parametrize("onnx_name, vnnlib_name, expected", [
    ("test_nano", "test_nano", "unsat"), ("test_tiny", "test_tiny", "unsat"), ("test_small", "test_small", "unsat"),
    ("test_sat", "test_prop", "sat"), ("test_unsat", "test_prop", "unsat")])
def test_vnncomp_test_set(onnx_name, vnnlib_name, expected):
    pytest.importorskip("onnx")
    from symrel.interop.onnx_import import read_onnx
    from symrel.vnnlib.reader import read_vnnlib

    net = read_onnx(DATA / "test" / f"{onnx_name}.onnx").model
    p = read_vnnlib(DATA / "test" / f"{vnnlib_name}.vnnlib")
    v = decide(net, p, timeout=300)
    assert v.status == expected
    if expected == "sat":
        y = net.evaluate_exact(list(v.witness_x))
        assert p.in_region(list(v.witness_x)) and p.holds(list(v.witness_x), y)
        assert list(y) == list(v.witness_y)
        onnxruntime_agrees(DATA / "test" / f"{onnx_name}.onnx", v.witness_x, y)


def onnxruntime_agrees(path, x, y):
    """The witness run through onnxruntime (float32) gives the exact outputs within 1e-4."""
    ort = pytest.importorskip("onnxruntime")
    import numpy as np

    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    shape = [d if isinstance(d, int) else 1 for d in inp.shape]
    xs = np.array([int(v.numerator) / int(v.denominator) for v in x], dtype=np.float32).reshape(shape)
    out = sess.run(None, {inp.name: xs})[0].reshape(-1)
    assert all(abs(float(a) - int(b.numerator) / int(b.denominator)) < 1e-4 for a, b in zip(out, y))


@pytest.mark.skipif(not (DATA / "acasxu").exists(), reason="../shared/data/vnncomp2021 absent")
def test_acasxu_sub_box_unsat_certificate_checked_and_threads_agree():
    """Property 3 on network 1-6 restricted to the lower eighth of each input's range."""
    pytest.importorskip("onnx")
    from symrel.checking import check_certificate
    from symrel.interop.onnx_import import read_onnx
    from symrel.vnnlib.reader import read_vnnlib

    net = read_onnx(DATA / "acasxu" / "ACASXU_run2a_1_6_batch_2000.onnx").model
    p = read_vnnlib(DATA / "acasxu" / "prop_3.vnnlib")
    lo, hi = p.boxes()[0]
    region = []
    for i in range(5):
        e = [0] * 5
        e[i] = 1
        region.append(LinearAtom(tuple(q(v) for v in e), (q(0),) * 5, lo[i] + (hi[i] - lo[i]) / 4))
        region.append(LinearAtom(tuple(q(-v) for v in e), (q(0),) * 5, -lo[i]))
    sub = VnnProperty(5, 5, (tuple(region),), p.unsafe, p.sha256, "prop_3 sub-box")
    serial = decide(net, sub, timeout=600)
    assert serial.status == "unsat"
    assert check_certificate(json.loads(json.dumps(serial.certificate)))["result"] == "checked"
    with ThreadPoolExecutor(2) as pool:
        assert decide(net, sub, executor=pool, timeout=600).certificate == serial.certificate


@pytest.mark.skipif(not (DATA / "acasxu").exists(), reason="../shared/data/vnncomp2021 absent")
def test_acasxu_input_the_sb_score_misses_is_split():
    """Property 1 on network 5-1: near one corner X_2 has no weight in the lower form (its
    coefficients cancel through the relaxations) while its width keeps ~150 neurons unstable;
    the "sb" score alone halved the other inputs forever (depth 90, issue 28). The widest
    input, a candidate too, closes both its halves."""
    pytest.importorskip("onnx")
    pytest.importorskip("numpy")
    from symrel.checking import check_certificate
    from symrel.interop.onnx_import import read_onnx
    from symrel.vnnlib.reader import read_vnnlib

    net = read_onnx(DATA / "acasxu" / "ACASXU_run2a_5_1_batch_2000.onnx").model
    p = read_vnnlib(DATA / "acasxu" / "prop_1.vnnlib")
    v = decide(net, p, timeout=600)
    assert v.status == "unsat" and v.stats["max_depth"] <= 20
    assert check_certificate(json.loads(json.dumps(v.certificate)))["result"] == "checked"


# relu(x0 - x1) - relu(x0 - x1) = 0: the bound 0 touches the threshold of "f >= 1e-9" on the
# diagonal, where input splits never settle the ReLUs; ReLU splits (and a beta) close it
TWIN = ReLUNet(2, [DenseLayer([[1, -1], [1, -1]], [0, 0]), DenseLayer([[1, -1]], [0], "none")])


def test_touching_threshold_closes_by_relu_splits_and_threads_agree():
    from symrel.checking import check_certificate

    pytest.importorskip("numpy")
    p = prop(((atom([0, 0], [-1], "-1/1000000000"),),))
    serial = decide(TWIN, p, timeout=120)
    assert serial.status == "unsat" and serial.stats["relu_splits"] >= 1
    assert check_certificate(json.loads(json.dumps(serial.certificate)))["result"] == "checked"
    with ThreadPoolExecutor(2) as pool:
        assert decide(TWIN, p, executor=pool, timeout=120).certificate == serial.certificate


def test_weights_at_the_ends_of_the_double_range():
    """A weight of 2^-1070 (its layer's common denominator beyond a double's range, its
    quotient a denormal) is decided and certified as any other; the crossing cut through a
    neuron of that slope, whose zero the floats put at infinity, is no candidate. A weight
    of 2^1100, which no double holds, is refused with an InputError naming the network."""
    from symrel.checking import check_certificate
    from symrel.errors import InputError

    tiny = q(1) / q(2) ** 1070
    net = ReLUNet(2, [DenseLayer([[tiny, 0], [0, 1]], ["-1/2", "-1/2"]), DenseLayer([[1, 1]], [0], "none")])
    v = decide(net, prop(((atom([0, 0], [-1], "-1"),),)))  # f >= 1: f <= 1/2 on the box
    assert v.status == "unsat"
    check_certificate(v.certificate)
    try:
        import numpy
    except ImportError:  # the exact path alone: no float bounds to look at
        numpy = None
    if numpy is not None:
        from symrel.vnnlib.branching import crossing
        from symrel.vnnlib.floatbounds import FloatBounds
        from symrel.vnnlib.symbolic import integer_net

        run = FloatBounds(integer_net(net)).run([-1.0, -1.0], [1.0, 1.0], {})
        assert crossing(run, 0, 0, [q(-1), q(-1)], [q(1), q(1)], [0, 1]) is None
    huge = ReLUNet(2, [DenseLayer([[q(2) ** 1100, 0], [0, 1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])
    with pytest.raises(InputError, match="range of a double") as err:
        decide(huge, prop(((atom([0, 0], [-1], "-1"),),)))
    assert err.value.path == "network"


def test_a_leaf_the_checker_would_refuse_stops_the_search_at_its_limit():
    """relu(10^200 (x_0 - x_1)) on x_0 in [-10^200, 10^200]: the floats overflow (their gaps
    are NaN), so the exact bounds judge the root; they close it (the output is never below -1),
    but the relaxation's slope needs more bits than the checker's ``relaxation bits`` limit.
    The answer is unknown at that limit, at once and the same on threads, never a certificate
    the checker refuses (nor a search that splits until the time runs out)."""
    w = q(10) ** 200
    net = ReLUNet(2, [DenseLayer([[w, -w]], [0]), DenseLayer([[1]], [0], "none")])
    p = prop(((atom([0, 0], [1], "-1"),),), lo=(str(-w), "0"), hi=(str(w), "1"))
    with ThreadPoolExecutor(2) as pool:
        for executor in (None, pool):
            v = decide(net, p, timeout=60, executor=executor)
            assert v.status == "unknown" and v.limit == "relaxation bits"
            assert v.stats["nodes"] == 0 and len(v.open_leaves) == 1 and v.covered == 0


@pytest.mark.parametrize("point, rhs, status", [
    (("0", "0"), "-1", "sat"),  # f(0, 0) = -1 <= -1: the point itself, where f touches the bound
    (("0", "0"), "-2", "unsat"),
    (("1/3", "1/7"), "-1/2", "sat"),  # f = -11/21, below -1/2 by 1/42
    (("1/3", "1/7"), "-1", "unsat"),
])
def test_a_region_that_is_one_point(point, rhs, status):
    """A region of one point is decided by the point's exact values: a counterexample is the
    point itself, exactly (an internal error 'a node that is a single point stayed open'
    before, when the floats did not see the counterexample), and unsat comes with a
    certificate the checker accepts."""
    from symrel.checking import check_certificate

    v = decide(NET, prop(((atom([0, 0], [1], rhs),),), lo=point, hi=point))
    assert v.status == status and v.stats["nodes"] == 1
    if status == "sat":
        assert list(v.witness_x) == [q(c) for c in point] and NET.evaluate_exact(list(v.witness_x))[0] <= q(rhs)
    else:
        check_certificate(v.certificate)


# |x0 - 1/3| + |x1 - 1/5| - 1: its minimum -1 only at (1/3, 1/5), a point no halving reaches
OFF_GRID = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, -1]], ["-1/3", "1/3", "-1/5", "1/5"]),
                       DenseLayer([[1, 1, 1, 1]], [-1], "none")])


def test_a_counterexample_off_the_dyadic_grid_is_found_exactly_and_threads_agree():
    """f <= -1 holds only at (1/3, 1/5): every float proposal misses it, and the search once
    halved the box round it until the time ran out (unknown at 20 s, depth 1,102). The exact LP
    on the linear region of the first refuted proposal finds the point itself."""
    p = prop(((atom([0, 0], [1], "-1"),),))
    serial = decide(OFF_GRID, p, timeout=60)
    assert serial.status == "sat" and list(serial.witness_x) == [q("1/3"), q("1/5")]
    assert list(serial.witness_y) == [-1] and serial.stats["region_lps"] >= 1
    with ThreadPoolExecutor(2) as pool:
        threads = decide(OFF_GRID, p, timeout=60, executor=pool)
    assert threads.witness_x == serial.witness_x and threads.stats == dict(serial.stats, seconds=threads.stats["seconds"])


def test_region_lp_of_a_near_miss_finds_nothing():
    """Just below the minimum (f <= -1 - 10^-6): unsat, with a certificate the checker accepts;
    a region LP of a point there finds no counterexample."""
    from symrel.checking import check_certificate
    from symrel.vnnlib.pattern import linear_region, region_witness
    from symrel.vnnlib.symbolic import integer_net

    p = prop(((atom([0, 0], [1], "-1000001/1000000"),),))
    v = decide(OFF_GRID, p, timeout=60)
    assert v.status == "unsat"
    check_certificate(v.certificate)
    near = [q("3333/10000"), q("2/10")]
    region = linear_region(integer_net(OFF_GRID), near)
    assert region.phases == (False, True, True, True)  # x0 < 1/3; x1 = 1/5: both of its ReLUs at 0, active
    assert region_witness(region, [q(-1)] * 2, [q(1)] * 2, p.unsafe) is None
    assert region_witness(region, [q(-1)] * 2, [q(1)] * 2,
                          prop(((atom([0, 0], [1], "-1"),),)).unsafe) == (q("1/3"), q("1/5"))


def quarters(rows):
    return [[f"{v}/4" for v in row] for row in rows]


# a 2-6-6-1 net with weights in quarters (seeded random), and a threshold 1/50 below its least
# value on a grid of the box: unsat, by a tree of input and ReLU splits with betas and slopes
PINNED = ReLUNet(2, [
    DenseLayer(quarters([[2, -4], [4, -7], [-6, -5], [3, -7], [8, -2], [-7, -6]]), quarters([[2, 2, -3, -1, -3, 4]])[0]),
    DenseLayer(quarters([[5, -7, -5, -1, -7, 4], [-7, -1, -7, -4, 1, 5], [-4, -5, 1, -3, -5, -2],
                         [3, -5, -6, -7, -2, 7], [5, 2, 6, 6, 3, 1], [-1, -3, -1, -6, 1, 8]]),
               quarters([[3, 1, 3, 0, -3, -3]])[0]),
    DenseLayer(quarters([[8, 5, -3, 2, -4, 7]]), quarters([[2]])[0], "none")])
#: the sha256 of the canonical JSON of PINNED's certificate, as the engine wrote it when the
#: engine was split into modules (issue 40) and before
PINNED_SHA256 = "5a611cbf5d4ab621e9822b08ca0c783be478b5ad950c70e7f8fd4805bbf4ddd2"


def test_the_certificate_of_a_small_instance_is_pinned():
    """The search's tree and facts, byte for byte: a change meant to keep the engine's behaviour
    (a restructuring, a faster primitive) keeps this hash; a deliberate change of the search or
    of the format changes it, and the new hash is pinned with the reason in its commit. The
    tree has input splits, ReLU splits, betas and slopes, so each of them is pinned."""
    pytest.importorskip("numpy")  # without numpy the engine bounds every node exactly: another tree
    from symrel.checking import check_certificate
    from symrel.fileformat.canonical import canonical_dumps

    v = decide(PINNED, prop(((atom([0, 0], [1], "-777/100"),),)))
    assert v.status == "unsat"
    assert {k: v.stats[k] for k in ("nodes", "leaves", "relu_splits")} == {"nodes": 15, "leaves": 8, "relu_splits": 4}
    text = canonical_dumps(v.certificate)
    assert all(word in text for word in ('"relu":', '"split":', '"beta":', '"alpha":'))
    assert check_certificate(json.loads(text))["result"] == "checked"
    assert hashlib.sha256(text.encode()).hexdigest() == PINNED_SHA256
