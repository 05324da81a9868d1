"""benchmarks.bench_peers: a process limited in CPU time (its whole tree), the tools' answers read,
who refutes whom, the decided counts and the CPU on what both decided, the ACAS Xu goal, the
sample of a peer's earlier run, and the section written into a page. No peer is needed; the
runs of the real peers skip without them."""

import json
import sys
from pathlib import Path

import pytest

from benchmarks import bench_peers as bp
from benchmarks.bench_vnncomp import SHARED, Entrant, Instance, write_section


def rec(k, tool, verdict, cpu, *, search=None, check=None, limit=116.0, group=None, load=3.5, note=None):
    r = {"key": ["acasxu", f"ACASXU_run2a_{k}_batch_2000.onnx", "prop_1.vnnlib"], "instance": f"{k} prop_1",
         "tool": tool, "limit": limit, "verdict": verdict, "cpu": cpu, "wall": cpu * 2, "load": load, "note": note,
         "group": group, "at": "2026-12-07 12:00"}
    if tool == "symrel":
        r.update(read=0.5, search=search, check=check)
    return r


# -- a process limited in CPU time ------------------------------------------------------------------

def test_a_process_past_its_cpu_limit_is_killed_and_its_time_counted():
    r = bp.run_limited([sys.executable, "-c", "while True: pass"], cpu_limit=0.4, wall_limit=120)
    assert r.killed == "cpu" and r.code is None and 0.4 <= r.cpu_s < 30


def test_the_cpu_of_a_grandchild_counts_for_the_tree():
    spin = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'while True: pass'])"
    r = bp.run_limited([sys.executable, "-c", spin], cpu_limit=0.4, wall_limit=120)
    assert r.killed == "cpu" and r.cpu_s >= 0.4   # the child itself only waits


def test_a_wall_limit_backs_the_cpu_limit_up():
    r = bp.run_limited([sys.executable, "-c", "import time; time.sleep(60)"], cpu_limit=100, wall_limit=0.5)
    assert r.killed == "wall" and r.cpu_s < 100


def test_a_process_that_ends_keeps_its_output_and_exit_code():
    r = bp.run_limited([sys.executable, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"],
                       cpu_limit=60, wall_limit=120)
    assert (r.code, r.stdout.strip(), r.stderr.strip(), r.killed) == (3, "out", "err", None)


# -- the tools' answers -----------------------------------------------------------------------------

def test_symrel_holds_only_with_a_checked_certificate():
    def answer(**kw):
        return bp.symrel_outcome(bp.Run(0, json.dumps(kw), "", 5.0, 6.0))

    assert answer(result="unsat", checked=True).verdict == "holds"
    assert answer(result="unsat", checked=False).verdict == "error"       # never counted as decided
    assert answer(result="sat").verdict == "violated"
    assert answer(result="unknown", limit="time").verdict == "timeout"
    assert answer(result="unknown", limit="tree entries").verdict == "unknown"
    broken = bp.symrel_outcome(bp.Run(2, "", "symrel verify: error: x.onnx: not an ONNX file\n", 1.0, 1.0))
    assert broken.verdict == "error" and "not an ONNX file" in broken.note


def test_marabou_and_nnenum_answers_and_their_failures():
    assert bp.marabou_outcome(bp.Run(0, "Network: a\n\nunsat\n", "", 1.0, 1.0)).verdict == "holds"
    assert bp.marabou_outcome(bp.Run(0, "Network: a\n", "Segmentation fault", 1.0, 1.0)).verdict == "error"
    assert bp.marabou_outcome(bp.Run(None, "", "", 121.0, 130.0, "cpu")).verdict == "timeout"
    assert bp.nnenum_outcome(bp.Run(0, "", "", 2.0, 2.0), "violated\n").verdict == "violated"
    odd = bp.nnenum_outcome(bp.Run(0, "", "", 2.0, 2.0), "none")
    assert odd.verdict == "unknown" and "none" in odd.note
    assert bp.nnenum_outcome(bp.Run(1, "", "Traceback\nValueError: bad\n", 2.0, 2.0), None).verdict == "error"


def test_a_missing_peer_is_named_and_the_command_refuses_to_start(tmp_path, capsys):
    paths = bp.Paths(tmp_path / "Marabou", tmp_path / "nnenum", tmp_path / "python")
    assert paths.missing("symrel") is None
    assert str(tmp_path / "Marabou") in paths.missing("marabou")
    assert "unknown tool" in paths.missing("eran")
    listing = tmp_path / "l_instances.csv"
    listing.write_text("n.onnx,p.vnnlib,60\n")
    assert bp.main(["--instances", str(listing), "--tools", "symrel,marabou", "--marabou", str(tmp_path / "M")]) == 2
    assert "not found" in capsys.readouterr().err


# -- who refutes whom ---------------------------------------------------------------------------------

def test_symrels_exact_answer_refutes_every_tool_that_says_otherwise():
    entrants = [Entrant("Marabou", "violated", 3.0), Entrant("ERAN", "holds", 1.0), Entrant("nnv", "timeout")]
    j = bp.agreement({"symrel": "holds", "marabou": "violated", "nnenum": "holds"}, entrants)
    assert j == {"refuted": ["marabou", "2021 Marabou"], "open": None}
    j = bp.agreement({"symrel": "violated", "marabou": "timeout"}, entrants)
    assert j == {"refuted": ["2021 ERAN"], "open": None}


def test_without_symrels_answer_a_disagreement_stays_open():
    j = bp.agreement({"symrel": "timeout", "marabou": "violated"}, [Entrant("ERAN", "holds", 1.0)])
    assert j == {"refuted": [], "open": {"holds": ["2021 ERAN"], "violated": ["marabou"]}}
    assert bp.agreement({"symrel": "error", "marabou": "holds"}, [Entrant("ERAN", "holds", 1.0)]) == \
        {"refuted": [], "open": None}


# -- the counts and the tables --------------------------------------------------------------------------

def _session():
    return [rec("1_1", "symrel", "holds", 4.0, search=2.0, check=1.5), rec("1_1", "nnenum", "holds", 3.0),
            rec("1_2", "symrel", "violated", 1.0, search=0.4), rec("1_2", "nnenum", "holds", 2.0),
            rec("1_3", "symrel", "timeout", 116.3), rec("1_3", "nnenum", "holds", 40.0),
            rec("1_4", "symrel", "holds", 9.0, search=5.0, check=3.0), rec("1_4", "nnenum", "timeout", 117.0)]


def test_decided_counts_and_the_cpu_on_what_both_decided():
    s = bp.decided_summary(_session(), "nnenum")
    assert s["n"] == 4 and s["decided"] == {"symrel": 3, "nnenum": 3} and s["both"] == 2
    assert s["cpu on both"] == {"symrel": 5.0, "symrel search": 2.4, "symrel check": 1.5, "nnenum": 5.0}
    assert s["alone"] == {"symrel": 1, "nnenum": 1}
    lonely = bp.decided_summary(_session() + [rec("1_5", "symrel", "holds", 1.0, search=0.5)], "nnenum")
    assert lonely["n"] == 4    # an instance the peer has not run yet is left out of the comparison


def test_the_acas_goal_on_the_hardest_and_the_median():
    g = bp.acas_goal(_session(), "nnenum", hardest=2)
    hard = {h["instance"]: h for h in g["hardest"]}
    assert list(hard) == ["1_4 prop_1", "1_3 prop_1"]   # nnenum's timeout counts as its limit, the largest
    assert hard["1_4 prop_1"]["search <= peer"] and hard["1_4 prop_1"]["search + check <= 2 peer"]
    assert not hard["1_3 prop_1"]["search <= peer"] and not hard["1_3 prop_1"]["search + check <= 2 peer"]
    assert g["median"]["over"] == "all 4"
    typical = [dict(r, group="typical") if r["instance"] in ("1_1 prop_1", "1_2 prop_1") else r for r in _session()]
    m = bp.acas_goal(typical, "nnenum", hardest=2)["median"]
    assert m["over"] == "typical 2" and m["symrel search"] == 1.2 and m["peer"] == 2.5 and m["search <= peer"]


def test_a_sample_from_the_shipped_nnenum_run():
    groups = bp.sample_by_prior(bp.NNENUM_PRIOR, 10, 10)
    assert list(groups.values()).count("hardest") == 10 and list(groups.values()).count("typical") == 10
    assert groups["2_9 prop_1"] == "hardest"   # the largest CPU of that run


def test_the_section_lists_the_refuted_and_is_written_into_a_page(tmp_path):
    results = {tuple(_session()[0]["key"]): [Entrant("NV.jl", "violated", 2.0), Entrant("ERAN", "holds", 1.0)]}
    text = bp.body(_session(), results, "nnenum", "measured here.", hardest=2)
    joined = "\n".join(text)
    assert "**Decided, of 4: symrel 3, nnenum 3**" in joined
    assert "symrel 5.0 (search 2.4, trusted check 1.5), nnenum 5.0" in joined
    assert "| 1_2 prop_1 | sat (exact) | nnenum |" in joined          # symrel's witness refutes nnenum
    assert "| 1_1 prop_1 | unsat (checked) | 2021 NV.jl |" in joined
    assert text[-1] == "measured here."
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n\n## bench_x\n\nkept\n")
    write_section(page, "bench_peers: acasxu against nnenum", text)
    write_section(page, "bench_peers: acasxu against nnenum", text)   # replaced, not added twice
    out = page.read_text()
    assert out.count("## bench_peers: acasxu against nnenum") == 1 and "## bench_x\n\nkept" in out


def test_records_measured_before_are_kept_and_not_run_again(tmp_path):
    rows = tmp_path / "rows.jsonl"
    old = [rec("1_1", "symrel", "timeout", 116.5), rec("1_1", "symrel", "holds", 4.0, search=2.0, check=1.0),
           rec("1_1", "nnenum", "holds", 3.0)]
    rows.write_text("".join(json.dumps(r) + "\n" for r in old))
    done = bp.read_rows(rows)
    assert len(done) == 2 and {r["verdict"] for r in done} == {"holds"}   # the last of each wins
    inst = Instance("acasxu", Path("/nonexistent.onnx"), Path("/nonexistent.vnnlib"), "ACASXU_run2a_1_1_batch_2000.onnx",
                    "prop_1.vnnlib", 116.0)
    assert bp.measure([inst], ["symrel", "nnenum"], done=done, echo=False) == [done[0], done[1]]


def test_the_order_of_the_tools_rotates():
    assert [bp.rotation(["symrel", "marabou", "nnenum"], k)[0] for k in range(4)] == \
        ["symrel", "marabou", "nnenum", "symrel"]


# -- the real tools, where they are ----------------------------------------------------------------------

TEST = SHARED / "test"


def _test_instances():
    if not (TEST / "test_instances.csv").exists():
        pytest.skip("../shared/data/vnncomp2021 absent")
    from benchmarks.bench_vnncomp import read_list

    return {i.name: i for i in read_list(TEST / "test_instances.csv")}


@pytest.mark.parametrize("tool", ["symrel", "marabou", "nnenum"])
def test_each_tool_on_the_competitions_test_set(tool):
    pytest.importorskip("onnx")
    missing = bp.Paths().missing(tool)
    if missing:
        pytest.skip(missing)
    instances = _test_instances()
    sat = bp.run_tool(tool, instances["test_sat test_prop"], 60, bp.Paths())
    unsat = bp.run_tool(tool, instances["test_unsat test_prop"], 60, bp.Paths())
    assert (sat.verdict, unsat.verdict) == ("violated", "holds"), (sat, unsat)
    assert sat.cpu_s > 0 and unsat.cpu_s > 0
    if tool == "symrel":
        assert set(unsat.stages) >= {"read", "search", "check", "nodes"}
