"""``symrel verify`` on layered and maxout nets: the dispatch to the layered engine
(symrel.vnnlib.layered.dispatch), the exit codes and the certificate checked."""

import json

import pytest

from symrel.fileformat import save
from symrel.models import DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
from symrel.models.layered import LayeredNet, MaxGroups, Relu, SparseAffine
from symrel.vnnlib.layered.dispatch import decide_any, verifiable

pytest.importorskip("scipy")

PROP = """; x in [-1, 1]^2, unsafe when Y_0 {op} {c}
(declare-const X_0 Real)
(declare-const X_1 Real)
(declare-const Y_0 Real)
(assert (>= X_0 -1)) (assert (<= X_0 1))
(assert (>= X_1 -1)) (assert (<= X_1 1))
(assert ({op} Y_0 {c}))
"""

# |x0| + |x1| - 1: ReLUs then a max of each pair
LAYERED = LayeredNet(2, [SparseAffine([[(0, 1)], [(0, -1)], [(1, 1)], [(1, -1)]]), Relu(4),
                         MaxGroups([[0, 1], [2, 3]]), SparseAffine([[(0, 1), (1, 1)]], [-1])])
# the same function as a maxout net
MAXOUT = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [-1, 0]], [0, 0]), MaxoutUnit([[0, 1], [0, -1]], [0, 0])])])


@pytest.mark.parametrize("net", [LAYERED, MAXOUT], ids=["layered", "maxout"])
def test_verify_decides_layered_and_maxout_nets(net, tmp_path, run_cli):
    save(net, tmp_path / "net.json")
    (tmp_path / "unsat.vnnlib").write_text(PROP.format(op="<=", c="-1.5" if net is LAYERED else "-0.5"))
    (tmp_path / "sat.vnnlib").write_text(PROP.format(op=">=", c="0.75"))
    cert = tmp_path / "c.json"
    code, out, err = run_cli("verify", tmp_path / "net.json", tmp_path / "unsat.vnnlib", "--certificate", cert)
    assert code == 0, (out, err)
    assert out.splitlines()[0] == "unsat" and "checked in" in out
    assert json.loads(cert.read_text())["inputs"]["network"]["object"]["kind"] == "layered"
    code, out, err = run_cli("verify", tmp_path / "net.json", tmp_path / "sat.vnnlib")
    assert code == 1 and out.splitlines()[0] == "sat"


def test_the_dispatch_sends_each_kind_to_its_engine(monkeypatch):
    import symrel.vnnlib.engine as dense
    import symrel.vnnlib.layered.search as layered

    seen = []
    monkeypatch.setattr(dense, "decide", lambda *a, **k: seen.append("dense"))
    monkeypatch.setattr(layered, "decide", lambda *a, **k: seen.append("layered"))
    relu = ReLUNet(1, [DenseLayer([[1]], [0], "none")])
    for net in (relu, LAYERED, MAXOUT):
        decide_any(net, None)
    assert seen == ["dense", "layered", "layered"]
    assert verifiable(relu) and verifiable(LAYERED) and verifiable(MAXOUT) and not verifiable(object())


def test_another_kind_is_refused_naming_the_file(tmp_path, run_cli):
    from symrel.models import CPWL1D

    save(CPWL1D([0, 1], [0, 1]), tmp_path / "f.json")
    (tmp_path / "p.vnnlib").write_text(PROP.format(op=">=", c="0"))
    code, out, err = run_cli("verify", tmp_path / "f.json", tmp_path / "p.vnnlib")
    assert code == 2 and "f.json" in err and "layered" in err


def test_the_python_api_verifies_a_layered_net():
    import symrel
    from symrel.vnnlib import read_vnnlib_text

    v = symrel.verify(LAYERED, read_vnnlib_text(PROP.format(op="<=", c="-1.5")), executor="serial")
    assert v.result == "unsat" and v.checked
    assert v.certificate["inputs"]["network"]["object"]["kind"] == "layered"
