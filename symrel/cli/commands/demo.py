"""``symrel demo``: build a small maxout net, evaluate it exactly, print the result."""

from __future__ import annotations

from ...models import AffineMap, MaxoutLayer, MaxoutNet, MaxoutUnit
from . import SUMMARIES


def register(sub):
    p = sub.add_parser("demo", help=SUMMARIES["demo"])
    p.set_defaults(func=run)


def demo_net() -> MaxoutNet:
    """``|x1 - x2/3| + max(x1, x2, 1/2)``, as a one-layer maxout net with a read-out."""
    layer = MaxoutLayer([
        MaxoutUnit([[1, "-1/3"], [-1, "1/3"]], [0, 0]),
        MaxoutUnit([[1, 0], [0, 1], [0, 0]], [0, 0, "1/2"]),
    ])
    return MaxoutNet(2, [layer], AffineMap([[1, 1]], [0]))


def run(args) -> int:
    net = demo_net()
    print("maxout net:", net.to_sympy()[0])
    for x in (["1/2", "-1/4"], ["-2/7", "3/5"], ["1/3", 1]):
        print(f"f({', '.join(map(str, x))}) = {net(x)[0]}")
    return 0
