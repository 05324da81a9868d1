"""``symrel audit-tracr``: exit codes, files written, bad input, the missing extra."""

import json
import sys

import pytest

PROGRAMS = '''
from tracr.compiler import lib
from tracr.rasp import rasp

def hist():
    return lib.make_hist()

def sort_unique():
    return lib.make_sort_unique(rasp.tokens, rasp.tokens)   # needs unique keys: duplicates break it

def not_a_program():
    return 3
'''


@pytest.fixture
def programs(tmp_path):
    path = tmp_path / "progs.py"
    path.write_text(PROGRAMS)
    return path


@pytest.mark.slow  # compiles in process: jax's start-up and tracr's compile dominate
def test_proved_writes_certificate_and_report(run_cli, programs, tmp_path):
    pytest.importorskip("tracr")
    cert, report = tmp_path / "c.json", tmp_path / "r.md"
    code, out, err = run_cli("audit-tracr", f"{programs}:hist", "--vocab", "1,2", "--max-seq-len", "2",
                             "--certificate", cert, "--report", report)
    assert code == 0, err
    assert out.splitlines()[-1] == "proved" and "inputs: 6" in out and "coldness:" in out
    text = report.read_text()
    assert "| 0 | attention |" in text and "Certified coldness" in text
    code, out, err = run_cli("check-certificate", cert)
    assert code == 0 and out.splitlines()[-1] == "checked"


@pytest.mark.slow
def test_refuted_writes_the_counterexample(run_cli, programs, tmp_path):
    pytest.importorskip("tracr")
    cx = tmp_path / "x.json"
    code, out, err = run_cli("audit-tracr", f"{programs}:sort_unique", "--vocab", "1,2", "--max-seq-len", "2",
                             "--counterexample", cx, "--certificate", tmp_path / "c.json")
    assert code == 1 and out.splitlines()[-1] == "refuted"
    obj = json.loads(cx.read_text())
    assert obj["kind"] == "tracr-counterexample" and obj["input"] == [1, 1] and obj["rasp"] is None
    assert not (tmp_path / "c.json").exists()


def test_open_beyond_max_inputs(run_cli, programs):
    pytest.importorskip("tracr")
    code, out, err = run_cli("audit-tracr", f"{programs}:hist", "--vocab", "1,2", "--max-seq-len", "2",
                             "--max-inputs", "3")
    assert code == 3 and "max_inputs" in err


@pytest.mark.parametrize("args, needle", [
    (["{p}:nope", "--vocab", "1,2", "--max-seq-len", "2"], "expected a function 'nope'"),
    (["{p}:not_a_program", "--vocab", "1,2", "--max-seq-len", "2"], "RASP program"),
    (["{p}:hist", "--vocab", "1,,2", "--max-seq-len", "2"], "--vocab"),
    (["{p}", "--vocab", "1", "--max-seq-len", "2"], "FILE.py:FUNCTION"),
    (["{p}:hist", "--vocab", "1", "--max-seq-len", "2", "--executor", "threads"], "--executor"),
])
def test_bad_input_exits_2(run_cli, programs, args, needle):
    pytest.importorskip("tracr")
    code, out, err = run_cli("audit-tracr", *[a.format(p=programs) for a in args])
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_missing_extra_exits_2_with_the_install_line(run_cli, programs, monkeypatch):
    monkeypatch.setitem(sys.modules, "tracr", None)  # import tracr now fails
    code, out, err = run_cli("audit-tracr", f"{programs}:hist", "--vocab", "1,2", "--max-seq-len", "2")
    assert code == 2 and "pip install 'symrel[tracr]'" in err


def test_info_reads_a_sequence_transformer(run_cli, tmp_path):
    from symrel.fileformat import save
    from symrel.models import SequenceTransformer

    m = SequenceTransformer(tokens=["BOS", "a"], bos="BOS", token_embedding=[[1], [2]], position_embedding=[[0], [0]],
                            layers=[], unembedding=[[1]], output="numerical")
    save(m, tmp_path / "m.json")
    code, out, err = run_cli("info", tmp_path / "m.json")
    assert code == 0 and "kind: sequence-transformer" in out and "max_seq_len: 1" in out
