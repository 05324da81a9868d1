"""symrel.verify: the Verdict (result, witness, certificate, stats, displays, bool), one clock
for the import, the search and the check, the executors, progress, and the inputs it takes."""

import json
import sys
import time
import types

import pytest

import symrel
from symrel.errors import InputError
from symrel.fileformat import save
from symrel.vnnlib import read_vnnlib_text
from symrel.verification.api import open_executor

from .cases import NET, SAT, STRIPS, UNSAT
from .cases import OVERRUN


@pytest.fixture
def files(tmp_path):
    save(NET, tmp_path / "net.json")
    for name, text in (("unsat", UNSAT), ("sat", SAT), ("strips", STRIPS)):
        (tmp_path / f"{name}.vnnlib").write_text(text)
    return tmp_path


def test_verify_is_public_and_import_symrel_stays_cheap():
    import subprocess

    assert symrel.verify is symrel.verification.verify and "verify" in dir(symrel)
    code = ("import sys, symrel; print(sorted(m for m in sys.modules if m.startswith(('symrel.verification', "
            "'symrel.vnnlib', 'sympy', 'numpy'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unsat_verdict_carries_its_checked_certificate(files):
    v = symrel.verify(files / "net.json", files / "unsat.vnnlib", executor="serial", certificate=files / "c.json")
    assert v.result == "unsat" and bool(v) and v.checked is True and v.witness is None
    text = (files / "c.json").read_text()
    import hashlib

    assert v.certificate_sha256 == hashlib.sha256(text.encode()).hexdigest()
    assert json.loads(text) == v.certificate
    for key in ("nodes", "splits", "leaves", "covered", "import_seconds", "search_seconds", "check_seconds", "seconds"):
        assert key in v.stats, key
    for stage in ("import", "search", "check"):   # this process's CPU per stage: a serial run's cost
        assert isinstance(v.stats[f"{stage}_cpu_seconds"], float) and v.stats[f"{stage}_cpu_seconds"] >= 0, stage
    assert v.covered == 1 and v.stats["covered"] == 1
    assert repr(v).startswith("<Verdict: unsat, certificate checked") and "\n" not in repr(v)
    assert "unsat" in v._repr_html_() and v.certificate_sha256 in v._repr_markdown_()
    assert v.to_json()["certificate_sha256"] == v.certificate_sha256 and v.to_json()["checked"] is True


def test_sat_verdict_has_an_exact_witness_and_is_false(files):
    import sympy

    v = symrel.verify(files / "net.json", files / "sat.vnnlib", executor="serial")
    assert v.result == "sat" and not v and v.certificate is None and v.checked is None
    x, y = v.witness.x, v.witness.y
    assert all(isinstance(c, sympy.Rational) for c in x + y)
    assert y == tuple(sympy.Rational(int(c.numerator), int(c.denominator)) for c in NET.evaluate_exact(list(x)))
    assert y[0] >= sympy.Rational(1, 2) and all(0 <= c <= 1 for c in x)
    assert "x = (" in str(v.witness) and "y = N(x)" in v._repr_markdown_()


def test_objects_are_taken_as_well_as_paths_and_no_path_is_recorded(files):
    prop = read_vnnlib_text(UNSAT)
    v = symrel.verify(NET, prop, executor="serial")
    assert v.result == "unsat" and v.files == {} and "network_file" not in v.certificate["claim"]
    v = symrel.verify(str(files / "net.json"), str(files / "unsat.vnnlib"), executor="serial")
    claim = v.certificate["claim"]
    assert claim["network_file"]["name"] == "net.json" and claim["property_source"] == "unsat.vnnlib"
    assert str(files) not in json.dumps(v.certificate)   # file names, never the directory
    assert v.files["property"]["sha256"] == claim["property_sha256"]


def test_bad_arguments_are_input_errors(files):
    from symrel.models import CPWL1D

    with pytest.raises(InputError, match="expected a ReLU, layered or maxout network"):
        symrel.verify(CPWL1D([0, 1], [0, 1]), read_vnnlib_text(UNSAT))
    with pytest.raises(InputError, match="expected a VNN-LIB property"):
        symrel.verify(NET, {"unsafe": []})
    with pytest.raises(InputError, match="expected serial, processes"):
        symrel.verify(NET, read_vnnlib_text(UNSAT), executor="threads")
    with pytest.raises(InputError, match="for progress"):
        symrel.verify(NET, read_vnnlib_text(UNSAT), progress="yes")


def test_a_budget_spent_before_the_search_is_unknown_at_the_import(files):
    v = symrel.verify(files / "net.json", files / "unsat.vnnlib", timeout=1e-9, executor="serial")
    assert v.result == "unknown" and not v and v.limit == "time" and v.stage == "import"
    assert v.covered == 0 and "search_seconds" not in v.stats
    assert "while reading" not in v.why() and "reading the network and the property" in v.why()


def _slow_search(monkeypatch):
    """The engine's own verdict, returned only once the search's time is spent (a search that
    ends late): the check then has no time left."""
    from symrel.vnnlib import engine

    real = engine.decide

    def decide(net, prop, *, timeout=None, executor=None, progress=None):
        verdict = real(net, prop, executor=executor)
        time.sleep(timeout or 0)
        return verdict

    stub = types.ModuleType("symrel.vnnlib.engine")
    stub.decide = decide
    monkeypatch.setitem(sys.modules, "symrel.vnnlib.engine", stub)


def test_a_search_that_ends_late_leaves_the_check_unfinished_and_names_it(files, monkeypatch):
    """The answer is unknown, naming the check; the certificate is kept, unchecked; and the
    command ended by its own budget (its clock: the time spent is the budget and the first
    leaf's check at most)."""
    _slow_search(monkeypatch)
    budget = 2.0
    v = symrel.verify(files / "net.json", files / "strips.vnnlib", timeout=budget, executor="serial",
                      certificate=files / "c.json")
    assert v.result == "unknown" and v.limit == "time" and v.stage == "check" and not v
    assert v.checked is False and v.certificate is not None and (files / "c.json").exists()
    assert v.stats["leaves_checked"] < v.stats["leaves"] and v.covered == 1 and v.open_leaves == 0
    assert "during the trusted check of the certificate" in v.why() and "leaves checked" in v.why()
    assert v.stats["seconds"] <= budget + OVERRUN
    code = symrel.verify(files / "net.json", files / "strips.vnnlib", executor="serial").result
    assert code == "unsat"   # with the time, the same certificate checks


def test_the_backstop_alarm_ends_a_stage_that_does_not_watch_the_clock(files, monkeypatch):
    """A search that ignores its deadline is stopped one second past the limit: unknown, at the
    time, during the search."""
    def decide(net, prop, *, timeout=None, executor=None, progress=None):
        end = time.monotonic() + 30
        while time.monotonic() < end:   # busy, never looking at the clock it was given
            sum(range(1000))
        raise AssertionError("not stopped")

    stub = types.ModuleType("symrel.vnnlib.engine")
    stub.decide = decide
    monkeypatch.setitem(sys.modules, "symrel.vnnlib.engine", stub)
    v = symrel.verify(NET, read_vnnlib_text(UNSAT), timeout=1.0, executor="serial")
    assert v.result == "unknown" and v.limit == "time" and v.stage == "search"
    assert v.stats["seconds"] <= 1.0 + OVERRUN


def test_every_executor_gives_the_serial_verdict_and_certificate(files, monkeypatch):
    """The pool of worker processes (started at once here) checks the leaves in runs of two,
    across the steps: the same certificate, checked."""
    from symrel.checking import leaf_runs as checker_runs
    from symrel.parallel import WarmingProcessPool

    monkeypatch.setattr(checker_runs, "LEAVES_PER_TASK", 2)
    serial = symrel.verify(files / "net.json", files / "strips.vnnlib", executor="serial")
    pool = WarmingProcessPool(2, warmup=0)
    try:
        pooled = symrel.verify(files / "net.json", files / "strips.vnnlib", executor=pool)
        assert pool.started
    finally:
        pool.shutdown()
    assert serial.result == pooled.result == "unsat" and pooled.checked
    assert serial.certificate_sha256 == pooled.certificate_sha256 and serial.stats["leaves"] >= 10
    assert pooled.stats["workers"] == 2 and serial.stats["workers"] == 1


def test_the_default_executor_is_a_pool_of_the_usable_cores(monkeypatch):
    from symrel import parallel

    monkeypatch.setattr(parallel, "usable_cores", lambda: 3)
    with open_executor(None) as pool:
        assert isinstance(pool, parallel.WarmingProcessPool) and pool._max_workers == 3 and not pool.started
    monkeypatch.setattr(parallel, "usable_cores", lambda: 1)
    with open_executor(None) as pool:
        assert pool is None
    with open_executor("serial") as pool:
        assert pool is None


def test_progress_reports_the_search_and_the_check(files):
    seen = []
    v = symrel.verify(files / "net.json", files / "strips.vnnlib", executor="serial", progress=seen.append)
    search = [s for s in seen if s["stage"] == "search"]
    check = [s for s in seen if s["stage"] == "check"]
    assert search and {"nodes", "open", "covered", "seconds"} <= set(search[-1])
    assert search[-1]["covered"] == 1 and search[-1]["open"] == 0
    assert check[-1] == {"stage": "check", "leaves_checked": v.stats["leaves"], "leaves": v.stats["leaves"]}
    assert [c["leaves_checked"] for c in check] == sorted(c["leaves_checked"] for c in check)


def test_progress_lines_on_standard_error(files, capsys):
    symrel.verify(files / "net.json", files / "strips.vnnlib", executor="serial", progress=True)
    err = capsys.readouterr().err
    assert "search nodes:" in err and "covered" in err and "open leaves" in err
    import re

    assert re.search(r"leaves checked: (\d+)/\1 \(100%\)", err), err


def test_check_false_says_not_checked(files):
    v = symrel.verify(files / "net.json", files / "unsat.vnnlib", executor="serial", check=False)
    assert v.result == "unsat" and v.checked is False and "check_seconds" not in v.stats
