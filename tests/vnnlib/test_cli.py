"""``symrel verify``: the verdict lines and exit codes around the engine (a stand-in engine
here, tests/vnnlib/stub_engine.py), malformed VNN-LIB files (exit 2), instance lists."""

import csv
import importlib.util
import json
from pathlib import Path

import pytest

from symrel.exact import rational as q
from symrel.fileformat import save
from symrel.models import DenseLayer, ReLUNet
from symrel.vnnlib.witness import read_witness

from . import stub_engine
from .stub_engine import Verdict

PROP = """; box [0,1]^2, unsafe when Y_0 >= 1/2
(declare-const X_0 Real)
(declare-const X_1 Real)
(declare-const Y_0 Real)
(declare-const Y_1 Real)
(assert (>= X_0 0)) (assert (<= X_0 1))
(assert (>= X_1 0)) (assert (<= X_1 1))
(assert (>= Y_0 0.5))
"""


@pytest.fixture
def files(tmp_path):
    """A net f(x) = (relu(x0 - x1), relu(x1)) as symrel JSON, and PROP."""
    net = ReLUNet(2, [DenseLayer([[1, -1], [0, 1]], [0, 0]), DenseLayer([[1, 0], [0, 1]], [0, 0], "none")])
    save(net, tmp_path / "net.json")
    (tmp_path / "prop.vnnlib").write_text(PROP)
    return tmp_path / "net.json", tmp_path / "prop.vnnlib"


def test_sat_prints_exact_witness_and_writes_vnncomp_file(files, tmp_path, run_cli, monkeypatch):
    stub_engine.install(monkeypatch, lambda net, prop: Verdict("sat", (q("3/4"), q("1/8")), None))
    net, prop = files
    ce, report = tmp_path / "w.txt", tmp_path / "r.md"
    code, out, err = run_cli("verify", net, prop, "--counterexample", ce, "--report", report)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "sat" and "X_0 = 3/4 (~0.75)" in lines and "Y_0 = 5/8 (~0.625)" in lines
    assert "Y_1 = 1/8 (~0.125)" in lines
    assert ce.read_text().startswith("sat\n((X_0 0.75)\n (X_1 0.125)\n (Y_0 0.625)")
    w = read_witness(ce, n_inputs=2, n_outputs=2)
    assert w.x == (q("3/4"), q("1/8")) and w.y == (q("5/8"), q("1/8"))
    assert report.read_text().splitlines()[2].startswith("**Result: sat.**")


def test_outputs_pinned_by_equalities_get_their_one_exact_witness(files, tmp_path, run_cli):
    """Y_0 = 3/10 and Y_1 = 7/10 (each as <= and >=) hold only at X = (1, 7/10): no float
    proposal is a counterexample there, and the search ran until its time (unknown); the exact
    LP on the region of the first refuted proposal gives the point itself."""
    pytest.importorskip("numpy")  # the float attack whose refuted proposal the LP starts from
    pinned = tmp_path / "pinned.vnnlib"
    pinned.write_text(PROP.replace("(assert (>= Y_0 0.5))", "(assert (>= Y_0 0.3)) (assert (<= Y_0 0.3))\n"
                                   "(assert (>= Y_1 0.7)) (assert (<= Y_1 0.7))"))
    code, out, _ = run_cli("verify", files[0], pinned, "--timeout", "60")
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "sat" and "X_0 = 1" in lines and "X_1 = 7/10 (~0.7)" in lines
    assert "Y_0 = 3/10 (~0.3)" in lines and "Y_1 = 7/10 (~0.7)" in lines


def test_an_engine_witness_that_fails_exactly_is_never_printed(files, run_cli, monkeypatch):
    stub_engine.install(monkeypatch, lambda net, prop: Verdict("sat", (q("1/4"), q("1/8")), None))
    code, out, err = run_cli("verify", *files)
    assert code == 2 and "sat" not in out and "fails its exact check" in err


def test_unknown_says_what_stayed_open(files, run_cli, monkeypatch):
    calls = stub_engine.install(monkeypatch, lambda net, prop: Verdict("unknown", open_leaves=((),) * 7, covered=q("3/4"),
                                                                       limit="time"))
    code, out, err = run_cli("verify", *files, "--timeout", "2.5", "--executor", "serial")
    assert code == 3 and out.splitlines() == ["unknown", "open leaves: 7; covered: 3/4 of the region (~75%)",
                                              "stopped at the limit: time (--timeout)"]
    # the search gets what the reading of the files left of the command's 2.5 s
    assert len(calls) == 1 and 0 < calls[0].pop("timeout") <= 2.5
    assert calls == [{"executor": None, "progress": True}]   # serial: the engine's None


def test_a_long_covered_fraction_is_shown_as_a_percentage(files, run_cli, monkeypatch):
    """Boxes halved a thousand times have volumes of thousands of digits: the text shows the
    percentage and the fraction's length, --json the fraction whole."""
    covered = 1 - q(1) / q(3) ** 1000
    stub_engine.install(monkeypatch, lambda net, prop: Verdict("unknown", open_leaves=((),) * 2, covered=covered,
                                                               limit="time"))
    code, out, _ = run_cli("verify", *files)
    assert code == 3 and out.splitlines()[1] == ("open leaves: 2; covered: ~100% of the region (the exact fraction "
                                                 "has 957 characters: --json)")
    code, out, _ = run_cli("verify", *files, "--json")
    assert code == 3 and json.loads(out)["covered"] == str(covered)


def test_unknown_at_a_size_limit_names_it(files, run_cli, monkeypatch):
    stub_engine.install(monkeypatch, lambda net, prop: Verdict("unknown", open_leaves=((),) * 2, covered=q("1/2"),
                                                               limit="tree entries"))
    code, out, err = run_cli("verify", *files, "--json")
    assert code == 3 and '"limit": "tree entries"' in out


def test_unsat_writes_the_certificate_and_checks_it(files, tmp_path, run_cli, monkeypatch):
    fake = {"format": "symrel-certificate", "claim": {"kind": "vnnlib-unsat"}, "steps": []}
    stub_engine.install(monkeypatch, lambda net, prop: Verdict("unsat", certificate=fake))
    cert = tmp_path / "c.json"
    code, out, err = run_cli("verify", *files, "--certificate", cert, "--no-check")
    assert code == 0 and out.splitlines()[0] == "unsat" and cert.exists()
    # the trusted checker runs by default, with or without --certificate: a certificate it
    # refuses is a bug, never "unsat", and is not written
    cert.unlink()
    for extra in (["--certificate", cert], []):
        code, out, err = run_cli("verify", *files, *extra)
        assert code == 2 and "unsat" not in out and "rejects the engine's certificate" in err
        assert not cert.exists()


def test_json_output(files, run_cli, monkeypatch):
    stub_engine.install(monkeypatch, lambda net, prop: Verdict("sat", (q(1), q(0)), None, stats={"leaves": 3}))
    code, out, _ = run_cli("verify", *files, "--json")
    obj = json.loads(out)
    assert code == 1 and obj["result"] == "sat" and obj["witness"] == [1, 0] and obj["stats"]["leaves"] == 3
    # the times of the stages, by the command's own clock: the stages add up to the whole
    stages = obj["stats"]["import_seconds"] + obj["stats"]["search_seconds"]
    assert 0 <= stages <= obj["stats"]["seconds"] + 0.002 and obj["time"] == obj["stats"]["seconds"]


MALFORMED = [
    ("(declare-const X_0 Real)\n(declare-const X_1 Real)\n(assert (< X_0 1))", "line 3", "expected <=, >="),
    ("(declare-const X_0 Real)\n(declare-const X_5 Real)", "line 2", "which has 2 inputs (X_0 to X_1), got X_5"),
    ("(declare-const X_0 Real)\n(assert (<= X_0 1)", "line 2", "expected ')'"),
    ("(declare-const X_0 Real)\n(assert (<= X_0 1/2))", "line 2", "expected a number or a variable"),
]


@pytest.mark.parametrize("text, line, expected", MALFORMED)
def test_malformed_vnnlib_exits_2_with_one_line(files, tmp_path, run_cli, monkeypatch, text, line, expected):
    calls = stub_engine.install(monkeypatch, lambda net, prop: pytest.fail("the engine must not run"))
    bad = tmp_path / "bad.vnnlib"
    bad.write_text(text)
    code, out, err = run_cli("verify", files[0], bad)
    assert code == 2 and out == "" and not calls
    assert err.count("\n") == 1 and f"{bad}: {line}: " in err and expected in err


def test_bad_network_and_usage(files, tmp_path, run_cli):
    other = tmp_path / "net.txt"
    other.write_text("x")
    code, _, err = run_cli("verify", other, files[1])
    assert code == 2 and "expected a network ending in .onnx, .nnet or .json" in err
    code, _, err = run_cli("verify", files[0])
    assert code == 2 and "expected NET and PROP.vnnlib" in err
    code, _, err = run_cli("verify", *files, "--instances", "x.csv")
    assert code == 2 and "give --instances alone" in err
    huge = tmp_path / "huge.json"  # exact, but beyond the doubles the engine's proposals need
    save(ReLUNet(2, [DenseLayer([[q(2) ** 1100, 0], [0, 1]], [0, 0]), DenseLayer([[1, 0], [0, 1]], [0, 0], "none")]),
         huge)
    code, _, err = run_cli("verify", huge, files[1])
    assert code == 2 and f"{huge}: network: a weight or bias beyond the range of a double" in err
    assert "Traceback" not in err
    big = "1" + "0" * 400
    e308 = "1" + "0" * 308
    wide = PROP.replace("(<= X_0 1)", f"(<= X_0 {e308})").replace("(>= X_0 0)", f"(>= X_0 -{e308})")
    # a bound of the box, a constant of the unsafe condition, a box whose bounds are doubles but not its width
    for text in (PROP.replace("(<= X_0 1)", f"(<= X_0 {big})"), PROP.replace("(>= Y_0 0.5)", f"(>= Y_0 {big})"), wide):
        far = tmp_path / "far.vnnlib"
        far.write_text(text)
        code, _, err = run_cli("verify", files[0], far)
        assert code == 2 and f"{far}: property: a bound, width or coefficient beyond the range of a double" in err


def test_instances_write_the_results_csv(files, tmp_path, run_cli, monkeypatch):
    stub_engine.install(monkeypatch, lambda net, prop: Verdict("sat", (q(1), q(0)), None))
    (tmp_path / "bad.vnnlib").write_text("(assert")
    (tmp_path / "list.csv").write_text("net.json,prop.vnnlib,60\nnet.json,bad.vnnlib,60\n")
    out = tmp_path / "results.csv"
    code, stdout, err = run_cli("verify", "--instances", tmp_path / "list.csv", "--out", out)
    rows = list(csv.reader(out.open()))
    assert rows[0] == ["onnx", "vnnlib", "result", "time", "certificate", "check", "check_time"]
    assert rows[1][2] == "sat" and rows[1][4].endswith(".counterexample.txt") and rows[2][2] == "error"
    assert "bad.vnnlib: line 1" in err and code == 3 and "1 of 2 decided" in stdout


def test_instance_list_errors_name_the_line(tmp_path, run_cli):
    (tmp_path / "list.csv").write_text("a.onnx,b.vnnlib,60\na.onnx,b.vnnlib,never\n")
    code, _, err = run_cli("verify", "--instances", tmp_path / "list.csv")
    assert code == 2 and "list.csv: line 2: expected a positive timeout" in err


TEST_SET = [("test_nano.onnx", "test_nano.vnnlib", "unsat"), ("test_tiny.onnx", "test_tiny.vnnlib", "unsat"),
            ("test_small.onnx", "test_small.vnnlib", "unsat"), ("test_sat.onnx", "test_prop.vnnlib", "sat"),
            ("test_unsat.onnx", "test_prop.vnnlib", "unsat")]


@pytest.mark.parametrize("onnx, vnnlib, verdict", TEST_SET)
def test_the_competitions_test_set_gets_its_known_verdicts(shared_dir, tmp_path, run_cli, onnx, vnnlib, verdict):
    """The real engine on VNN-COMP's test instances; a sat witness is confirmed again by the
    referee, exactly and by onnxruntime."""
    pytest.importorskip("onnx")  # the networks are .onnx files: the onnx extra reads them
    base = shared_dir / "data" / "vnncomp2021" / "test"
    cert, ce = tmp_path / "c.json", tmp_path / "w.txt"
    has_checker = importlib.util.find_spec("symrel.checking.vnnlib") is not None
    extra = [] if has_checker else ["--no-check"]
    code, out, err = run_cli("verify", base / onnx, base / vnnlib, "--certificate", cert, "--counterexample", ce,
                             "--timeout", "60", *extra)
    assert out.splitlines()[0] == verdict and code == {"unsat": 0, "sat": 1}[verdict], err
    if verdict == "unsat":
        assert cert.exists() and not ce.exists()
        assert ("checked in" if has_checker else "not checked") in out
    else:
        if importlib.util.find_spec("onnxruntime"):
            assert "onnxruntime: the witness passes the competition's check" in out.splitlines()
        code, out, err = run_cli("verify", base / onnx, base / vnnlib, "--check-witness", ce, "--json")
        obj = json.loads(out)
        assert code == 0 and obj["verdict"] == "confirmed" and obj["claimed_difference"] == 0
        if importlib.util.find_spec("onnxruntime"):
            assert obj["float_check"]["passes"]


def test_instance_list_of_the_test_set_checks_every_certificate(shared_dir, tmp_path, run_cli):
    pytest.importorskip("onnx")  # the networks are .onnx files: the onnx extra reads them
    listing = shared_dir / "data" / "vnncomp2021" / "test" / "test_instances.csv"  # paths relative to it
    out = tmp_path / "results.csv"
    code, stdout, err = run_cli("verify", "--instances", listing, "--out", out)
    rows = list(csv.DictReader(out.open()))
    assert [(Path(r["onnx"]).name, Path(r["vnnlib"]).name, r["result"]) for r in rows] == TEST_SET
    assert code == 0, err
    for row in rows:
        if row["result"] == "unsat":
            assert row["check"] == "checked" and float(row["check_time"]) >= 0
            code, _, _ = run_cli("check-certificate", row["certificate"])
            assert code == 0
        else:
            assert row["check"] == "witness exact" and row["certificate"].endswith(".counterexample.txt")
    assert "5 of 5 decided" in stdout


def test_executor_run_gives_the_serial_verdict_and_certificate(shared_dir, tmp_path, run_cli):
    pytest.importorskip("onnx")  # the networks are .onnx files: the onnx extra reads them
    base = shared_dir / "data" / "vnncomp2021" / "test"
    serial, pooled = tmp_path / "serial.json", tmp_path / "pooled.json"
    for cert, executor in ((serial, "serial"), (pooled, "processes:2")):
        code, out, err = run_cli("verify", base / "test_small.onnx", base / "test_small.vnnlib",
                                 "--certificate", cert, "--executor", executor)
        assert code == 0 and out.splitlines()[0] == "unsat", err
    assert serial.read_bytes() == pooled.read_bytes()


HEADER2 = "(declare-const X_0 Real)(declare-const X_1 Real)(declare-const Y_0 Real)(declare-const Y_1 Real)\n"
BOX2 = "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (>= X_1 0)) (assert (<= X_1 1))\n"


@pytest.mark.parametrize("body, verdict", [
    # max relu(x0 - x1) over x0 + x1 <= 1/2 in the unit square is 1/2, at (1/2, 0)
    (BOX2 + "(assert (<= (+ X_0 X_1) 0.5)) (assert (>= Y_0 0.6))", "unsat"),
    (BOX2 + "(assert (<= (+ X_0 X_1) 0.5)) (assert (>= Y_0 0.5))", "sat"),
    # a union of two boxes, the second one reaching Y_0 = 1/2
    ("(assert (or (and (>= X_0 0) (<= X_0 0.1) (>= X_1 0) (<= X_1 1))"
     " (and (>= X_0 0.9) (<= X_0 1) (>= X_1 0.5) (<= X_1 1)))) (assert (>= Y_0 0.45))", "sat"),
    ("(assert (or (and (>= X_0 0) (<= X_0 0.1) (>= X_1 0) (<= X_1 1))"
     " (and (>= X_0 0.9) (<= X_0 1) (>= X_1 0.5) (<= X_1 1)))) (assert (>= Y_0 0.55))", "unsat"),
    ("(assert (>= X_0 1)) (assert (<= X_0 0)) (assert (>= X_1 0)) (assert (<= X_1 1)) (assert (>= Y_0 0))", "unsat"),
])
def test_polytope_union_and_empty_regions_with_the_engine(files, tmp_path, run_cli, body, verdict):
    prop = tmp_path / "p.vnnlib"
    prop.write_text(HEADER2 + body + "\n")
    code, out, err = run_cli("verify", files[0], prop, "--certificate", tmp_path / "c.json")
    assert out.splitlines()[0] == verdict and code == {"unsat": 0, "sat": 1}[verdict], err
    if verdict == "unsat":
        assert "checked in" in out


def test_an_unbounded_region_is_refused_naming_the_property(files, tmp_path, run_cli):
    prop = tmp_path / "p.vnnlib"
    prop.write_text(HEADER2 + "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (>= Y_0 0.5))\n")
    code, out, err = run_cli("verify", files[0], prop)
    assert code == 2 and err.startswith(f"symrel: error: {prop}: ") and "X_1 has no lower bound" in err


SMALL_BOX = "".join(f"(declare-const {v}_{i} Real)\n" for v in "XY" for i in range(5)) + "".join(
    f"(assert (>= X_{i} {lo})) (assert (<= X_{i} {hi}))\n" for i, (lo, hi) in enumerate(
        [("0.6299288845", "0.6499288845"), ("-0.01", "0.01"), ("-0.01", "0.01"), ("0.465", "0.485"),
         ("-0.485", "-0.465")])) + "(assert (<= Y_1 Y_0))\n"   # near a head-on encounter: weak left below COC?


def test_acas_nnet_and_onnx_agree_on_a_small_box(shared_dir, tmp_path, run_cli):
    """.nnet (decimals, normalised inputs) and VNN-COMP's .onnx (float32, an input Sub) of
    ACAS Xu 1_1: both decide the same property unsat, each certificate checked."""
    pytest.importorskip("onnx")  # the networks are .onnx files: the onnx extra reads them
    prop = tmp_path / "small.vnnlib"
    prop.write_text(SMALL_BOX)
    nnet = shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet"
    onnx = shared_dir / "data" / "vnncomp2021" / "acasxu" / "ACASXU_run2a_1_1_batch_2000.onnx"
    for net in (nnet, onnx):
        code, out, err = run_cli("verify", net, prop, "--timeout", "120")
        assert code == 0 and out.splitlines()[0] == "unsat" and "checked in" in out, (net, err)
