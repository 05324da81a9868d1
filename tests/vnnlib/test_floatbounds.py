"""Float CROWN bounds (symrel.vnnlib.floatbounds): proposals, so the tests compare runs."""

import random

import pytest

np = pytest.importorskip("numpy")

from symrel.exact import Q  # noqa: E402
from symrel.models import DenseLayer, ReLUNet  # noqa: E402
from symrel.vnnlib.floatbounds import FloatBounds  # noqa: E402
from symrel.vnnlib.symbolic import integer_net  # noqa: E402


def _net(rng, widths):
    layers = []
    for k, (a, b) in enumerate(zip(widths, widths[1:])):
        layers.append(DenseLayer([[Q(rng.randint(-64, 64), 64) for _ in range(a)] for _ in range(b)],
                                 [Q(rng.randint(-16, 16), 64) for _ in range(b)],
                                 "relu" if k < len(widths) - 2 else "none"))
    return ReLUNet(widths[0], layers)


def test_a_run_from_a_base_is_the_run_from_scratch():
    """A ReLU split's part shares its node's layers below the split: the run that takes them
    from the node's run has the very floats of a run from scratch, for a split at every layer."""
    rng = random.Random(3)
    checked = 0
    for _ in range(5):
        fb = FloatBounds(integer_net(_net(rng, [3, 7, 7, 7, 7, 2])))
        lo = [rng.uniform(-1, 0) for _ in range(3)]
        hi = [v + rng.uniform(0.1, 1) for v in lo]
        fixed = {(0, rng.randrange(7)): 1}
        node = fb.run(lo, hi, fixed)
        for k in range(4):
            for i in range(7):
                if (k, i) in fixed:
                    continue
                for ph in (0, 1):
                    part = dict(fixed) | {(k, i): ph}
                    a, b = fb.run(lo, hi, part), fb.run(lo, hi, part, node, k)
                    for xs, ys in ((a.pre, b.pre), (a.relax, b.relax), (a.forms, b.forms)):
                        assert len(xs) == len(ys) == 4
                        assert all(np.array_equal(x, y) for p, q in zip(xs, ys) for x, y in zip(p, q))
                    checked += 1
    assert checked > 200


def _same_runs(a, b):
    for xs, ys in ((a.pre, b.pre), (a.relax, b.relax), (a.forms, b.forms)):
        assert len(xs) == len(ys)
        for p, q in zip(xs, ys):
            assert len(p) == len(q)
            assert all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(p, q))
    assert np.array_equal(a.lo, b.lo) and np.array_equal(a.hi, b.hi)


def test_runs_of_many_boxes_at_once_are_the_runs_box_by_box():
    """run_many stacks the boxes' backward passes (a split's scoring): bit for bit the floats of
    one run per box, with phases fixed on a few neurons, for one box and for several."""
    rng = random.Random(11)
    checked = 0
    for widths in ([3, 7, 7, 7, 7, 2], [2, 5, 1], [4, 6, 6, 3]):
        fb = FloatBounds(integer_net(_net(rng, widths)))
        for _ in range(4):
            n = widths[0]
            fixed = {(rng.randrange(len(widths) - 2), rng.randrange(widths[1 if len(widths) == 3 else 2])): ph
                     for ph in (0, 1)} if rng.random() < 0.7 else {}
            fixed = {key: ph for key, ph in fixed.items() if key[1] < widths[key[0] + 1]}
            boxes = []
            for _ in range(rng.choice([1, 2, 5, 10])):
                lo = [rng.uniform(-1, 0) for _ in range(n)]
                boxes.append((lo, [v + rng.choice([0.0, rng.uniform(0.01, 1)]) for v in lo]))  # some point boxes
            many = fb.run_many([b[0] for b in boxes], [b[1] for b in boxes], fixed)
            assert len(many) == len(boxes)
            for (lo, hi), got in zip(boxes, many):
                _same_runs(got, fb.run(lo, hi, fixed))
                checked += 1
    assert checked > 40
    assert FloatBounds(integer_net(_net(rng, [2, 3, 1]))).run_many([], [], {}) == []


def test_runs_of_many_boxes_on_an_acas_xu_net():
    """The same on a real net (ACAS Xu 1_1, six ReLU layers of 50), where the products are
    BLAS calls: twelve halves of random boxes, bit for bit."""
    from pathlib import Path

    name = "data/vnncomp2021/acasxu/ACASXU_run2a_1_1_batch_2000.onnx"
    path = next((p for p in (Path(__file__).resolve().parents[3] / "shared" / name, Path("/work/shared") / name)
                 if p.exists()), None)
    if path is None:
        pytest.skip("the vnncomp2021 ACAS Xu nets are not here")
    pytest.importorskip("onnx")
    from symrel.interop.onnx_import import read_onnx

    fb = FloatBounds(integer_net(read_onnx(path).model))
    rng = random.Random(5)
    los, his = [], []
    for _ in range(6):
        lo = [rng.uniform(-0.5, 0.5) for _ in range(5)]
        hi = [v + rng.uniform(0.001, 0.2) for v in lo]
        i = rng.randrange(5)
        mid = (lo[i] + hi[i]) / 2
        los += [lo, [mid if k == i else v for k, v in enumerate(lo)]]
        his += [[mid if k == i else v for k, v in enumerate(hi)], hi]
    fixed = {(2, 7): 1, (4, 3): 0}
    for lo, hi, got in zip(los, his, fb.run_many(los, his, fixed)):
        _same_runs(got, fb.run(lo, hi, fixed))


def test_a_run_up_to_a_layer_then_extended_is_the_full_run():
    """``upto`` stops a run at a ReLU layer; a run extended from it (its last layer as the
    base) has the very floats of the run computed at once."""
    rng = random.Random(5)
    for _ in range(4):
        fb = FloatBounds(integer_net(_net(rng, [3, 7, 7, 7, 7, 2])))
        lo = [rng.uniform(-1, 0) for _ in range(3)]
        hi = [v + rng.uniform(0.1, 1) for v in lo]
        fixed = {(1, rng.randrange(7)): 0}
        full = fb.run(lo, hi, fixed)
        for upto in range(4):
            part = fb.run(lo, hi, fixed, upto=upto)
            assert len(part.pre) == len(part.relax) == upto + 1
            rest = fb.run(lo, hi, fixed, part, upto)
            for xs, ys in ((full.pre, rest.pre), (full.relax, rest.relax), (full.forms, rest.forms)):
                assert len(xs) == len(ys) == 4
                assert all(np.array_equal(x, y) for p, q in zip(xs, ys) for x, y in zip(p, q))


def test_a_run_within_its_nodes_bounds_computes_the_nodes_unstable_neurons():
    """A part's estimate (``within`` its node's bounds) computes, above its split, the neurons
    the node leaves unstable only: a neuron the node settles keeps the node's bounds and its
    line, the others get the part's own bounds intersected with the node's (above the first
    layer over the split, tighter lines below make them differ); the estimate keeps no forms
    of those layers."""
    rng = random.Random(7)
    compared = 0
    for _ in range(4):
        fb = FloatBounds(integer_net(_net(rng, [3, 8, 8, 8, 2])))
        lo = [rng.uniform(-1, 0) for _ in range(3)]
        hi = [v + rng.uniform(0.5, 1.5) for v in lo]
        node = fb.run(lo, hi, {})
        for i in np.nonzero((node.pre[0][0] < 0) & (node.pre[0][1] > 0))[0]:
            part = {(0, int(i)): 1}
            own = fb.run(lo, hi, part, node, 0)
            est = fb.run(lo, hi, part, node, 0, within=node.pre)
            for k in (1, 2):
                (nl, nu), (ol, ou), (el, eu) = node.pre[k], own.pre[k], est.pre[k]
                unst = (nl < 0) & (nu > 0)
                assert np.array_equal(el[~unst], nl[~unst]) and np.array_equal(eu[~unst], nu[~unst])
                assert (el >= nl).all() and (eu <= nu).all()
                if k == 1:  # the layer above the split: the same layers below as the part's own
                    assert np.allclose(el[unst], np.maximum(ol, nl)[unst])
                    assert np.allclose(eu[unst], np.minimum(ou, nu)[unst])
                settled = ~unst & ((nl >= 0) | (nu <= 0))
                for x, y in zip(est.relax[k], node.relax[k]):
                    assert np.array_equal(x[settled], y[settled])
                assert est.forms[k] == (None, None, None, None)
                compared += int(unst.sum())
    assert compared > 10
