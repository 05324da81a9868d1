"""``symrel preorder`` and ``symrel retrieval``: exit codes, witnesses, JSON, no half outputs."""

import json

import pytest

from symrel.fileformat import save
from symrel.preorders.generators import random_retrieval_task


def write(tmp_path, name, obj):
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return path


def preorder_file(tmp_path, leq, elements=("a", "b", "c"), **extra):
    return write(tmp_path, "p.json", {"symrel": 1, "kind": "preorder", "elements": list(elements), "leq": leq, **extra})


def test_complete_preorder_prints_classes_and_utility(run_cli, tmp_path):
    p = preorder_file(tmp_path, [["a", "b"], ["b", "a"], ["a", "c"], ["b", "c"]])
    code, out, err = run_cli("preorder", p, "--json")
    assert code == 0 and err == ""
    assert json.loads(out) == {"classes": [["a", "b"], ["c"]], "complete": True, "utility": {"a": "0", "b": "0", "c": "1"}}
    code, out, err = run_cli("preorder", p)
    assert code == 0 and "complete: yes" in out and "c: 1" in out


def test_non_transitive_relation_exits_2_with_a_named_triple(run_cli, tmp_path):
    p = preorder_file(tmp_path, [["a", "b"], ["b", "c"]])
    code, out, err = run_cli("preorder", p)
    assert code == 2 and "not transitive: 'a' <= 'b' and 'b' <= 'c' but not 'a' <= 'c'" in err and "p.json" in err
    code, out, err = run_cli("preorder", p, "--json")
    assert code == 2 and json.loads(out)["witness"] == {"x": "a", "y": "b", "z": "c"}


def test_non_transitivity_takes_precedence_over_incompleteness(run_cli, tmp_path):
    p = preorder_file(tmp_path, [["a", "b"], ["b", "c"]], elements=("a", "b", "c", "d"))
    assert run_cli("preorder", p)[0] == 2


def test_close_true_takes_the_closure_and_says_so(run_cli, tmp_path):
    p = preorder_file(tmp_path, [["a", "b"], ["b", "c"]], close=True)
    code, out, err = run_cli("preorder", p)
    assert code == 0 and "took the transitive closure" in out and "1 pair(s) added" in out
    code, out, err = run_cli("preorder", p, "--json")
    assert json.loads(out)["closure_added"] == 1


def test_unknown_element_exits_2_naming_the_path(run_cli, tmp_path):
    p = preorder_file(tmp_path, [["a", "b"], ["b", "c"], ["a", "c"], ["c", "e"]])
    code, out, err = run_cli("preorder", p)
    assert code == 2 and "leq[3][1]: unknown element 'e'" in err and err.count("\n") == 1


def test_incomplete_preorder_exits_1_with_a_pair_and_no_certificate(run_cli, tmp_path):
    p = preorder_file(tmp_path, [["a", "b"], ["a", "c"]])
    cert = tmp_path / "c.json"
    code, out, err = run_cli("preorder", p, "--certificate", cert)
    assert code == 1 and "b and c are incomparable" in err and not cert.exists()
    code, out, err = run_cli("preorder", p, "--json")
    obj = json.loads(out)
    assert code == 1 and obj["incomparable"] == ["b", "c"] and obj["utility"] is None and obj["complete"] is False


def test_certificate_of_a_complete_preorder_checks(run_cli, tmp_path):
    from symrel.checking import check_certificate
    from symrel.fileformat.jsonio import read_json

    p = preorder_file(tmp_path, [["a", "b"], ["b", "c"], ["a", "c"]])
    cert = tmp_path / "c.json"
    assert run_cli("preorder", p, "--certificate", cert)[0] == 0
    assert check_certificate(read_json(cert))["result"] == "checked"


@pytest.fixture
def task_file(tmp_path):
    path = tmp_path / "r.json"
    save(random_retrieval_task(10, 20, seed=21), path)
    return path


def test_retrieval_is_built_and_proved(run_cli, tmp_path, task_file):
    feats, report = tmp_path / "f.json", tmp_path / "r.md"
    code, out, err = run_cli("retrieval", task_file, "--eps", "1/100", "-o", feats, "--report", report)
    assert code == 0, err
    assert "proved" in out.splitlines()[-1] and feats.exists() and "Result: proved" in report.read_text()
    code, out, err = run_cli("retrieval", task_file, "--check", feats, "--json")
    assert code == 0 and json.loads(out)["result"] == "proved"


def test_a_moved_key_is_refuted_with_query_and_keys_and_nothing_written(run_cli, tmp_path, task_file):
    feats = tmp_path / "f.json"
    assert run_cli("retrieval", task_file, "-o", feats)[0] == 0
    obj = json.loads(task_file.read_text())
    obj["keys"]["k4"] = obj["keys"]["k9"]
    moved = write(tmp_path, "moved.json", obj)
    report = tmp_path / "bad.md"
    code, out, err = run_cli("retrieval", moved, "--check", feats, "--report", report)
    assert code == 1 and "query" in err and "keys" in err and not report.exists()
    code, out, err = run_cli("retrieval", moved, "--check", feats, "--json")
    cx = json.loads(out)["counterexample"]
    assert code == 1 and cx["query"] in obj["queries"] and len(cx["keys"]) >= 1


def test_retrieval_bad_inputs_exit_2(run_cli, tmp_path, task_file):
    obj = json.loads(task_file.read_text())
    obj["keys"]["k0"][0] = 0.5
    code, out, err = run_cli("retrieval", write(tmp_path, "float.json", obj))
    assert code == 2 and "keys.k0[0]" in err
    assert run_cli("retrieval", task_file, "--eps", "2")[0] == 2
    assert run_cli("retrieval", task_file, "--max-subset", "0")[0] == 2


def test_retrieval_with_an_incomplete_preorder_exits_1_naming_the_query(run_cli, tmp_path, task_file):
    obj = json.loads(task_file.read_text())
    obj["preorders"]["q3"] = {"leq": []}
    code, out, err = run_cli("retrieval", write(tmp_path, "inc.json", obj), "--json")
    data = json.loads(out)
    assert code == 1 and data["query"] == "q3" and len(data["incomparable"]) == 2


def test_retrieval_in_two_processes(run_cli, task_file):
    code, out, err = run_cli("retrieval", task_file, "--jobs", "2", "--progress", "--json")
    assert code == 0 and json.loads(out)["result"] == "proved" and err.count("retrieval: query") == 10
    code, out, err = run_cli("retrieval", task_file, "--max-subset", "12")
    assert code == 2 and "--max-subset" in err
