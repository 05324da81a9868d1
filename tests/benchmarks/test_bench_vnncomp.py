"""benchmarks.bench_vnncomp: the 2021 verdicts read as the competition's scorer reads them, the
conflicts and who symrel proves wrong, the table, and one instance measured in its own process."""

import csv
from pathlib import Path

import pytest

from benchmarks import bench_vnncomp as bv

SHARED = bv.SHARED


def _results_folder(tmp_path):
    """Two tools' results CSVs in the competition's layout: an overhead row at the end of a
    category, a test network run twice in the test category, a verivital spec path with ``./``."""
    folder = tmp_path / "results_csv"
    folder.mkdir()
    (folder / "toolA.csv").write_text(
        "test,./benchmarks/test/test_tiny.onnx,./benchmarks/test/test_tiny.vnnlib,.01,holds,1.0\n"
        "test,./benchmarks/test/test_sat.onnx,./benchmarks/test/test_prop.vnnlib,.01,violated,1.5\n"
        "test,./benchmarks/test/test_tiny.onnx,./benchmarks/test/test_tiny.vnnlib,.01,violated,1.0\n"
        "acasxu,./benchmarks/acasxu/ACASXU_run2a_1_1_batch_2000.onnx,./benchmarks/acasxu/prop_3.vnnlib,.01,holds,2.25\n"
        "acasxu,./benchmarks/test/test_tiny.onnx,./benchmarks/test/test_tiny.vnnlib,.01,holds,1.0\n"
        "verivital,./benchmarks/verivital/C.onnx,./benchmarks/verivital/./specs/p.vnnlib,.01,error_exit_code_1,3\n"
        "cifar2020,./benchmarks/cifar2020/x.onnx,./benchmarks/cifar2020/y.vnnlib,.01,holds,3\n")
    (folder / "toolB.csv").write_text(
        "test,./benchmarks/test/test_tiny.onnx,./benchmarks/test/test_tiny.vnnlib,.01,SAT,0.5\n"
        "acasxu,./benchmarks/acasxu/ACASXU_run2a_1_1_batch_2000.onnx,./benchmarks/acasxu/prop_3.vnnlib,.01,,9\n"
        "verivital,./benchmarks/verivital/C.onnx,./benchmarks/verivital/./specs/p.vnnlib,.01,UNSAT,4\n")
    return folder


def test_the_scorers_renamings():
    assert [bv.scorer_verdict(r) for r in ("holds", "UNSAT", "SAT", "violated", "", "no_result_in_file",
                                           "prepare_instance_error_3", "run_instance_timeout", "timeout",
                                           "error_exit_code_1", "error", "unknown")] == [
        "holds", "holds", "violated", "violated", "unknown", "unknown", "unknown", "timeout", "timeout", "error",
        "error", "unknown"]
    with pytest.raises(ValueError, match="expected a competition result"):
        bv.scorer_verdict("maybe")


def test_import_keeps_the_first_row_of_each_instance_of_the_chosen_categories(tmp_path):
    out = tmp_path / "results.csv"
    assert bv.import_2021_results(_results_folder(tmp_path), out) == 4
    rows = list(csv.reader(out.read_text().splitlines()))
    assert rows[0] == ["category", "onnx", "vnnlib", "toolA", "toolB"]
    assert rows[1] == ["acasxu", "ACASXU_run2a_1_1_batch_2000.onnx", "prop_3.vnnlib", "holds 2.25", "unknown"]
    results = bv.load_2021(out)
    assert set(results) == {("acasxu", "ACASXU_run2a_1_1_batch_2000.onnx", "prop_3.vnnlib"),
                            ("test", "test_sat.onnx", "test_prop.vnnlib"), ("test", "test_tiny.onnx", "test_tiny.vnnlib"),
                            ("verivital", "C.onnx", "specs/p.vnnlib")}
    tiny = results[("test", "test_tiny.onnx", "test_tiny.vnnlib")]
    assert tiny == [bv.Entrant("toolA", "holds", 1.0), bv.Entrant("toolB", "violated", 0.5)]
    assert results[("test", "test_sat.onnx", "test_prop.vnnlib")] == [bv.Entrant("toolA", "violated", 1.5)]
    assert bv.conflict(tiny) == (["toolA"], ["toolB"])


def test_a_malformed_results_file_is_refused(tmp_path):
    folder = _results_folder(tmp_path)
    (folder / "toolC.csv").write_text("test,a.onnx,b.vnnlib,1,holds\n")
    with pytest.raises(ValueError, match="toolC.csv: line 1: expected 6 columns"):
        bv.import_2021_results(folder, tmp_path / "out.csv")
    (folder / "toolC.csv").write_text("test,a.onnx,b.vnnlib,1,perhaps,2\n")
    with pytest.raises(ValueError, match="expected a competition result"):
        bv.import_2021_results(folder, tmp_path / "out.csv")
    (tmp_path / "bad.csv").write_text("category,onnx,vnnlib,t\ntest,a.onnx,b.vnnlib,perhaps 2\n")
    with pytest.raises(ValueError, match="expected a verdict"):
        bv.load_2021(tmp_path / "bad.csv")


def test_judgement_says_who_symrel_proves_wrong():
    e = [bv.Entrant("a", "holds", 1.0), bv.Entrant("b", "violated", 2.0), bv.Entrant("c", "timeout")]
    assert bv.judgement("unsat", e) == {"conflict": True, "settled": "holds", "wrong": ["b"]}
    assert bv.judgement("sat", e) == {"conflict": True, "settled": "violated", "wrong": ["a"]}
    for undecided in ("unknown", "timeout", "error"):
        assert bv.judgement(undecided, e) == {"conflict": True, "settled": None, "wrong": []}
    # no conflict, but symrel disagrees with everyone who decided: reported too
    agree = [bv.Entrant("a", "holds", 1.0), bv.Entrant("c", "holds", 3.0)]
    assert bv.judgement("sat", agree) == {"conflict": False, "settled": None, "wrong": ["a", "c"]}
    assert bv.judgement("unsat", []) == {"conflict": False, "settled": None, "wrong": []}


def _inst(name, timeout=60.0, category="test"):
    return bv.Instance(category, Path(f"{name}.onnx"), Path("p.vnnlib"), f"{name}.onnx", "p.vnnlib", timeout)


def test_table_and_conflicts_and_summary():
    results = {("test", "n1.onnx", "p.vnnlib"): [bv.Entrant("a", "holds", 1.0), bv.Entrant("b", "violated", 2.0)],
               ("test", "n2.onnx", "p.vnnlib"): [bv.Entrant("a", "holds", 4.0), bv.Entrant("b", "holds", 3.0)],
               ("test", "n3.onnx", "p.vnnlib"): [bv.Entrant("a", "timeout"), bv.Entrant("b", "violated", 5.0)]}
    insts = [_inst("n1"), _inst("n2"), _inst("n3"), _inst("n4")]
    measured = [{"result": "sat", "wall_s": 3.0, "search_s": 2.0, "nodes": 9, "rss_mib": 70.2, "worker_rss_mib": 50.0},
                {"result": "timeout", "late": "unsat", "wall_s": 70.0},
                {"result": "unsat", "wall_s": 1.0, "check_s": 0.25},
                {"result": "error", "wall_s": 0.5}]
    rows = [bv.table_row(i, m, results.get((i.category, i.rel_onnx, i.rel_vnnlib), []), 1.5)
            for i, m in zip(insts, measured)]
    assert rows[0]["symrel"] == "sat" and rows[0]["conflict"] == "yes, settled: violated"
    assert rows[0]["refuted by symrel"] == "a" and rows[0]["RSS MiB"] == "70 / 50"
    assert rows[0]["2021 holds / violated / other"] == "1 / 1 / 0" and rows[0]["2021 fastest"] == "a 1.0 s"
    assert rows[1]["symrel"] == "timeout (a late unsat)" and rows[1]["refuted by symrel"] is None
    assert rows[2]["refuted by symrel"] == "b" and rows[2]["conflict"] == "no"
    assert rows[3]["2021 holds / violated / other"] == "not run" and rows[3]["RSS MiB"] is None
    table = bv.conflict_rows(insts, rows, results)
    assert [(r["instance"], r["holds (unsat)"], r["violated (sat)"], r["settled"], r["wrong in 2021"]) for r in table] == [
        ("n1 p", "a", "b", "violated", "a"), ("n3 p", None, "b", "no conflict", "b")]
    text = " ".join(bv.summary(insts, rows, results))
    assert "symrel decided 2 of 4** (1 unsat" in text and "1 sat, every witness exact); 1 error; 1 timeout." in text
    assert "b 3, a 2." in text and "Conflicts among the 2021 entrants: 1; settled by symrel: 1." in text


def test_the_section_is_replaced_or_added_before_the_hand_run_parts(tmp_path):
    page = tmp_path / "b.md"
    page.write_text("# B\n\n## bench_x\n\nx\n\n<!-- marker -->\nkept\n<!-- /marker -->\n")
    bv.write_section(page, "bench_vnncomp: test", ["first"])
    bv.write_section(page, "bench_vnncomp: acasxu", ["other"])
    bv.write_section(page, "bench_vnncomp: test", ["second"])
    text = page.read_text()
    assert text.count("## bench_vnncomp: test") == 1 and "second" in text and "first" not in text
    assert text.index("## bench_x") < text.index("## bench_vnncomp: test") < text.index("<!-- marker -->")
    assert "## bench_vnncomp: acasxu\n\nother\n" in text and text.endswith("kept\n<!-- /marker -->\n")


def test_instance_lists_and_selection(tmp_path):
    (tmp_path / "acasxu_instances.csv").write_text(
        "ACASXU_run2a_1_1_batch_2000.onnx,prop_3.vnnlib,116\n# a comment\n\nn.onnx,./specs/p.vnnlib,60\n")
    insts = bv.read_list(tmp_path / "acasxu_instances.csv", data=tmp_path / "data")
    assert [i.name for i in insts] == ["1_1 prop_3", "n p"]
    assert insts[1].onnx == tmp_path / "data" / "n.onnx" and insts[1].rel_vnnlib == "specs/p.vnnlib"
    assert insts[0].category == "acasxu" and insts[0].timeout == 116.0
    assert [i.name for i in bv.select(insts, only="prop_3")] == ["1_1 prop_3"]
    assert [i.name for i in bv.select(insts, only="specs/")] == ["n p"]
    (tmp_path / "bad_instances.csv").write_text("a.onnx,b.vnnlib\n")
    with pytest.raises(ValueError, match="line 1: expected onnx,vnnlib,timeout"):
        bv.read_list(tmp_path / "bad_instances.csv")


def test_the_shipped_verdicts_cover_the_shared_instance_lists():
    results = bv.load_2021()
    counts = {}
    for category, *_ in results:
        counts[category] = counts.get(category, 0) + 1
    assert counts == {"acasxu": 186, "mnistfc": 89, "verivital": 60, "test": 5}
    listed = bv.read_list(bv.HERE / "data" / "acasxu_instances.csv")
    assert len(listed) == 180 and all((i.category, i.rel_onnx, i.rel_vnnlib) in results for i in listed)
    if not SHARED.is_dir():
        pytest.skip("../shared is not present")
    for listing in ("test/test_instances.csv", "mnistfc/mnistfc_instances.csv", "verivital/verivital_instances.csv"):
        missing = [i.name for i in bv.read_list(SHARED / listing)
                   if (i.category, i.rel_onnx, i.rel_vnnlib) not in results]
        # the one instance the 2021 harness skipped (benchmarks/data/README.md)
        assert missing == (["mnist-net_256x6 prop_14_0.05"] if "mnistfc" in listing else []), listing


def test_one_instance_in_its_own_process(shared_dir):
    pytest.importorskip("onnx")   # the instance's network is an .onnx file
    (inst,) = bv.select(bv.read_list(shared_dir / "data" / "vnncomp2021" / "test" / "test_instances.csv"),
                        only="test_unsat")
    m = bv.measure(inst, 60.0, 1)
    assert m["result"] == "unsat" and m["nodes"] >= 1 and m["check_cpu_s"] >= 0 and m["wall_s"] >= m["search_s"]
    assert m["rss_mib"] > 10


def test_an_instance_past_its_kill_time_is_a_timeout(shared_dir, monkeypatch):
    (inst,) = bv.select(bv.read_list(shared_dir / "data" / "vnncomp2021" / "test" / "test_instances.csv"),
                        only="test_sat")
    monkeypatch.setattr(bv, "KILL_AFTER", 0)
    m = bv.measure(inst, 0.001, 1)
    assert m["result"] == "timeout" and m["reason"] == "killed"


def test_a_file_symrel_cannot_read_is_an_error_row(tmp_path):
    (tmp_path / "n.onnx").write_bytes(b"not onnx")
    (tmp_path / "p.vnnlib").write_text("")
    inst = bv.Instance("test", tmp_path / "n.onnx", tmp_path / "p.vnnlib", "n.onnx", "p.vnnlib", 60.0)
    m = bv.measure(inst, 60.0, 1)
    assert m["result"] == "error" and "n.onnx" in m["reason"]


def test_resume_keeps_an_interrupted_runs_rows_and_runs_the_others(tmp_path, monkeypatch):
    rows_file = tmp_path / "rows.jsonl"
    measured = []

    def fake_measure(inst, limit, workers):
        measured.append(inst.name)
        return {"result": "unsat", "wall_s": 1.0}

    monkeypatch.setattr(bv, "measure", fake_measure)
    insts = [_inst("n1"), _inst("n2"), _inst("n3")]
    first = bv.run_list(insts[:2], rows_file=rows_file, results={}, echo=False, workers=1)
    assert measured == ["n1 p", "n2 p"] and len(rows_file.read_text().splitlines()) == 2
    measured.clear()
    again = bv.run_list(insts, rows_file=rows_file, results={}, echo=False, workers=1, resume=True)
    assert measured == ["n3 p"]                       # only the instance without a row ran
    assert again[:2] == first and again[2]["symrel"] == "unsat"
    assert set(bv.kept_rows(rows_file)) == {("test", f"n{k}.onnx", "p.vnnlib") for k in (1, 2, 3)}
    measured.clear()
    bv.run_list(insts[:1], rows_file=rows_file, results={}, echo=False, workers=1)   # without resume: runs again
    assert measured == ["n1 p"]
