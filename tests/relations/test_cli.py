"""``symrel relation`` (the command line of the relations package)."""

import json

from symrel.exact import Q, dot, rational
from symrel.fileformat import load, save
from symrel.relations.examples import random_gram_relation, random_relation


def _z_R_z(table, z):
    R = [[rational(v) for v in row] for row in table]
    z = [rational(v) for v in z]
    return sum(z[i] * R[i][j] * z[j] for i in range(len(z)) for j in range(len(z)))


def _entries_match(rel, feats):
    table = rel.exact_R.to_list()
    return all(dot(feats.phi(x), feats.psi(y)) == table[i][j]
               for i, x in enumerate(rel.x) for j, y in enumerate(rel.ys))


def test_symmetric_psd_table(run_cli, tmp_path):
    rel = random_gram_relation(12, 5, seed=7)
    save(rel, tmp_path / "R.json")
    out = tmp_path / "F.json"
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "--symmetric", "-o", out,
                                "--report", tmp_path / "r.md", "--certificate", tmp_path / "c.json")
    assert code == 0, err
    feats = load(out, kinds=("relation-features",))
    obj = json.loads(out.read_text())
    assert obj["kind"] == "relation-features" and obj["phi"] == obj["psi"] and obj["phi"]["kind"] == "relu"
    assert _entries_match(rel, feats)
    assert stdout.splitlines()[-1] == f"feature dimension: {feats.dimension}"
    assert "| table | 12 x 12 = 144 entries |" in (tmp_path / "r.md").read_text()
    code, stdout, err = run_cli("check-certificate", tmp_path / "c.json")
    assert code == 0, err


def test_asymmetric_table_json(run_cli, tmp_path):
    rel = random_relation(9, 7, 3, seed=2)
    save(rel, tmp_path / "R.json")
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "-o", tmp_path / "F.json", "--json")
    assert code == 0, err
    summary = json.loads(stdout)
    assert summary["result"] == "proved" and summary["dimension"] == 3 and summary["table"] == [9, 7]
    assert _entries_match(rel, load(tmp_path / "F.json"))


def test_non_psd_is_refuted_without_output(run_cli, tmp_path):
    rel_obj = {"symrel": 1, "kind": "relation", "x": [[0], [1], [2]],
               "r": [[1, 1, 0], [1, 1, 1], [0, 1, 1]]}
    (tmp_path / "R.json").write_text(json.dumps(rel_obj))
    out = tmp_path / "F.json"
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "--symmetric", "-o", out)
    assert code == 1 and not out.exists()
    assert "witness z = [" in err
    z = err.split("witness z = [")[1].split("]")[0].split(", ")
    assert _z_R_z(rel_obj["r"], z) < 0
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "--symmetric", "-o", out, "--json")
    assert code == 1 and not out.exists()
    data = json.loads(stdout)
    assert data["result"] == "refuted"
    assert _z_R_z(rel_obj["r"], data["witness"]["z"]) == rational(data["witness"]["zRz"]) < 0


def test_symmetric_flag_on_non_symmetric_table_is_exit_2(run_cli, tmp_path):
    (tmp_path / "R.json").write_text(json.dumps(
        {"symrel": 1, "kind": "relation", "x": [[0], [1]], "r": [[1, 2], [3, 1]]}))
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "--symmetric", "-o", tmp_path / "F.json")
    assert code == 2 and "r[0][1]" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "F.json").exists()
    # without --symmetric the same table is fine (rank factorisation)
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "-o", tmp_path / "F.json")
    assert code == 0


def test_bad_input_is_exit_2(run_cli, tmp_path):
    (tmp_path / "R.json").write_text('{"symrel": 1, "kind": "relation", "x": [[0]], "r": [[0.5]]}')
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "-o", tmp_path / "F.json")
    assert code == 2 and "r[0][0]" in err and str(tmp_path / "R.json") in err
    code, stdout, err = run_cli("relation", tmp_path / "missing.json", "-o", tmp_path / "F.json")
    assert code == 2


def test_zero_table(run_cli, tmp_path):
    (tmp_path / "R.json").write_text(json.dumps(
        {"symrel": 1, "kind": "relation", "x": [[0], [1]], "r": [[0, 0], [0, 0]]}))
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "--symmetric", "-o", tmp_path / "F.json")
    assert code == 0, err
    feats = load(tmp_path / "F.json")
    assert feats.value([0], [1]) == Q(0)


def test_check_mode_accepts_and_rejects(run_cli, tmp_path):
    from symrel.fileformat import load as load_file
    from symrel.models import DenseLayer, ReLUNet
    from symrel.relations import RelationFeatures

    rel = random_relation(6, 5, 2, seed=9)
    save(rel, tmp_path / "R.json")
    code, _, err = run_cli("relation", tmp_path / "R.json", "-o", tmp_path / "F.json")
    assert code == 0, err
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "--check", tmp_path / "F.json")
    assert code == 0 and stdout.startswith("proved")
    feats = load_file(tmp_path / "F.json")
    last = feats.psi.layers[-1]
    W = last.affine.exact_W.to_list()
    W[0][0] += Q(1, 10**6)
    bad_psi = ReLUNet(feats.psi.input_dim, feats.psi.layers[:-1] + [DenseLayer(W, [r[0] for r in last.affine.exact_b.to_list()], "none")])
    save(RelationFeatures(feats.phi, bad_psi), tmp_path / "B.json")
    code, stdout, err = run_cli("relation", tmp_path / "R.json", "--check", tmp_path / "B.json", "--json")
    assert code == 1
    data = json.loads(stdout)
    i, j = data["entry"]
    assert dot(feats.phi(rel.x[i]), bad_psi(rel.ys[j])) != rel.entry(i, j)
    assert f"entry ({i}, {j})" in data["reason"]


def test_missing_report_folder_writes_nothing(run_cli, tmp_path):
    save(random_relation(3, 3, 2, seed=1), tmp_path / "R.json")
    code, _, err = run_cli("relation", tmp_path / "R.json", "-o", tmp_path / "F.json",
                           "--report", tmp_path / "no" / "r.md")
    assert code == 2 and "folder" in err
    assert not (tmp_path / "F.json").exists()
