"""The leaves of ReLU nets (symrel.checking.relu_leaves): the backward bounds are the same
whichever way they are computed (both sides in one pass or one side at a time, with python-flint
or without), and a check without python-flint gives the verdict and the refusal it gives with it."""

import copy
import json
import random

import pytest

from symrel.checking import CertificateError, check_certificate
from symrel.checking import relu_leaves
from symrel.exact import rational as q
from symrel.models import DenseLayer, ReLUNet
from symrel.vnnlib import LinearAtom, VnnProperty
from symrel.vnnlib.engine import decide


def _net():
    """Three ReLU layers of 6 on 2 inputs, small rational weights (seeded): deep enough that a
    leaf needs backward bounds, with inactive neurons whose entries the substitution leaves out."""
    rng = random.Random(3)

    def layer(rows, cols, activation="relu"):
        W = [[f"{rng.randint(-4, 4)}/{rng.choice((1, 2, 4))}" for _ in range(cols)] for _ in range(rows)]
        return DenseLayer(W, [f"{rng.randint(-2, 2)}/2" for _ in range(rows)], activation)

    return ReLUNet(2, [layer(6, 2), layer(6, 6), layer(6, 6), layer(1, 6, "none")])


@pytest.fixture(scope="module")
def cert():
    net = _net()
    region = ((LinearAtom((q(1), q(0)), (q(0),), q(1)), LinearAtom((q(-1), q(0)), (q(0),), q(1)),
               LinearAtom((q(0), q(1)), (q(0),), q(1)), LinearAtom((q(0), q(-1)), (q(0),), q(1))),)   # [-1, 1]^2
    top = max(abs(v) for v in net.evaluate_exact([q(0), q(0)])) + 200   # far above the net's range on the box
    unsafe = ((LinearAtom((q(0), q(0)), (q(-1),), -top),),)   # y >= top
    v = decide(net, VnnProperty(2, 1, region, unsafe, "0" * 64, "inline"), timeout=120)
    assert v.status == "unsat", v.status
    return json.loads(json.dumps(v.certificate))


def test_backward_bounds_are_the_same_in_one_pass_or_per_side_with_or_without_flint(cert, monkeypatch):
    """Every backward bound a check computes (both sides in one pass, the inactive neurons' entries
    left out) equals the bounds computed one side at a time, and those computed without
    python-flint's matrix products."""
    real, prepare = relu_leaves._backward_bounds, relu_leaves.prepare
    nets, seen = [], []

    def remember(net):
        nets.append(net)
        return prepare(net)

    def compared(layers, states, li, plo, phi, Qb, upper, pick, own=None, betas=None):
        got = real(layers, states, li, plo, phi, Qb, upper, pick, own, betas)
        if type(upper) is list:
            for side in (False, True):
                rows = [i for i, u in zip(pick, upper) if u is side]
                if rows:
                    assert real(layers, states, li, plo, phi, Qb, side, rows) == \
                        [g for g, u in zip(got, upper) if u is side]
            with monkeypatch.context() as plain:
                plain.setattr(relu_leaves, "_flint", None)
                assert real(relu_leaves._layers(nets[-1]), states, li, plo, phi, Qb, upper, pick) == got
            seen.append(len(states))
        return got

    monkeypatch.setattr(relu_leaves, "prepare", remember)
    monkeypatch.setattr(relu_leaves, "_backward_bounds", compared)
    assert check_certificate(cert)["result"] == "checked"
    assert seen and max(seen) >= 2   # bounds of the third ReLU layer, substituted through two below


def test_without_flint_the_same_verdict_and_the_same_refusal(cert, monkeypatch):
    bad = copy.deepcopy(cert)
    leaf = next(e["leaf"] for e in bad["steps"][0]["certificate"]["tree"] if "leaf" in e)
    leaf["closes"][0]["bound"] = "123456"
    with pytest.raises(CertificateError) as with_flint:
        check_certificate(bad)
    monkeypatch.setattr(relu_leaves, "_flint", None)
    assert check_certificate(cert)["result"] == "checked"
    with pytest.raises(CertificateError) as without:
        check_certificate(bad)
    assert str(without.value) == str(with_flint.value)
    assert "not 123456" in str(without.value)


def test_an_unstable_mark_on_one_grid_point_is_refused_naming_the_neuron():
    """A leaf may not mark 'u' a neuron whose bounds round to one point of the 2^-24 grid: the
    relaxation rule's chord is undefined there (docs/format.md). The line [1, 1, 0] passes the
    check 'above max(0, w)' at w = 1, so only the rule's own condition can refuse it."""
    net = ReLUNet(1, [DenseLayer([["1"]], ["0"]), DenseLayer([["1"]], ["0"], "none")])
    region = ((LinearAtom((q(1),), (q(0),), q(1)), LinearAtom((q(-1),), (q(0),), q(-1))),)   # x = 1
    unsafe = ((LinearAtom((q(0),), (q(-1),), q(-5)),),)   # y >= 5
    v = decide(net, VnnProperty(1, 1, region, unsafe, "0" * 64, "inline"), timeout=60)
    assert v.status == "unsat", v.status
    bad = json.loads(json.dumps(v.certificate))
    leaf = bad["steps"][0]["certificate"]["tree"][0]["leaf"]
    assert leaf["phases"] == ["a"]
    leaf["phases"], leaf["relaxations"] = ["u"], [[1, 1, 0]]
    with pytest.raises(CertificateError, match=r"leaf\.phases\[0\].*neuron 0 is marked 'u' but its bounds \[1, 1\] "
                                               r"round to one point of the 2\^-24 grid"):
        check_certificate(bad)


def test_times_leaves_out_zero_rows_and_unread_lower_rows_the_same_with_or_without_flint(monkeypatch):
    """The forward product over the rows of L, U not both 0, the lower forms of the rows asked for
    alone, equals the full product computed term by term, with python-flint or without."""
    rng = random.Random(5)
    n_in, m, w = 7, 5, 4
    Wi = [[rng.randint(-2 ** 60, 2 ** 60) for _ in range(n_in)] for _ in range(m)]
    layer = {"Wp": [[max(v, 0) for v in r] for r in Wi], "Wn": [[min(v, 0) for v in r] for r in Wi], "parts": {}}
    zero = {1, 4, 5}   # inactive neurons below: their forms are 0
    L = [[0] * w if j in zero else [rng.randint(-2 ** 50, 2 ** 50) for _ in range(w)] for j in range(n_in)]
    U = [[0] * w if j in zero else [v + rng.randint(0, 2 ** 50) for v in r] for j, r in enumerate(L)]
    full_l = [[sum(max(a, 0) * L[j][c] + min(a, 0) * U[j][c] for j, a in enumerate(r)) for c in range(w)] for r in Wi]
    full_u = [[sum(max(a, 0) * U[j][c] + min(a, 0) * L[j][c] for j, a in enumerate(r)) for c in range(w)] for r in Wi]
    for flint in (relu_leaves._flint, None):
        monkeypatch.setattr(relu_leaves, "_flint", flint)
        layer["mats"] = None if flint is None else flint.fmpz_mat([[1]])   # (only whether there is one)
        layer["parts"] = {}
        assert relu_leaves._times(layer, L, U) == (full_l, full_u)
        got_l, got_u = relu_leaves._times(layer, L, U, lower=[0, 3])
        assert got_u == full_u and got_l == [full_l[0], None, None, full_l[3], None]
        zeros = [[0] * w for _ in range(n_in)]
        assert relu_leaves._times(layer, zeros, zeros, lower=[2]) == ([None, None, [0] * w, None, None],
                                                                       [[0] * w] * m)


def test_a_neuron_marked_inactive_that_is_not_is_refused_in_every_layer(cert):
    """The lower forms of inactive neurons are not computed, so a leaf that marks 'i' an active or
    unstable neuron must still be refused, in the first ReLU layer and above it."""
    seen = set()
    for li in range(3):
        bad = copy.deepcopy(cert)
        for entry in bad["steps"][0]["certificate"]["tree"]:
            ph = entry["leaf"]["phases"][li] if "leaf" in entry else ""
            if "a" in ph or "u" in ph:
                at = min(ph.index(c) for c in "au" if c in ph)
                entry["leaf"]["phases"][li] = ph[:at] + "i" + ph[at + 1:]
                with pytest.raises(CertificateError, match=rf"phases\[{li}\].*neuron {at} is not inactive"):
                    check_certificate(bad)
                seen.add(li)
                break
    assert len(seen) >= 2
