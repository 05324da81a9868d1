import json

import pytest

NET = {"symrel": 1, "kind": "maxout", "input_dim": 2,
       "layers": [{"units": [{"pieces": [{"w": [1, "-2/3"], "b": "1/2"}, {"w": [0, 1], "b": 0}, {"w": [2, 1], "b": -1}]},
                             {"pieces": [{"w": [1, 1], "b": 0}, {"w": [-1, 0], "b": 0}]}]},
                  {"units": [{"pieces": [{"w": [1, 2], "b": 0}, {"w": [2, 1], "b": 0}]}]}],
       "readout": {"W": [[2]], "b": ["1/3"]}}
BOX = {"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1]]}
BIG = {"symrel": 1, "kind": "box", "bounds": [[-5, 5], [-5, 5]]}


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, obj in (("net", NET), ("box", BOX), ("big", BIG)):
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(json.dumps(obj))
    out["dir"] = tmp_path
    return out


def test_compile_prove_check(run_cli, files):
    d = files["dir"]
    code, out, err = run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t.json")
    assert code == 0 and (d / "t.json").exists() and "gating bounds B" in out
    code, out, err = run_cli("prove", files["net"], d / "t.json", "--domain", files["box"],
                             "--certificate", d / "c.json", "--report", d / "r.md")
    assert code == 0 and out.strip().splitlines()[-1] == "proved"
    assert "hardmax" in (d / "r.md").read_text()
    code, out, err = run_cli("check-certificate", d / "c.json")
    assert code == 0 and out.strip().splitlines()[-1] == "checked"
    # an altered number: exit 1, naming the step
    cert = json.loads((d / "c.json").read_text())
    cert["steps"][-1]["certificate"]["outputs"][0][0] = "1/7"
    (d / "bad.json").write_text(json.dumps(cert))
    code, out, err = run_cli("check-certificate", d / "bad.json")
    assert code == 1 and "step" in err
    # not a certificate: exit 2
    code, out, err = run_cli("check-certificate", files["box"])
    assert code == 2


def test_prove_refuted_writes_only_the_counterexample(run_cli, files):
    d = files["dir"]
    run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t.json")
    code, out, err = run_cli("prove", files["net"], d / "t.json", "--domain", files["big"],
                             "--certificate", d / "c.json", "--counterexample", d / "x.json", "--json")
    assert code == 1
    res = json.loads(out)
    assert res["result"] == "refuted" and res["counterexample"]
    assert not (d / "c.json").exists()
    pts = json.loads((d / "x.json").read_text())
    assert pts["kind"] == "points" and pts["x"] == [res["counterexample"]]
    code, out, err = run_cli("eval", d / "t.json", "--inputs", d / "x.json")
    code2, out2, err2 = run_cli("eval", files["net"], "--inputs", d / "x.json")
    assert out != out2


def test_margin_enlarges_the_bound(run_cli, files):
    d = files["dir"]
    code, out, _ = run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t.json", "--json")
    code2, out2, _ = run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t2.json",
                             "--margin", "1/2", "--json")
    from symrel.exact import rational

    g1, g2 = json.loads(out)["gates"], json.loads(out2)["gates"]
    assert [rational(b["B"]) - rational(a["B"]) for a, b in zip(g1, g2)] == [rational("1/2")] * 2
    code, out, err = run_cli("compile", files["net"], "--domain", files["box"], "-o", d / "t3.json", "--margin", "-1")
    assert code == 2 and not (d / "t3.json").exists()


def test_prove_open_exit_3(run_cli, files, monkeypatch):
    d = files["dir"]
    a = {"symrel": 1, "kind": "maxout", "input_dim": 2,
         "layers": [{"units": [{"pieces": [{"w": [1, 0], "b": 0}, {"w": [0, 1], "b": 0}]},
                               {"pieces": [{"w": [-1, 0], "b": 0}, {"w": [0, -1], "b": 0}]}]}],
         "readout": {"W": [[1, -1]], "b": [0]}}
    b = {"symrel": 1, "kind": "relu", "input_dim": 2, "layers": [{"W": [[1, 1]], "b": [0], "activation": "none"}]}
    (d / "a.json").write_text(json.dumps(a))
    (d / "b.json").write_text(json.dumps(b))
    # the outputs differ as forms; the decision on the cells of their nodes needs 4 cells
    code, out, err = run_cli("prove", d / "a.json", d / "b.json", "--domain", files["box"], "--certificate", d / "c.json",
                             "--max-cells", "1")
    assert code == 3 and "open" in err and not (d / "c.json").exists()
    assert "cell limit of 1 cells reached" in err and "nodes y" in err and "cells known done" in err
    code, out, err = run_cli("prove", d / "a.json", d / "b.json", "--domain", files["box"], "--certificate", d / "c.json")
    assert code == 0 and (d / "c.json").exists()


def test_prove_timeout_exit_3_says_what_stayed_open(run_cli, files, monkeypatch):
    import time

    def long_decision(proof, registry, outs_a, outs_b, domain, a, b, budget, reason, max_cells=None):
        budget.at(lemma="a long lemma", nodes=[5, 6], cells_done=7, cells_known=9)
        for _ in range(6000):  # stands for a decision that would not finish (a minute): only the budget stops it
            budget.check()
            time.sleep(0.01)
        raise AssertionError("the budget did not stop the lemma")

    monkeypatch.setattr("symrel.prover.equivalence.decision_step", long_decision)
    d = files["dir"]
    a = {"symrel": 1, "kind": "maxout", "input_dim": 2,
         "layers": [{"units": [{"pieces": [{"w": [1, 0], "b": 0}, {"w": [0, 1], "b": 0}]}]}]}
    b = {"symrel": 1, "kind": "maxout", "input_dim": 2,     # max(x, y, (x + y)/2): equal, another node
         "layers": [{"units": [{"pieces": [{"w": [1, 0], "b": 0}, {"w": [0, 1], "b": 0},
                                           {"w": ["1/2", "1/2"], "b": 0}]}]}]}
    (d / "a.json").write_text(json.dumps(a))
    (d / "b.json").write_text(json.dumps(b))
    code, out, err = run_cli("prove", d / "a.json", d / "b.json", "--domain", files["box"], "--timeout", "0.5")
    assert code == 3   # stopped at the limit (a lemma the budget did not stop ends in an AssertionError)
    assert "time limit of 0.5 s reached" in err and "a long lemma; nodes y5, y6; 7 of 9 cells known done" in err
    code, out, err = run_cli("prove", d / "a.json", d / "b.json", "--domain", files["box"], "--timeout", "-1")
    assert code == 2
