"""The decision campaign's report (symrel.mutation.decision): the whole-box ACAS table and
rows merged from an earlier run."""

import json

from symrel.mutation.decision import main, report_markdown


def _row(name, group, result, seconds, **extra):
    return {"name": name, "group": group, "symrel": result, "seconds": seconds, "rule": "node-cells",
            "confirmed": result != "open", "note": "time limit of 120 s reached; open: y3" if result == "open" else "",
            "load": 2.5, **extra}


def test_the_whole_box_table_lists_every_claim_with_its_load_and_reason():
    rows = [_row("ACAS Xu 1_1 (full normalised box): compiled", "acas-full", "proved", 4.0, limit=120.0),
            _row("ACAS Xu 1_1 (full normalised box): readout.W[4][10] +1/10^6", "acas-full", "open", 120.5, limit=120.0),
            _row("ACAS Xu 1_1 (full normalised box): embedding.offsets[1][51] +1/10^6", "acas-full", "refuted", 11.0,
                 limit=120.0)]
    text = report_markdown(rows, 140.0, acas_full=3)
    assert "120 s limit per claim" in text and "**2 mutants (of the 3 asked for" in text
    assert "| readout.W[4][10] +1/10^6 | open | 120.5 | 2.5 | time limit of 120 s reached; open: y3 |" in text
    assert "1 refuted (function-changing, each with a confirmed counterexample, max 11.0 s)" in text


def test_a_point_proposed_by_a_float_search_is_named():
    rows = [_row("ACAS Xu 1_1 (full normalised box): readout.W[4][10] +1/10^6", "acas-full", "refuted", 15.0,
                 limit=600.0, proposed_by="the float ascent"),
            _row("seed 1: W[0][0] +1/10^6", "mutant", "refuted", 0.1, proposed_by="HiGHS's MILP"),
            _row("seed 1: W[0][1] +1/10^6", "mutant", "refuted", 0.1, proposed_by="")]
    text = report_markdown(rows, 20.0, acas_full=1)
    assert "| node-cells (the point proposed by the float ascent, confirmed exactly) |" in text
    assert "HiGHS's MILP 1, the float ascent 1." in text


def test_saved_rows_are_reported_beside_a_new_run(tmp_path):
    saved = tmp_path / "rows.json"
    saved.write_text(json.dumps({"rows": [_row("seed 1: compiled", "compiled", "proved", 0.5)], "seconds": 7.0}))
    out = tmp_path / "report.md"
    assert main(["--rows", str(saved), "--only-acas-full", "--no-acas", "--no-z3", "--save", str(tmp_path / "s.json"),
                 "--out", str(out)]) == 0
    text = out.read_text()
    assert "**1 claims, 1 decided by symrel" in text and "Run time 7 s" in text
    assert json.loads((tmp_path / "s.json").read_text())["rows"][0]["name"] == "seed 1: compiled"


def test_the_report_points_to_the_whole_process_timings_in_the_benchmarks_page(tmp_path):
    saved = tmp_path / "rows.json"
    saved.write_text(json.dumps({"rows": [_row("seed 1: compiled", "compiled", "proved", 0.5)], "seconds": 7.0}))
    out = tmp_path / "report.md"
    out.write_text("# old\n")
    assert main(["--rows", str(saved), "--only-acas-full", "--no-acas", "--no-z3", "--out", str(out)]) == 0
    text = out.read_text()
    assert "# old" not in text and "**1 claims" in text
    assert text.endswith("(`python -m benchmarks.decision_processes --out docs/benchmarks.md`).\n")
