"""Float CROWN bounds (symrel.vnnlib.floatbounds): proposals, so the tests compare runs."""

import random

import pytest

np = pytest.importorskip("numpy")

from symrel.exact import Q  # noqa: E402
from symrel.models import DenseLayer, ReLUNet  # noqa: E402
from symrel.vnnlib.floatbounds import FloatBounds  # noqa: E402
from symrel.vnnlib.symbolic import integer_net  # noqa: E402


def _net(rng, widths):
    layers = []
    for k, (a, b) in enumerate(zip(widths, widths[1:])):
        layers.append(DenseLayer([[Q(rng.randint(-64, 64), 64) for _ in range(a)] for _ in range(b)],
                                 [Q(rng.randint(-16, 16), 64) for _ in range(b)],
                                 "relu" if k < len(widths) - 2 else "none"))
    return ReLUNet(widths[0], layers)


def test_a_run_from_a_base_is_the_run_from_scratch():
    """A ReLU split's part shares its node's layers below the split: the run that takes them
    from the node's run has the very floats of a run from scratch, for a split at every layer."""
    rng = random.Random(3)
    checked = 0
    for _ in range(5):
        fb = FloatBounds(integer_net(_net(rng, [3, 7, 7, 7, 7, 2])))
        lo = [rng.uniform(-1, 0) for _ in range(3)]
        hi = [v + rng.uniform(0.1, 1) for v in lo]
        fixed = {(0, rng.randrange(7)): 1}
        node = fb.run(lo, hi, fixed)
        for k in range(4):
            for i in range(7):
                if (k, i) in fixed:
                    continue
                for ph in (0, 1):
                    part = dict(fixed) | {(k, i): ph}
                    a, b = fb.run(lo, hi, part), fb.run(lo, hi, part, node, k)
                    for xs, ys in ((a.pre, b.pre), (a.relax, b.relax), (a.forms, b.forms)):
                        assert len(xs) == len(ys) == 4
                        assert all(np.array_equal(x, y) for p, q in zip(xs, ys) for x, y in zip(p, q))
                    checked += 1
    assert checked > 200
