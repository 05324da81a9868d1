"""The float gaps of a node (symrel.vnnlib.gaps): proposals, so the tests compare floats."""

import random

import pytest

np = pytest.importorskip("numpy")

from symrel.exact import Q  # noqa: E402
from symrel.models import DenseLayer, ReLUNet  # noqa: E402
from symrel.vnnlib import LinearAtom, VnnProperty  # noqa: E402
from symrel.vnnlib import gaps  # noqa: E402
from symrel.vnnlib.problem import prepare, region_box  # noqa: E402


def _problem(seed):
    rng = random.Random(seed)
    widths = [3, 6, 6, 2]
    layers = [DenseLayer([[Q(rng.randint(-64, 64), 64) for _ in range(a)] for _ in range(b)],
                         [Q(rng.randint(-16, 16), 64) for _ in range(b)], "relu" if k < len(widths) - 2 else "none")
              for k, (a, b) in enumerate(zip(widths, widths[1:]))]
    net = ReLUNet(3, layers)
    box = tuple((LinearAtom(tuple(Q(-1 if j == i else 0) for j in range(3)), (Q(0), Q(0)), Q(1)),
                 LinearAtom(tuple(Q(1 if j == i else 0) for j in range(3)), (Q(0), Q(0)), Q(1))) for i in range(3))
    box = (tuple(a for pair in box for a in pair),)
    unsafe = ((LinearAtom((Q(0),) * 3, (Q(1), Q(-1)), Q(0)),),)  # Y_0 <= Y_1
    prop = VnnProperty(3, 2, box, unsafe, "0" * 64, "inline")
    boxes = [region_box(c, 3, "input disjunct 0") for c in prop.input_region]
    return prepare(net, prop, boxes)


def test_prefetched_runs_give_node_gap_its_floats():
    """The parts of several cuts prefetched in one stacked pass: node_gap takes those runs (no
    run of its own) and returns the very gaps it computes without them; a run prefetched for
    another problem is not taken."""
    problem, other = _problem(1), _problem(2)
    rng = random.Random(3)
    fixed = {(0, 2): 1}
    cuts = []
    for _ in range(5):
        lo = [rng.uniform(-1, 0) for _ in range(3)]
        hi = [v + rng.uniform(0.05, 1) for v in lo]
        i = rng.randrange(3)
        at = (lo[i] + hi[i]) / 2
        cuts += [(lo, [at if k == i else v for k, v in enumerate(hi)]), ([at if k == i else v for k, v in enumerate(lo)], hi)]
    want = []
    for lo, hi in cuts:
        gaps.keep_parts(problem, ())  # forget the candidates' runs
        want.append(gaps.node_gap(problem, 0, lo, hi, fixed))
    gaps.keep_parts(problem, ())
    gaps.prefetch_runs(problem, cuts, fixed)
    runs = {gaps.run_key(problem, lo, hi, fixed): gaps._CANDIDATE_RUNS[gaps.run_key(problem, lo, hi, fixed)][1]
            for lo, hi in cuts}
    calls = []
    real = problem.float_bounds.run
    problem.float_bounds.run = lambda *a, **k: calls.append(a) or real(*a, **k)
    try:
        got = [gaps.node_gap(problem, 0, lo, hi, fixed) for lo, hi in cuts]
        assert not calls and got == want
        assert all(gaps._CANDIDATE_RUNS[key][1] is run for key, run in runs.items())
        # a run kept under this key for another problem (an id reused) is not taken
        key = gaps.run_key(problem, *cuts[0], fixed)
        gaps._CANDIDATE_RUNS[key] = (other, other.float_bounds.run(*cuts[0], fixed))
        assert gaps.node_gap(problem, 0, *cuts[0], fixed) == want[0] and len(calls) == 1
        assert gaps._CANDIDATE_RUNS[key][0] is problem
    finally:
        problem.float_bounds.run = real
        gaps.keep_parts(problem, ())
