"""The branching choice (symrel.vnnlib.branching): the split of an open node."""

from pathlib import Path

import pytest

from symrel.exact import rational as q
from symrel.models import DenseLayer, ReLUNet

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "vnncomp2021"
if not DATA.exists():
    DATA = Path("/work/shared/data/vnncomp2021")


@pytest.mark.skipif(not (DATA / "acasxu").exists(), reason="../shared/data/vnncomp2021 absent")
def test_acasxu_split_of_a_thin_box_is_its_wide_input():
    """A node met by property 2 on network 3-3 (issue 28): ``X_1`` is 1/64 wide, the other
    inputs a few millionths. Halving ``X_1`` leaves one half's float bound far lower than the
    node's (the relaxations' slopes flip: the bounds are not monotone in the box), so the sum
    of the parts' gaps chose ``X_4``, 7.6e-7 wide, and the search halved the thin inputs for
    ever (depth 127, no leaf closed in 60 s). The parts' gaps are now floored at the node's
    (its bound holds on them), and an input 2^-8 thinner, relatively, than the widest is not
    split: the node is split on ``X_1`` or on a ReLU. (The network LP's betas and slopes now
    close the node and its two ReLU-split parts: the split rule is asked directly, with the
    plain float bounds it was given then.)"""
    pytest.importorskip("onnx")
    pytest.importorskip("numpy")
    from symrel.interop.onnx_import import read_onnx
    from symrel.vnnlib.branching import branch
    from symrel.vnnlib.close import Attempt
    from symrel.vnnlib.gaps import float_gaps
    from symrel.vnnlib.node import Closed, PhaseSplit, ReluSplit, Task
    from symrel.vnnlib.problem import candidates, prepare, region_box, to_float
    from symrel.vnnlib.reader import read_vnnlib
    from symrel.vnnlib.worker import evaluate

    net = read_onnx(DATA / "acasxu" / "ACASXU_run2a_3_3_batch_2000.onnx").model
    p = read_vnnlib(DATA / "acasxu" / "prop_2.vnnlib")
    lo = [q(v) for v in ("10561338159657/16384000000000", "-1/64", "-115127/262144", "147457/327680",
                         "-602863/1310720")]
    hi = [q(v) for v in ("21122756177083/32768000000000", "0", "-57563/131072", "73729/163840",
                         "-301431/655360")]
    splits = (PhaseSplit(5, 49, 0), PhaseSplit(5, 20, 1))
    problem = prepare(net, p, [region_box(c, 5, "d") for c in p.input_region])
    for path in (splits, splits[1:], ()):
        assert isinstance(evaluate(problem, Task(0, lo, hi, path, False)), Closed)
    fixed = {}
    run = problem.float_bounds.run([to_float(v) for v in lo], [to_float(v) for v in hi], fixed)
    gaps = float_gaps(problem, 0, run)
    assert max(g for g, _ in gaps) < 0
    plan = [Attempt(candidates(problem, 0, conj)[j]) for conj, (_, j) in zip(problem.unsafe, gaps)]
    split = branch(problem, 0, lo, hi, fixed, run, gaps, plan)
    assert isinstance(split, ReluSplit) or split.input == 1, split


def test_crossing_cuts_an_input_through_a_neurons_zero():
    """The cut through the zero of z = x_0 - 3/10 on the unit square is x_0 = 19/64 (0.3 on
    the grid of 1/64 of the width); a zero at 1/100, too near the edge, gives no cut."""
    pytest.importorskip("numpy")
    from symrel.vnnlib.branching import crossing
    from symrel.vnnlib.floatbounds import FloatBounds
    from symrel.vnnlib.node import InputSplit
    from symrel.vnnlib.symbolic import integer_net

    lo, hi = [q(0), q(0)], [q(1), q(1)]
    for bias, want in (("-3/10", InputSplit(0, q("19/64"))), ("-1/100", None)):
        net = ReLUNet(2, [DenseLayer([[1, 0], [0, 1]], [bias, "-1/2"]), DenseLayer([[1, 1]], [0], "none")])
        run = FloatBounds(integer_net(net)).run([0.0, 0.0], [1.0, 1.0], {})
        assert crossing(run, 0, 0, lo, hi, [0, 1]) == want




def test_exact_branch_halves_the_input_that_weighs_most():
    """Without float bounds the halved input is the one with the highest ``|A_i| * width_i``
    in the exact lower form of the least-settled disjunct: for y = x_0 / 8 + 3 x_1 (its ReLUs
    active on the box) and y <= 0, x_1 on the square, x_0 where x_1 is 1/100 wide; where every
    disjunct's bound is above its right-hand side (y <= -4), the widest input."""
    from symrel.vnnlib import LinearAtom, VnnProperty
    from symrel.vnnlib.branching import exact_branch
    from symrel.vnnlib.close import exact_bounds
    from symrel.vnnlib.node import InputSplit
    from symrel.vnnlib.problem import prepare, region_box

    net = ReLUNet(2, [DenseLayer([[1, 0], [0, 1]], [1, 1]), DenseLayer([["1/8", 3]], ["-25/8"], "none")])
    sides = ((LinearAtom((q(1), q(0)), (q(0),), q(1)), LinearAtom((q(-1), q(0)), (q(0),), q(1)),
              LinearAtom((q(0), q(1)), (q(0),), q(1)), LinearAtom((q(0), q(-1)), (q(0),), q(1))),)

    def split(rhs, lo, hi):
        p = VnnProperty(2, 1, sides, ((LinearAtom((q(0), q(0)), (q(1),), q(rhs)),),), "0" * 64, "inline")
        problem = prepare(net, p, [region_box(c, 2, "d") for c in p.input_region])
        lo, hi = tuple(q(v) for v in lo), tuple(q(v) for v in hi)
        return exact_branch(problem, 0, lo, hi, exact_bounds(problem, lo, hi, {}))

    assert split(0, (-1, -1), (1, 1)) == InputSplit(1)
    assert split(0, (-1, "-1/200"), (1, "1/200")) == InputSplit(0)
    assert split(-4, ("-1/2", -1), ("1/2", 1)) == InputSplit(1)
    assert split(-4, (-1, "-1/2"), (1, "1/2")) == InputSplit(0)


def test_the_chosen_splits_parts_keep_their_runs_for_their_own_evaluation(monkeypatch):
    """branch() scores each candidate split by float runs of its two parts; the chosen split's
    runs are kept and a part's evaluation takes its own (once), the same floats as a run
    computed anew; a run kept for one problem is not given to another, nor twice."""
    np = pytest.importorskip("numpy")
    from symrel.vnnlib import gaps as gaps_module
    from symrel.vnnlib.branching import branch
    from symrel.vnnlib.close import Attempt
    from symrel.vnnlib.gaps import float_gaps, part_run, run_key
    from symrel.vnnlib.node import InputSplit
    from symrel.vnnlib.problem import candidates, prepare, region_box, to_float
    from symrel.vnnlib import LinearAtom, VnnProperty

    net = ReLUNet(2, [DenseLayer([[1, -1], [1, 1], [2, -1]], [0, "-1/2", "1/4"]),
                      DenseLayer([[1, -1, 1]], [0], "none")])
    box = ((LinearAtom((q(-1), q(0)), (q(0),), q(1)), LinearAtom((q(1), q(0)), (q(0),), q(1)),
            LinearAtom((q(0), q(-1)), (q(0),), q(1)), LinearAtom((q(0), q(1)), (q(0),), q(1))),)
    prop = VnnProperty(2, 1, box, ((LinearAtom((q(0), q(0)), (q(1),), q(-5)),),), "0" * 64, "inline")
    boxes = [region_box(c, 2, "d") for c in prop.input_region]
    problem, other = prepare(net, prop, boxes), prepare(net, prop, boxes)
    lo, hi, _ = boxes[0]
    flo, fhi = [to_float(v) for v in lo], [to_float(v) for v in hi]
    run = problem.float_bounds.run(flo, fhi, {})
    gaps = float_gaps(problem, 0, run)
    assert min(g for g, _ in gaps) < 0   # open: the node is split
    plan = [Attempt(candidates(problem, 0, conj)[j]) for conj, (_, j) in zip(problem.unsafe, gaps)]
    split = branch(problem, 0, lo, hi, {}, run, gaps, plan)
    assert isinstance(split, InputSplit) and split.at is None   # a halving, in floats the parts below
    i = split.input
    mid = (flo[i] + fhi[i]) / 2
    part = (flo, [mid if k == i else v for k, v in enumerate(fhi)])
    assert run_key(problem, *part, {}) in gaps_module._PART_RUNS
    assert part_run(other, *part, {}) is not gaps_module._PART_RUNS[run_key(problem, *part, {})][1]
    kept = part_run(problem, *part, {})
    fresh = problem.float_bounds.run(*part, {})
    for a, b in zip(kept.pre + kept.relax + kept.forms, fresh.pre + fresh.relax + fresh.forms):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert run_key(problem, *part, {}) not in gaps_module._PART_RUNS   # taken once
    assert part_run(problem, *part, {}) is not kept
    monkeypatch.setattr(gaps_module, "PARTS_BYTES", 0)   # the memory bound: nothing kept
    branch(problem, 0, lo, hi, {}, run, float_gaps(problem, 0, run), plan)
    assert not gaps_module._PART_RUNS and gaps_module._PART_BYTES[0] == 0
