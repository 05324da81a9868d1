"""symrel.bounds: the OutputBounds (bounds, points, certificate, stats, displays, bool), the
regions it reads, one clock for the import, the search and the check, executors, progress."""

import json
import time
from pathlib import Path

import pytest

import symrel
from symrel.errors import InputError
from symrel.exact import Q
from symrel.fileformat import save
from symrel.models import Box
from symrel.vnnlib import read_vnnlib_text

from .cases import BOX, HEADER, NET, SAT
from .cases import OVERRUN

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "vnncomp2021" / "acasxu"


@pytest.fixture
def files(tmp_path):
    save(NET, tmp_path / "net.json")
    save(Box([(0, 1), (0, 1)]), tmp_path / "box.json")
    (tmp_path / "sat.vnnlib").write_text(SAT)
    return tmp_path


def test_bounds_is_public_and_its_result_reads_well(files):
    assert symrel.bounds is symrel.verification.bounds and "bounds" in dir(symrel)
    r = symrel.bounds(files / "net.json", files / "box.json", nodes=100, executor="serial",
                      certificate=files / "c.json")
    # f = (relu(x0 - x1), relu(x1)) on the unit square: Y_0 in [0, 1], Y_1 in [0, 1], all attained
    assert [(b.output, b.lower, b.upper, b.lower_attained, b.upper_attained) for b in r.outputs] == \
        [(0, 0, 1, True, True), (1, 0, 1, True, True)]
    assert r.checked and bool(r) and r.limit is None and r.stage is None and r.attained == 4
    assert r[1].greatest.x == (0, 1) or NET.evaluate_exact(list(r[1].greatest.exact_x))[1] == 1
    text = (files / "c.json").read_text()
    import hashlib

    assert r.certificate_sha256 == hashlib.sha256(text.encode()).hexdigest() and json.loads(text) == r.certificate
    assert r.files["network"]["name"] == "net.json" and r.files["region"]["name"] == "box.json"
    claim = r.certificate["claim"]
    assert claim["network_file"]["name"] == "net.json" and claim["region_file"]["name"] == "box.json"
    assert str(files) not in text   # file names, never the directory
    for key in ("nodes", "leaves", "import_seconds", "search_seconds", "check_seconds", "seconds", "workers"):
        assert key in r.stats, key
    assert repr(r).startswith("<OutputBounds: 2 outputs, 4 of 4 bounds attained, certificate checked")
    assert "\n" not in repr(r) and "Y_1" in r._repr_html_() and r.certificate_sha256 in r._repr_markdown_()
    js = r.to_json()
    assert js["checked"] is True and js["bounds"][0] == {
        "output": 0, "lower": 0, "upper": 1, "lower_attained": True, "upper_attained": True,
        "least": r[0].least.to_json(), "greatest": r[0].greatest.to_json()}
    with pytest.raises(KeyError):
        r[2]


def test_regions_from_a_property_a_box_pairs_and_objects(files):
    r = symrel.bounds(NET, files / "sat.vnnlib", executor="serial", outputs=[1])
    assert [b.output for b in r.outputs] == [1] and r.limit is None   # relu(x1): attained without branching
    assert r.notes == ["the property's output constraints (1 disjunct) are ignored: the bounds are over its input "
                       "region"]
    assert r.files["region"]["name"] == "sat.vnnlib" and "network" not in r.files
    for region in ([(0, 1), ("0", "1")], Box([(0, 1), (0, 1)]), read_vnnlib_text(SAT)):
        again = symrel.bounds(NET, region, executor="serial", outputs=[1])
        assert again.outputs[0].exact_lower == r.outputs[0].exact_lower and again.files == {}


@pytest.mark.parametrize("text, words", [
    (HEADER + "(assert (or (and (>= X_0 0) (<= X_0 1) (>= X_1 0) (<= X_1 1)) (and (>= X_0 2) (<= X_0 3) (>= X_1 0) "
              "(<= X_1 1))))", "a disjunction of 2 regions"),
    (HEADER + BOX + "(assert (<= (+ X_0 X_1) 1))", "bounds on single inputs"),
    (HEADER + "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (<= X_1 1))", "X_1 has no lower bound"),
])
def test_regions_that_are_not_one_box_are_refused_naming_the_file(files, text, words):
    (files / "p.vnnlib").write_text(text)
    with pytest.raises(InputError, match=words) as err:
        symrel.bounds(files / "net.json", files / "p.vnnlib", executor="serial")
    assert "p.vnnlib" in str(err.value)


def test_bad_arguments_are_input_errors(files):
    with pytest.raises(InputError, match="box of 2 inputs"):
        symrel.bounds(NET, [(0, 1)], executor="serial")
    with pytest.raises(InputError, match="distinct outputs"):
        symrel.bounds(NET, [(0, 1), (0, 1)], outputs=[2], executor="serial")
    with pytest.raises(InputError, match="positive number of nodes"):
        symrel.bounds(NET, [(0, 1), (0, 1)], nodes=0, executor="serial")
    with pytest.raises(InputError, match="expected a region"):
        symrel.bounds(NET, 3, executor="serial")
    with pytest.raises(InputError, match="lower <= upper"):
        symrel.bounds(NET, [(1, 0), (0, 1)], executor="serial")
    with pytest.raises(InputError, match="got the float 0.5; give it as a Fraction") as err:
        symrel.bounds(NET, [(0.5, 1), (0, 1)], executor="serial")
    assert "exact_floats" not in str(err.value)
    with pytest.raises(InputError, match="progress"):
        symrel.bounds(NET, [(0, 1), (0, 1)], progress="yes", executor="serial")


def test_a_budget_spent_before_the_search_gives_no_bounds(files):
    r = symrel.bounds(files / "net.json", files / "box.json", timeout=1e-9, executor="serial")
    assert r.outputs == [] and not r and r.limit == "time" and r.stage == "import"
    assert "no bounds" in r.why() and "search_seconds" not in r.stats


def _slow_search(monkeypatch, roots_checked: bool):
    """The search's own result, returned only once the search's time is spent: the final check
    then has no time left. ``roots_checked``: the bounds of the whole box are checked first
    (as symrel.bounds asks), else the search never offers them."""
    from symrel.vnnlib import output_bounds

    real = output_bounds.search_bounds

    def search_bounds(net, lo, hi, outputs=None, *, timeout=None, after_roots=None, **kw):
        start = time.monotonic()
        found = real(net, lo, hi, outputs, nodes=200, executor=None, after_roots=after_roots if roots_checked else None)
        time.sleep(max(0.0, (timeout or 0) - (time.monotonic() - start)))   # until the search's time is up
        return found

    monkeypatch.setattr(output_bounds, "search_bounds", search_bounds)


def test_a_search_that_ends_late_falls_back_to_the_checked_bounds_of_the_whole_box(files, monkeypatch):
    from tests.vnnlib.test_output_bounds import random_net

    net = random_net(106, n=3, widths=(8, 6, 5))
    box = [(-1, 1), (-1, "3/2"), (0, "1/3")]
    roots = symrel.bounds(net, box, executor="serial")   # the bounds of the whole box
    _slow_search(monkeypatch, True)
    budget = 6.0   # the whole box's check must fit in it on a loaded machine
    r = symrel.bounds(net, box, timeout=budget, executor="serial", certificate=files / "c.json")
    assert r.checked and r.stage == "check" and r.limit == "time" and "could not be checked" in r.notes[-1]
    assert r.to_json()["bounds"] == roots.to_json()["bounds"] and r.certificate_sha256 == roots.certificate_sha256
    assert json.loads((files / "c.json").read_text()) == roots.certificate
    assert r.stats["seconds"] <= budget + OVERRUN


def test_without_time_to_check_even_the_whole_box_the_bounds_are_unchecked(files, monkeypatch):
    _slow_search(monkeypatch, False)
    budget = 2.0
    r = symrel.bounds(files / "net.json", files / "box.json", timeout=budget, executor="serial",
                      certificate=files / "c.json")
    assert r.outputs and not r and r.checked is False and r.stage == "check"
    assert (files / "c.json").exists() and r.certificate is not None
    assert "did not finish" in r.why() and "leaves checked" in r.why()
    assert r.stats["seconds"] <= budget + OVERRUN


def test_the_backstop_alarm_ends_a_search_that_does_not_watch_the_clock(monkeypatch):
    from symrel.vnnlib import output_bounds

    def search_bounds(*args, **kw):
        end = time.monotonic() + 30
        while time.monotonic() < end:   # busy, never looking at the clock it was given
            sum(range(1000))
        raise AssertionError("not stopped")

    monkeypatch.setattr(output_bounds, "search_bounds", search_bounds)
    r = symrel.bounds(NET, [(0, 1), (0, 1)], timeout=1.0, executor="serial")
    assert r.outputs == [] and r.limit == "time" and r.stage == "search" and r.stats["seconds"] <= 1.0 + OVERRUN


def test_every_executor_gives_the_serial_bounds_and_certificate(monkeypatch):
    from symrel.checking import leaf_runs as checker_runs
    from symrel.parallel import WarmingProcessPool

    from tests.vnnlib.test_output_bounds import random_net

    monkeypatch.setattr(checker_runs, "LEAVES_PER_TASK", 2)
    net = random_net(106, n=3, widths=(8, 6, 5))
    box = [(-1, 1), (-1, "3/2"), (0, "1/3")]
    serial = symrel.bounds(net, box, nodes=80, executor="serial")
    pool = WarmingProcessPool(2, warmup=0)
    try:
        pooled = symrel.bounds(net, box, nodes=80, executor=pool)
        assert pool.started
    finally:
        pool.shutdown()
    assert serial.checked and pooled.checked and serial.certificate_sha256 == pooled.certificate_sha256
    assert serial.to_json()["bounds"] == pooled.to_json()["bounds"] and pooled.stats["workers"] == 2


def test_progress_reports_the_search_and_the_check():
    seen = []
    r = symrel.bounds(NET, [(0, 1), (0, 1)], nodes=60, executor="serial", progress=seen.append)
    search = [s for s in seen if s["stage"] == "search"]
    check = [s for s in seen if s["stage"] == "check"]
    assert search and {"nodes", "leaves", "attained", "bounds", "gap", "seconds"} <= set(search[-1])
    assert search[-1]["bounds"] == 4
    assert check[-1] == {"stage": "check", "leaves_checked": r.stats["leaves"], "leaves": r.stats["leaves"]}


def test_progress_lines_on_standard_error(capsys):
    symrel.bounds(NET, [(0, 1), (0, 1)], nodes=60, executor="serial", progress=True)
    err = capsys.readouterr().err
    assert "search nodes:" in err and "attained" in err
    import re

    assert re.search(r"leaves checked: (\d+)/\1 \(100%\)", err), err


def test_progress_lines_after_the_roots_check_count_the_search_then_the_check(capsys):
    """A search that branches after the roots' check (the fallback, checked first): its nodes on a
    bar of their own again, then the final check's leaves out of its own total, never beyond it."""
    import re

    from tests.vnnlib.test_output_bounds import random_net

    net = random_net(100, n=3, widths=(8, 6, 5))
    r = symrel.bounds(net, [(-1, 1), (-1, Q(3, 2)), (0, Q(1, 3))], nodes=40, executor="serial", progress=True)
    err = capsys.readouterr().err
    assert r.stats["rounds"] > 0 and r.checked, r.stats
    counts = [(int(k), int(n)) for k, n in re.findall(r"leaves checked: (\d+)/(\d+)", err)]
    assert counts and all(k <= n for k, n in counts), err
    assert counts[-1] == (r.stats["leaves"], r.stats["leaves"]), err
    nodes = [int(k) for k in re.findall(r"search nodes: (\d+)", err)]
    assert nodes and nodes[-1] == r.stats["nodes"], err


def test_check_false_says_not_checked():
    r = symrel.bounds(NET, [(0, 1), (0, 1)], executor="serial", check=False)
    assert r.outputs and not r and r.checked is False and "check_seconds" not in r.stats


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data/vnncomp2021/acasxu")
def test_acas_xu_bounds_hold_at_sampled_points():
    """ACAS Xu 1_1 on the input region of property 3: the certified bounds hold at points of the
    region evaluated exactly, and the points found are in the region."""
    import random

    pytest.importorskip("onnx")   # the net is an .onnx file
    net = symrel.verification.read_network(SHARED / "ACASXU_run2a_1_1_batch_2000.onnx")
    r = symrel.bounds(net, SHARED / "prop_3.vnnlib", nodes=60, executor="serial")
    assert r.checked and r.limit == "nodes" and len(r.outputs) == 5
    lo, hi = zip(*[tuple(b) for b in r.certificate["inputs"]["region"]["object"]["bounds"]])
    lo, hi = [symrel.rational(v) for v in lo], [symrel.rational(v) for v in hi]
    rng = random.Random(3)
    for _ in range(5):
        x = [a + (b - a) * Q(rng.randint(0, 64), 64) for a, b in zip(lo, hi)]
        y = net.evaluate_exact(x)
        assert all(b.exact_lower <= y[b.output] <= b.exact_upper for b in r.outputs)
    for b in r.outputs:
        assert b.exact_lower <= b.least.exact_y <= b.greatest.exact_y <= b.exact_upper
        assert all(a <= v <= c for v, a, c in zip(b.least.exact_x, lo, hi))


def test_layered_and_maxout_nets_are_refused_by_name(files):
    """symrel verify takes them (the layered engine); symrel bounds does not yet, and says so."""
    import random

    from symrel.models import MaxoutLayer, MaxoutNet, MaxoutUnit

    from tests.vnnlib.layered.oracle import random_net

    layered = random_net(random.Random(1), 1)
    with pytest.raises(InputError, match="does not take a layered net yet"):
        symrel.bounds(layered, [(0, 1)] * layered.input_dim, executor="serial")
    maxout = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, 0])])])
    save(maxout, files / "maxout.json")
    with pytest.raises(InputError, match="does not take a maxout net yet") as err:
        symrel.bounds(files / "maxout.json", [(0, 1)], executor="serial")
    assert "maxout.json" in str(err.value)
