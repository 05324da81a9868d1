"""The command line on cpwl files: eval, info, convert, compile, prove, check-certificate,
regions; bad meshes refused with exit 2 and one line naming the simplex."""

import json
from fractions import Fraction

import pytest

SQUARE = {"symrel": 1, "kind": "cpwl", "input_dim": 2, "vertices": [[0, 0], [1, 0], [0, 1], [1, 1]],
          "simplices": [[0, 1, 2], [1, 3, 2]], "values": [[0], [1], [1], ["1/2"]]}
BOX = {"symrel": 1, "kind": "box", "bounds": [[0, 1], [0, 1]]}
RELU = {"symrel": 1, "kind": "relu", "input_dim": 2,
        "layers": [{"W": [[1, -1], [1, 1]], "b": [0, "-1/2"], "activation": "relu"},
                   {"W": [[1, -2]], "b": [0], "activation": "none"}]}


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, obj in (("f", SQUARE), ("box", BOX), ("relu", RELU)):
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(json.dumps(obj))
    return out


def test_eval_info_convert(files, run_cli, tmp_path):
    assert run_cli("eval", files["f"], "--input", "3/4,3/4")[:2] == (0, "3/4\n")
    code, out, _ = run_cli("info", files["f"], "--json")
    assert code == 0 and json.loads(out)["simplices"] == 2
    assert json.loads(out)["lattice form"]["ovchinnikov"]["terms"] == 2
    ws = json.loads(out)["Wang-Sun form"]            # side by side, each with its Transformer
    assert ws["max_arity"] <= 3 and ws["equal to f at every vertex"] and ws["transformer"]["tokens"] >= 2
    assert json.loads(out)["lattice form"]["transformer"]["blocks"] >= 6
    code, out, _ = run_cli("convert", files["f"], "--to", "maxout", "-o", tmp_path / "m.json")
    assert code == 0 and json.loads((tmp_path / "m.json").read_text())["kind"] == "maxout"
    assert run_cli("eval", tmp_path / "m.json", "--input", "3/4,3/4")[:2] == (0, "3/4\n")


def test_compile_prove_check(files, run_cli, tmp_path):
    T, C = tmp_path / "T.json", tmp_path / "C.json"
    assert run_cli("compile", files["f"], "--domain", files["box"], "-o", T)[0] == 0
    code, out, err = run_cli("prove", files["f"], T, "--domain", files["box"], "--certificate", C)
    assert code == 0, err
    assert run_cli("check-certificate", C)[0] == 0


def test_relu_to_cpwl_round_trip(files, run_cli, tmp_path):
    """ReLU net -> cpwl on a box -> maxout -> Transformer, proved equal to the ReLU net."""
    mesh, T = tmp_path / "mesh.json", tmp_path / "T.json"
    code, out, err = run_cli("convert", files["relu"], "--to", "cpwl", "--domain", files["box"], "-o", mesh)
    assert code == 0, err
    assert json.loads(mesh.read_text())["kind"] == "cpwl"
    assert run_cli("compile", mesh, "--domain", files["box"], "-o", T)[0] == 0
    code, out, err = run_cli("prove", files["relu"], T, "--domain", files["box"])
    assert code == 0, err


RELU3 = {"symrel": 1, "kind": "relu", "input_dim": 3,
         "layers": [{"W": [[1, -1, 0], [0, 1, 2]], "b": [0, "-1/4"], "activation": "relu"},
                    {"W": [[1, -1], [2, 1]], "b": ["1/4", 0], "activation": "relu"},
                    {"W": [[1, -2]], "b": [0], "activation": "none"}]}


def test_relu_to_cpwl_round_trip_in_3d(run_cli, tmp_path):
    """A ReLU net with 3 inputs -> cpwl on a box (tetrahedra) -> maxout -> Transformer,
    proved equal to the ReLU net, with a certificate that checks."""
    net, box = tmp_path / "net.json", tmp_path / "box.json"
    net.write_text(json.dumps(RELU3))
    box.write_text(json.dumps({"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1], [0, 1]]}))
    mesh, m, T, C = (tmp_path / n for n in ("mesh.json", "m.json", "T.json", "C.json"))
    code, out, err = run_cli("convert", net, "--to", "cpwl", "--domain", box, "-o", mesh)
    assert code == 0, err
    obj = json.loads(mesh.read_text())
    assert obj["kind"] == "cpwl" and obj["input_dim"] == 3 and all(len(s) == 4 for s in obj["simplices"])
    assert run_cli("convert", mesh, "--to", "maxout", "-o", m)[0] == 0
    assert run_cli("compile", m, "--domain", box, "-o", T)[0] == 0
    code, out, err = run_cli("prove", net, T, "--domain", box, "--certificate", C)
    assert code == 0, err
    assert run_cli("check-certificate", C)[0] == 0
    code, out, err = run_cli("prove", mesh, net, "--domain", box, "--complete")
    assert code == 0, err


RELU4 = {"symrel": 1, "kind": "relu", "input_dim": 4,
         "layers": [{"W": [[1, -1, 0, 2], [0, 1, 2, -1]], "b": [0, "-1/4"], "activation": "relu"},
                    {"W": [[1, -1]], "b": ["1/4"], "activation": "relu"},
                    {"W": [[2]], "b": [0], "activation": "none"}]}


def test_relu_to_cpwl_round_trip_in_4d(run_cli, tmp_path):
    """A ReLU net with 4 inputs -> cpwl on a box (4-simplices) -> maxout -> Transformer,
    proved equal to the ReLU net; a simplex limit below the mesh's size exits 3 naming it."""
    net, box = tmp_path / "net.json", tmp_path / "box.json"
    net.write_text(json.dumps(RELU4))
    box.write_text(json.dumps({"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1], [0, 1], [0, 1]]}))
    mesh, m, T = (tmp_path / n for n in ("mesh.json", "m.json", "T.json"))
    code, out, err = run_cli("convert", net, "--to", "cpwl", "--domain", box, "-o", mesh, "--progress")
    assert code == 0, err
    assert "cells cut and triangulated" in err and "checking the mesh" in err
    obj = json.loads(mesh.read_text())
    assert obj["kind"] == "cpwl" and obj["input_dim"] == 4 and all(len(s) == 5 for s in obj["simplices"])
    assert run_cli("convert", mesh, "--to", "maxout", "-o", m)[0] == 0
    assert run_cli("compile", m, "--domain", box, "-o", T)[0] == 0
    code, out, err = run_cli("prove", net, T, "--domain", box)
    assert code == 0, err
    small = tmp_path / "small.json"
    code, out, err = run_cli("convert", net, "--to", "cpwl", "--domain", box, "--max-simplices", 3, "-o", small)
    assert code == 3 and "simplex limit of 3 simplices" in err and not small.exists()
    assert run_cli("convert", net, "--to", "cpwl", "--domain", box, "--max-simplices", 0, "-o", small)[0] == 2


def test_convert_to_cpwl_cell_limit_exits_3(run_cli, tmp_path):
    net, box, mesh = tmp_path / "net.json", tmp_path / "box.json", tmp_path / "mesh.json"
    net.write_text(json.dumps(RELU3))
    box.write_text(json.dumps({"symrel": 1, "kind": "box", "bounds": [[-1, 1], [-1, 1], [0, 1]]}))
    code, out, err = run_cli("convert", net, "--to", "cpwl", "--domain", box, "--max-cells", 1, "-o", mesh)
    assert code == 3 and "cell limit" in err and not mesh.exists()


def test_changed_vertex_is_refuted(files, run_cli, tmp_path):
    T = tmp_path / "T.json"
    run_cli("compile", files["f"], "--domain", files["box"], "-o", T)
    bad = dict(SQUARE, values=[[0], [1], [1], ["500001/1000000"]])
    g = tmp_path / "g.json"
    g.write_text(json.dumps(bad))
    code, out, err = run_cli("prove", g, T, "--domain", files["box"], "--counterexample", tmp_path / "x.json")
    assert code == 1 and "counterexample" in err


BAD = {
    "overlapping": ({"simplices": [[0, 1, 2], [1, 3, 2], [0, 1, 3]]}, "simplices[2]", "overlap"),
    "hanging vertex": ({"vertices": [[0, 0], [2, 0], [0, 2], [1, 1], [2, 2]], "simplices": [[0, 1, 2], [1, 4, 3], [3, 4, 2]],
                        "values": [[0]] * 5}, "simplices[0]", "hanging vertex"),
    "degenerate": ({"vertices": [[0, 0], [1, 1], [2, 2], [0, 1]], "simplices": [[0, 1, 2], [0, 1, 3]]},
                   "simplices[0]", "degenerate"),
    "values of different lengths": ({"values": [[0], [1, 2], [1], [0]]}, "values[1]", "output dimension"),
}


@pytest.mark.parametrize("name", sorted(BAD))
@pytest.mark.parametrize("command", ["eval", "info", "compile"])
def test_bad_meshes_exit_2_in_one_line(name, command, run_cli, tmp_path, files):
    change, where, what = BAD[name]
    f = tmp_path / "bad.json"
    f.write_text(json.dumps({**SQUARE, **change}))
    args = {"eval": ["eval", f, "--input", "0,0"], "info": ["info", f],
            "compile": ["compile", f, "--domain", files["box"], "-o", tmp_path / "T.json"]}[command]
    code, out, err = run_cli(*args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert str(f) in lines[0] and where in lines[0] and what in lines[0]
    assert not (tmp_path / "T.json").exists()


def test_crossing_faces_in_3d_exit_2_naming_the_simplex(run_cli, tmp_path):
    f = tmp_path / "cross.json"
    f.write_text(json.dumps({"symrel": 1, "kind": "cpwl", "input_dim": 3,
                             "vertices": [[0, 0, 0], [3, 0, 0], [0, 3, 0], [1, 1, 1],
                                          [2, 2, 0], [-1, 2, 0], [2, -1, 0], [1, 1, -1]],
                             "simplices": [[0, 1, 2, 3], [4, 5, 6, 7]], "values": [[0]] * 8}))
    code, out, err = run_cli("info", f)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert str(f) in lines[0] and "simplices[1]" in lines[0] and "more than a common face" in lines[0]


def test_domain_outside_support_exit_2(files, run_cli, tmp_path):
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"symrel": 1, "kind": "box", "bounds": [[0, 2], [0, 1]]}))
    code, out, err = run_cli("compile", files["f"], "--domain", big, "-o", tmp_path / "T.json")
    assert code == 2 and "not inside the support" in err and str(big) in err
    for argv in (("prove", files["f"], files["f"], "--domain", big), ("regions", files["f"], "--domain", big)):
        code, out, err = run_cli(*argv)
        assert code == 2 and "not inside the support" in err and err.startswith(f"symrel: error: {big}: "), err


def test_regions(files, run_cli, tmp_path):
    code, out, err = run_cli("regions", files["f"], "--domain", files["box"])
    assert code == 0 and out.strip().splitlines()[-1] == "2"
    C = tmp_path / "c.json"
    code, out, err = run_cli("regions", files["f"], "--domain", files["box"], "--certificate", C)
    assert code == 0 and out.strip().splitlines()[-1] == "2", err
    assert json.loads(C.read_text())["claim"]["count"] == 2
    assert run_cli("check-certificate", C)[0] == 0
    bad = json.loads(C.read_text())
    bad["steps"][0]["certificate"]["support"][0][0][2][0][1] = "1/3"     # a Farkas multiplier moved
    C.write_text(json.dumps(bad))
    assert run_cli("check-certificate", C)[0] == 1


def test_mesh_against_relu_net_complete(files, run_cli, tmp_path):
    """A mesh proved directly against a ReLU net (the complete procedure reads the mesh's
    lowering), with a certificate that checks; a moved vertex value is refuted."""
    mesh, C = tmp_path / "mesh.json", tmp_path / "C.json"
    assert run_cli("convert", files["relu"], "--to", "cpwl", "--domain", files["box"], "-o", mesh)[0] == 0
    code, out, err = run_cli("prove", mesh, files["relu"], "--domain", files["box"], "--complete", "--certificate", C)
    assert code == 0, err
    assert run_cli("check-certificate", C)[0] == 0
    obj = json.loads(mesh.read_text())
    v = obj["values"][len(obj["values"]) // 2]
    v[0] = str(Fraction(v[0]) + Fraction(1, 10**6))
    mesh.write_text(json.dumps(obj))
    code, out, err = run_cli("prove", files["relu"], mesh, "--domain", files["box"], "--complete")
    assert code == 1, err


def test_regions_plot(files, run_cli, tmp_path):
    pytest.importorskip("matplotlib")
    code, out, err = run_cli("regions", files["f"], "--domain", files["box"], "--plot", tmp_path / "r.png")
    assert code == 0 and (tmp_path / "r.png").stat().st_size > 0


def test_info_wang_sun_budget_is_not_a_failure(files, run_cli):
    """Past --timeout, info prints the lattice sizes and says the Wang-Sun size was not computed."""
    code, out, err = run_cli("info", files["f"], "--json", "--timeout", "1e-9")
    sizes = json.loads(out)
    assert code == 0 and sizes["lattice form"]["ovchinnikov"]["terms"] == 2, err
    assert "time limit" in sizes["Wang-Sun form"]["not computed within the budget"]
    code, out, err = run_cli("info", files["f"], "--timeout", "1e-9")
    assert code == 0 and "Wang-Sun form:\n  not computed within the budget: time limit" in out
    assert run_cli("info", files["f"], "--timeout", "0")[0] == 2


def test_info_reports_a_wrong_wang_sun_form_as_a_bug(files, run_cli, monkeypatch):
    """A construction bug: one line naming it, exit 2, no traceback."""
    from symrel.compiler import cpwl_form_sizes as sizes_module
    from symrel.exact import Q

    monkeypatch.setattr(sizes_module, "wang_sun_mismatch", lambda f, forms, tick=None: (3, 0, Q(1, 2), Q(1)))
    code, out, err = run_cli("info", files["f"])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "internal error (a bug in symrel)" in lines[0], err
    assert "Traceback" not in err
