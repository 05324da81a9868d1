"""The ReLU-split search of nets with many inputs (symrel.vnnlib.relu_branch): verdicts with
checked certificates and exact witnesses, splits on ReLUs only."""

import random

import pytest

pytest.importorskip("numpy")
pytest.importorskip("scipy")
from symrel.checking import check_certificate  # noqa: E402
from symrel.exact import Q  # noqa: E402
from symrel.models import DenseLayer, ReLUNet  # noqa: E402
from symrel.vnnlib import LinearAtom, VnnProperty  # noqa: E402
from symrel.vnnlib import relu_branch  # noqa: E402
from symrel.vnnlib.engine import decide  # noqa: E402

N = relu_branch.RELU_ONLY_INPUTS


def _net(seed):
    rng = random.Random(seed)
    W1 = [[Q(rng.randint(-8, 8), 64) for _ in range(N)] for _ in range(8)]
    W2 = [[Q(rng.randint(-8, 8), 8) for _ in range(8)] for _ in range(6)]
    W3 = [[Q(rng.randint(-8, 8), 8) for _ in range(6)] for _ in range(2)]
    return ReLUNet(N, [DenseLayer(W1, [Q(rng.randint(-4, 4), 16) for _ in range(8)]),
                       DenseLayer(W2, [Q(rng.randint(-4, 4), 16) for _ in range(6)]),
                       DenseLayer(W3, [Q(0), Q(0)], "none")])


def _prop(eps, rhs):
    """``|x_i - 1/2| <= eps``; unsafe: ``y_0 - y_1 <= rhs``."""
    region = []
    for i in range(N):
        e = [Q(0)] * N
        e[i] = Q(1)
        region.append(LinearAtom(tuple(e), (Q(0), Q(0)), Q(1, 2) + eps))
        e = [Q(0)] * N
        e[i] = Q(-1)
        region.append(LinearAtom(tuple(e), (Q(0), Q(0)), -(Q(1, 2) - eps)))
    unsafe = ((LinearAtom(tuple([Q(0)] * N), (Q(1), Q(-1)), rhs),),)
    return VnnProperty(N, 2, (tuple(region),), unsafe, "0" * 64, "inline")


def test_unsat_by_relu_splits_alone_with_a_checked_certificate():
    """A bound the root's floats leave open (found by trying right-hand sides above the plain
    float bound): closed after ReLU splits alone, the certificate checked, a tampered bound refused."""
    from symrel.checking import CertificateError

    for seed, eps, rhs in ((1, Q(1, 8), Q(-2107, 1024)), (3, Q(1, 4), Q(-721, 256))):
        v = decide(_net(seed), _prop(eps, rhs))
        assert v.status == "unsat" and v.stats["relu_splits"] >= 1
        tree = v.certificate["steps"][0]["certificate"]["tree"]
        assert all("leaf" in e or "relu" in e for e in tree)    # no input split
        check_certificate(v.certificate)
        leaf = next(e["leaf"] for e in tree if "leaf" in e)
        leaf["closes"][0]["bound"] = str(Q(leaf["closes"][0]["bound"]) + 1)
        with pytest.raises(CertificateError):
            check_certificate(v.certificate)


def test_sat_found_and_exact():
    net = _net(2)
    eps = Q(1, 8)
    v = decide(net, _prop(eps, Q(-1, 4)))
    assert v.status == "sat"
    x = list(v.witness_x)
    assert all(abs(xi - Q(1, 2)) <= eps for xi in x)
    y = net.evaluate_exact(x)
    assert y == list(v.witness_y) and y[0] - y[1] <= Q(-1, 4)


def _certificate(seed=2, eps=Q(1, 4), rhs=Q(-1791, 256)):
    """A certificate closed at the root with tightened intermediate bounds ('tighten')."""
    v = decide(_net(seed), _prop(eps, rhs))
    assert v.status == "unsat"
    return v.certificate


def test_tightened_bounds_are_written_and_checked():
    cert = _certificate()
    leaf = cert["steps"][0]["certificate"]["tree"][-1]["leaf"]
    assert leaf.get("tighten")
    check_certificate(cert)


@pytest.mark.parametrize("tamper, says", [
    (lambda t: t[0]["lower"].__setitem__(0, "3/2"), "0 <= alpha <= 1"),
    (lambda t: t[0]["lower"].append(0), "expected"),
    (lambda t: t[0].__setitem__("relu", [0, t[0]["relu"][1]]), "exact on the box"),
    (lambda t: t.append(dict(t[0])), "increasing order"),
    (lambda t: t[0].__setitem__("scale", 2), "scale"),
    (lambda t: [t[0].pop("lower"), t[0].pop("upper")], "a side"),
    (lambda t: t[0].__setitem__("relu", [1, 10 ** 6]), "relu[1]"),
])
def test_a_tampered_tightening_is_refused(tamper, says):
    from symrel.checking import CertificateError

    cert = _certificate()
    tamper(cert["steps"][0]["certificate"]["tree"][-1]["leaf"]["tighten"])
    with pytest.raises(CertificateError) as err:
        check_certificate(cert)
    assert says in str(err.value)


def test_a_changed_slope_changes_a_relaxation_and_is_refused():
    """The slopes are free, but the relaxations recorded are those of the bounds they give: a
    slope changed to another value in [0, 1] moves some bound, and the leaf's relaxation (or
    its close) no longer matches."""
    from symrel.checking import CertificateError

    cert = _certificate()
    entries = cert["steps"][0]["certificate"]["tree"][-1]["leaf"]["tighten"]
    for e in entries:
        for side in ("lower", "upper"):
            e[side] = [0 for _ in e[side]]
    with pytest.raises(CertificateError):
        check_certificate(cert)


def _split_certificate():
    """A certificate whose leaves have splits below tightened layers (multipliers written)."""
    for seed, eps, rhs in ((1, Q(1, 8), Q(-2107, 1024)), (3, Q(1, 4), Q(-721, 256)), (5, Q(1, 4), Q(-89, 64))):
        v = decide(_net(seed), _prop(eps, rhs))
        if v.status != "unsat":
            continue
        for e in v.certificate["steps"][0]["certificate"]["tree"]:
            for t in e.get("leaf", {}).get("tighten", ()):
                if "lower_beta" in t:
                    return v.certificate, t
    return None, None


def test_multipliers_of_tightened_bounds_are_checked_and_tampering_refused():
    from symrel.checking import CertificateError

    cert, entry = _split_certificate()
    if cert is None:
        pytest.skip("no leaf with a multiplier of a tightened bound among these properties")
    check_certificate(cert)
    good = list(entry["lower_beta"])
    entry["lower_beta"] = good + [0]
    with pytest.raises(CertificateError):
        check_certificate(cert)
    entry["lower_beta"] = ["-1"] + good[1:]
    with pytest.raises(CertificateError, match="beta >= 0"):
        check_certificate(cert)
    entry["lower_beta"] = good
    upper = entry.pop("upper")
    with pytest.raises(CertificateError, match="upper_beta without upper"):
        check_certificate(cert)
    entry["upper"] = upper


def test_a_relu_splits_parts_start_from_their_nodes_optimised_slopes(monkeypatch):
    """The slopes and multipliers a node optimised travel with its parts (not in a worker's
    cache, which missed most parents): each part's plan starts from its parent's."""
    from symrel.vnnlib import worker

    seen = []
    plan = relu_branch.plan

    def spy(ctx, d, run, splits, gaps, proposals=None, warm=None, kept=None):
        out = plan(ctx, d, run, splits, gaps, proposals, warm, kept)
        seen.append((tuple(splits), warm, dict(kept)))
        return out

    monkeypatch.setattr(worker, "relu_plan", spy)
    monkeypatch.setattr(relu_branch, "_OPTIMA", {})
    v = decide(_net(1), _prop(Q(1, 8), Q(-2107, 1024)))
    assert v.status == "unsat" and v.stats["relu_splits"] >= 1
    kept = {s: k for s, _, k in seen}
    parts = [(s, w) for s, w, _ in seen if s]
    assert parts and any(w for _, w in parts)
    for s, w in parts:
        assert (relu_branch.unpack(w) if w else None) == (relu_branch.unpack(kept[s[:-1]]) if kept[s[:-1]] else None)


def test_a_nodes_run_does_not_depend_on_what_its_worker_did_before():
    """A node's float run is a function of its box and splits alone: the same floats after
    its parent's candidate scoring (which computed an estimate of this part) as on its own."""
    import numpy as np

    from symrel.vnnlib.problem import prepare, region_box, to_float

    net, prop = _net(1), _prop(Q(1, 8), Q(-2107, 1024))
    boxes = [region_box(c, prop.n_inputs, "input disjunct 0") for c in prop.input_region]
    ctx = prepare(net, prop, boxes)
    flo, fhi = [to_float(v) for v in boxes[0][0]], [to_float(v) for v in boxes[0][1]]
    root = relu_branch.node_run(ctx, flo, fhi, ())
    k, i = next((k, int(i)) for k, (l, u) in enumerate(root.pre[:-1]) for i in np.nonzero((l < 0) & (u > 0))[0])
    split = ((k, i, 1),)
    alone = relu_branch.node_run(ctx, flo, fhi, split)
    relu_branch.node_run(ctx, flo, fhi, ())
    relu_branch.child_gap(ctx, 0, flo, fhi, {(k, i): 1}, split, root, k)
    after = relu_branch.node_run(ctx, flo, fhi, split)
    for (a, b), (c, e) in zip(after.pre, alone.pre):
        assert np.array_equal(a, c) and np.array_equal(b, e)


def _deep_net():
    """A random 64-input net of three hidden layers of 16 whose property below takes a
    ReLU-split tree of 89 nodes, 12 deep."""
    rng = random.Random(1)
    layers, m = [], N
    for _ in range(3):
        W = [[Q(rng.randint(-64, 64), 64) for _ in range(m)] for _ in range(16)]
        layers.append(DenseLayer(W, [Q(rng.randint(-16, 16), 64) for _ in range(16)]))
        m = 16
    layers.append(DenseLayer([[Q(rng.randint(-64, 64), 64) for _ in range(m)] for _ in range(2)], [Q(0), Q(0)], "none"))
    return ReLUNet(N, layers)


def test_a_process_pool_gives_the_serial_certificate_on_a_deep_tree():
    """The certificate of a ReLU-split search of 89 nodes is byte for byte the serial one on
    a pool of two processes, where parts are evaluated in other workers than their parents
    (before, a worker reused runs it still held, and two nodes' slopes changed with the
    scheduling)."""
    from concurrent.futures import ProcessPoolExecutor

    net, rng = _deep_net(), random.Random(2)
    centre = [Q(rng.randint(0, 64), 64) for _ in range(N)]
    y = net.evaluate_exact(centre)
    t = 0 if y[0] > y[1] else 1
    eps = Q(7, 128)
    region = []
    for i in range(N):
        e = [Q(0)] * N
        e[i] = Q(-1)
        region.append(LinearAtom(tuple(e), (Q(0), Q(0)), -(centre[i] - eps)))
        e = [Q(0)] * N
        e[i] = Q(1)
        region.append(LinearAtom(tuple(e), (Q(0), Q(0)), centre[i] + eps))
    ay = [Q(0), Q(0)]
    ay[t], ay[1 - t] = Q(1), Q(-1)
    prop = VnnProperty(N, 2, (tuple(region),), ((LinearAtom(tuple([Q(0)] * N), tuple(ay), Q(0)),),), "0" * 64, "inline")
    serial = decide(net, prop, timeout=300)
    assert serial.status == "unsat" and serial.stats["relu_splits"] >= 20 and serial.stats["max_depth"] >= 8
    check_certificate(serial.certificate)
    with ProcessPoolExecutor(2) as pool:
        pooled = decide(net, prop, executor=pool, timeout=300)
    assert pooled.certificate == serial.certificate
