"""Files crafted to make exact arithmetic explode (issue 39, item 5), made by functions: at about
1 MB each they are too large to keep. Each is valid as far as the readers go (every number
within the digit limit, every shape right); only the arithmetic it asks for is too large:

* :func:`huge_denominator_net`: a ReLU net whose weights have random 100-digit numerators and
  denominators, so that a layer's common denominator has about 800,000 bits (issue 39's attack:
  0.9 MB, 4 GB and 90 s before GMP aborted);
* :func:`product_chain_net`: a deep, narrow net, each layer's common denominator within the
  ``denominator bits`` limit, whose numbers grow by that much at every layer: a long chain of
  products;
* :func:`long_points`: points whose coordinates have co-prime 300-digit denominators, whose
  common denominator (a batch is evaluated over one) explodes;
* :func:`long_bounds_property`: a VNN-LIB region whose bounds have co-prime denominators of
  5,000 digits: the box's volume and common denominator explode;
* :func:`vnnlib_certificate`: a ``vnnlib-unsat`` certificate embedding a net (its hashes right);
  :func:`long_split_certificate`: one over a small net whose tree splits the box at points with
  co-prime 10,000-digit denominators, so that a leaf's box has a huge common denominator.

Deterministic: every function takes a seed.
"""

from __future__ import annotations

import json
import math
import random
import sys

from symrel.fileformat.canonical import sha256_of

RULE = "vnnlib-branch-and-bound"


def _digits(rng: random.Random, digits: int) -> int:
    return rng.randrange(10 ** (digits - 1), 10 ** digits)


def _ratio(rng: random.Random, digits: int, sign: bool = True) -> str:
    """A random ``"p/q"`` of ``digits``-digit numbers, its denominator odd (distinct denominators
    are then mostly co-prime: their lcm has nearly all their digits)."""
    q = _digits(rng, digits) | 1
    return f"{'-' if sign and rng.random() < 0.5 else ''}{_digits(rng, digits)}/{q}"


def _net(widths, digits: int, seed: int, inputs: int) -> dict:
    rng = random.Random(seed)
    layers, k = [], inputs
    for i, m in enumerate(widths):
        last = i == len(widths) - 1
        layers.append({"W": [[_ratio(rng, digits) for _ in range(k)] for _ in range(m)],
                       "b": [_ratio(rng, digits) for _ in range(m)], "activation": "none" if last else "relu"})
        k = m
    return {"symrel": 1, "kind": "relu", "input_dim": inputs, "layers": layers}


def huge_denominator_net(seed: int = 1) -> dict:
    """5 inputs, ReLU layers 50-50-50, 5 outputs; every weight and bias a ratio of random
    100-digit numbers (1.2 MB as JSON): a layer's common denominator has about 850,000 bits."""
    return _net((50, 50, 50, 5), 100, seed, 5)


def product_chain_net(seed: int = 2) -> dict:
    """2 inputs, 200 ReLU layers of width 2, 1 output; every number a ratio of random
    400-digit numbers (1 MB): each layer's common denominator has about 8,000 bits, within
    ``denominator bits``, and a run through the 200 layers would build numbers of about 1.6
    million bits."""
    return _net((2,) * 200 + (1,), 400, seed, 2)


def long_points(seed: int = 3) -> dict:
    """A points file for a net of 5 inputs: 320 points whose coordinates are ratios of random
    300-digit numbers (about 1 MB), which a batch evaluation brings to one common denominator of
    about 1.6 million bits."""
    rng = random.Random(seed)
    return {"symrel": 1, "kind": "points", "x": [[_ratio(rng, 300) for _ in range(5)] for _ in range(320)]}


def long_bounds_property(seed: int = 4) -> str:
    """VNN-LIB for a net of 5 inputs and 5 outputs: each input between two ratios of random
    5,000-digit numbers, about 1/3 and 2/3 (0.1 MB; the digit limit keeps a number to 10,000
    digits): the box's volume would have some 300,000 bits, and its common denominator 160,000."""
    rng = random.Random(seed)
    lines = [f"(declare-const X_{i} Real)" for i in range(5)] + [f"(declare-const Y_{j} Real)" for j in range(5)]
    for i in range(5):  # about 1/3 <= X_i <= about 2/3: never an empty box
        q1, q2 = _digits(rng, 5000) | 1, _digits(rng, 5000) | 1
        lines += [f"(assert (>= X_{i} (/ {q1 // 3 + 1} {q1})))", f"(assert (<= X_{i} (/ {2 * q2 // 3 + 1} {q2})))"]
    lines.append("(assert (<= Y_0 -100000000000000000000000000000000000000000000000000))")
    return "\n".join(lines) + "\n"


def _property(n: int, m: int) -> dict:
    def atom(i, c, r):
        return {"x": [c if k == i else 0 for k in range(n)], "y": [0] * m, "rhs": r}

    return {"inputs": n, "outputs": m, "input_region": [[atom(i, -1, 0) for i in range(n)] + [atom(i, 1, 1) for i in range(n)]],
            "unsafe": [[{"x": [0] * n, "y": [1] + [0] * (m - 1), "rhs": "-1000"}]]}


def vnnlib_certificate(net: dict, tree: list | None = None) -> dict:
    """A ``vnnlib-unsat`` certificate over ``net`` for ``X in [0, 1]^n``, ``unsafe: Y_0 <= -1000``,
    its hashes right; ``tree``: the one step's tree (default: one leaf with no facts, which the
    checker never reaches if the network's numbers are refused)."""
    n, m = net["input_dim"], len(net["layers"][-1]["W"])
    sha = sha256_of(net)
    claim = {"kind": "vnnlib-unsat", "network_sha256": sha, "property_sha256": "0" * 64, "property": _property(n, m)}
    leaf = {"leaf": {"phases": [], "relaxations": [], "closes": []}}
    step = {"rule": RULE, "status": "proved",
            "certificate": {"disjunct": 0, "box": {"lower": [0] * n, "upper": [1] * n}, "tree": tree or [leaf]}}
    return {"symrel": 1, "kind": "certificate", "claim": claim, "inputs": {"network": {"object": net, "sha256": sha}},
            "steps": [step]}


def long_split_certificate(seed: int = 5) -> dict:
    """A ``vnnlib-unsat`` certificate over a small net (5 inputs, one ReLU layer of 5, 5 outputs,
    small integer weights) whose tree splits inputs 0 to 3 in turn at ratios of co-prime
    10,000-digit numbers inside ``(0, 1)``: the leaf below has a box whose common denominator
    has about 130,000 bits. The splits are valid; the leaves' facts are never read."""
    rng = random.Random(seed)
    net = {"symrel": 1, "kind": "relu", "input_dim": 5,
           "layers": [{"W": [[1 if i == j else 0 for j in range(5)] for i in range(5)], "b": [0] * 5, "activation": "relu"},
                      {"W": [[1 if i == j else 0 for j in range(5)] for i in range(5)], "b": [0] * 5,
                       "activation": "none"}]}
    tree, leaf = [], {"leaf": {"phases": ["aaaaa"], "relaxations": [], "closes": [{"atom": ["unsafe", 0], "bound": 0}]}}
    for i in range(4):
        q = _digits(rng, 10_000) | 1
        while math.gcd(q // 3 + 1, q) != 1:
            q += 2
        tree.append({"split": i, "at": f"{q // 3 + 1}/{q}"})
    tree += [leaf] * 5   # the part x_3 <= c first, where the checker stops
    return vnnlib_certificate(net, tree)


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))


#: name -> (function, file name) of every generated file (the README's rows name them)
FILES = {
    "huge-denominator-net": (lambda: dumps(huge_denominator_net()), "huge-denominator-net.json"),
    "product-chain-net": (lambda: dumps(product_chain_net()), "product-chain-net.json"),
    "long-points": (lambda: dumps(long_points()), "long-points.json"),
    "long-bounds-property": (long_bounds_property, "long-bounds-property.vnnlib"),
    "huge-denominator-certificate": (lambda: dumps(vnnlib_certificate(huge_denominator_net())),
                                     "huge-denominator-certificate.json"),
    "product-chain-certificate": (lambda: dumps(vnnlib_certificate(product_chain_net())),
                                  "product-chain-certificate.json"),
    "long-split-certificate": (lambda: dumps(long_split_certificate()), "long-split-certificate.json"),
}


def write(name: str, folder) -> str:
    """Write the generated file ``name`` (a key of :data:`FILES`) into ``folder``; its path."""
    make, file_name = FILES[name]
    path = folder / file_name
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # numbers of 5,000 and 10,000 digits are printed
    try:
        path.write_text(make(), encoding="utf-8")
    finally:
        sys.set_int_max_str_digits(old)
    return str(path)
