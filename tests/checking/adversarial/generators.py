"""Certificate texts too large to keep as files: ``name() -> str``, named by a case's
``generator`` field (README.md)."""

from __future__ import annotations

import json


def header(kind: str, steps: list, inputs: dict | None = None, **claim) -> dict:
    """The frame of a certificate of claim ``kind`` (its inputs and steps as given)."""
    return {"symrel": 1, "kind": "certificate", "claim": {"kind": kind, **claim},
            "inputs": inputs or {}, "steps": steps}


def long_digit_runs_in_a_string() -> str:
    """Ten runs of 100,000 digits inside one string: a digit regex over the raw text that
    backtracks on each run costs quadratic time; the reader must stay linear."""
    junk = " ".join("9" * 100_000 for _ in range(10))
    return json.dumps(header("utility", [{"rule": "complete-preorder", "status": "proved",
                                          "certificate": {}}], statement=junk))


def embedded(**objects) -> dict:
    """Certificate inputs embedding each object with its true sha256 (so that only the
    checker's own checks can refuse the file)."""
    from symrel.fileformat import sha256_of

    return {name: {"object": obj, "sha256": sha256_of(obj)} for name, obj in objects.items()}


def _deep_relu_net(depth: int, weight: str) -> dict:
    layers = [{"W": [[weight]], "b": [0], "activation": "relu"} for _ in range(depth)]
    layers.append({"W": [[1]], "b": [0], "activation": "none"})
    return {"symrel": 1, "kind": "relu", "input_dim": 1, "layers": layers}


def regions_deep_net_of_huge_weights() -> str:
    """A depth-1,200 ReLU net with every weight 10^9999 (written "1e9999", 6 characters)
    on [0, 1]: replaying it computes numbers of 12 million digits. One cell, all units on."""
    depth = 1200
    net = _deep_relu_net(depth, "1e9999")
    box = {"symrel": 1, "kind": "box", "bounds": [[0, 1]]}
    values = ["-1/2", "-1/2"] + ["-1/2"] * depth  # not computed: the limit comes first
    branches = [{"path": ["+"] * depth, "witness": ["1/2"], "values": values}]
    return json.dumps(header("regions", [{"rule": "cell-cover", "status": "proved",
                                          "certificate": {"mode": "open", "branches": branches}}],
                             embedded(model=net, domain=box), count_kind="activation", count=1))


def regions_path_of_a_million_labels() -> str:
    """A branch whose path has 300,000 labels for a net of one ReLU: the coverage check
    would build every prefix of it (4.5e10 labels, quadratic) before replaying. (It had a
    million labels; reading a 4 MB list alone then took about 1 s of CPU, so the case
    measured the JSON reader's linear cost, not the attack.)"""
    net = _deep_relu_net(1, "1")
    box = {"symrel": 1, "kind": "box", "bounds": [[0, 1]]}
    branches = [{"path": ["+"] * 300_000, "witness": ["1/2"], "values": ["-1/2", "-1/2", "-1/2"]}]
    return json.dumps(header("regions", [{"rule": "cell-cover", "status": "proved",
                                          "certificate": {"mode": "open", "branches": branches}}],
                             embedded(model=net, domain=box), count_kind="activation", count=1))


def regions_many_paths_of_a_wide_net() -> str:
    """20,000 branches over a ReLU net of three layers of 100 units: each replay costs about
    40,000 exact operations, all of them 800 million, before the first wrong branch shows."""
    width, n = 100, 20_000
    layers = [{"W": [[1]] * width, "b": [0] * width, "activation": "relu"}]
    layers += [{"W": [[1] * width] * width, "b": [0] * width, "activation": "relu"} for _ in range(2)]
    layers.append({"W": [[1] * width], "b": [0], "activation": "none"})
    net = {"symrel": 1, "kind": "relu", "input_dim": 1, "layers": layers}
    box = {"symrel": 1, "kind": "box", "bounds": [[0, 1]]}
    branches = [{"path": ["+"] * (k % 7) + ["-"], "farkas": [[0, 1]]} for k in range(n)]
    return json.dumps(header("regions", [{"rule": "cell-cover", "status": "proved",
                                          "certificate": {"mode": "open", "branches": branches}}],
                             embedded(model=net, domain=box), count_kind="activation", count=1))


def long_digit_runs_as_numbers() -> str:
    """A 1 MB number (a run of 1,000,000 digits) in a step: converting it to an int costs
    quadratic time; the reader refuses it by its length before parsing (the digit limit)."""
    return ('{"symrel": 1, "kind": "certificate", "claim": {"kind": "utility", "utility": {"a": 0}}, '
            '"inputs": {}, "steps": [{"rule": "complete-preorder", "status": "proved", "certificate": '
            '{"elements": ' + "9" * 1_000_000 + ', "classes": 1}}]}')


def deeply_nested_arrays() -> str:
    """An array nested 100,000 deep in a step: a recursive reader would overflow its stack; the
    reader refuses the nesting by its depth before parsing (the depth limit)."""
    return json.dumps(header("utility", [{"rule": "complete-preorder", "status": "proved", "certificate": {}}],
                             utility={"a": 0}))[:-3] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}]}"


def many_tiny_strings_with_escaped_quotes() -> str:
    """A 1 MB statement of escaped quotes: a string scanner that restarts at every quote it
    meets inside a string goes quadratic; the reader skips each string once."""
    return json.dumps(header("utility", [{"rule": "complete-preorder", "status": "proved", "certificate": {}}],
                             utility={"a": 0}, statement='"' * 500_000))


def _equivalence(a: dict, b: dict, domain: dict, steps: list) -> str:
    return json.dumps(header("equivalence", steps, embedded(a=a, b=b, domain=domain), a="a", b="b", domain="domain"))


def equivalence_deep_net_of_huge_weights() -> str:
    """The depth-1,200 ReLU net of weights 10^9999 against the identity, each layer recorded
    as fixed positive: every layer's forms are compared with recorded ones, whose numbers are
    within the digit limit, so the replay stops at the second layer instead of computing
    numbers of 12 million digits."""
    depth = 1200
    a = _deep_relu_net(depth, "1e9999")
    b = {"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [{"W": [[1]], "b": [0], "activation": "none"}]}
    box = {"symrel": 1, "kind": "box", "bounds": [[0, 1]]}
    x = [0, [[0, 1]]]
    big_x = [0, [[0, "1e9999"]]]
    steps = [{"rule": "domain-box", "status": "proved", "certificate": {"box": [[0, 1]]}}]
    steps += [{"rule": "relu-fixed-sign", "status": "proved",
               "certificate": {"model": "a", "layer": i, "nodes": [], "units": [["+", 0]], "outputs": [big_x]}}
              for i in range(depth)]
    steps += [{"rule": "linear-identity", "status": "proved",
               "certificate": {"model": "a", "layer": depth, "nodes": [], "outputs": [big_x]}},
              {"rule": "linear-identity", "status": "proved",
               "certificate": {"model": "b", "layer": 0, "nodes": [], "outputs": [x]}},
              {"rule": "linear-identity", "status": "proved", "certificate": {"outputs": [x]}}]
    return _equivalence(a, b, box, steps)


def equivalence_row_of_distinct_huge_denominators() -> str:
    """A linear layer whose one row has 200 weights 1/(10^9999 + i): their common denominator
    has about 2 million digits, and building it one lcm at a time costs time quadratic in that
    before any recorded form could be compared. The checker stops at the limit form-digits."""
    n = 200
    big = "1" + "0" * 9995      # 10^9999 + i, written out (Python's int-to-text limit is 4,300 digits)
    a = {"symrel": 1, "kind": "relu", "input_dim": n,
         "layers": [{"W": [[f"1/{big}{i:04d}" for i in range(n)]], "b": [0], "activation": "none"}]}
    b = {"symrel": 1, "kind": "relu", "input_dim": n, "layers": [{"W": [[0] * n], "b": [0], "activation": "none"}]}
    box = {"symrel": 1, "kind": "box", "bounds": [[0, 1]] * n}
    zero = [0, []]
    steps = [{"rule": "domain-box", "status": "proved", "certificate": {"box": [[0, 1]] * n}},
             {"rule": "linear-identity", "status": "proved",
              "certificate": {"model": "a", "layer": 0, "nodes": [], "outputs": [zero]}},
             {"rule": "linear-identity", "status": "proved",
              "certificate": {"model": "b", "layer": 0, "nodes": [], "outputs": [zero]}},
             {"rule": "linear-identity", "status": "proved", "certificate": {"outputs": [zero]}}]
    return _equivalence(a, b, box, steps)


def vnnlib_many_leaves_over_a_wide_net() -> str:
    """A vnnlib-unsat certificate over a 5-250-250-1 ReLU net (63,750 weights, mostly 0) whose
    tree is a chain of 5,000 splits of x0, each with a leaf: about 446,000 operations a leaf,
    2.2e9 in all, from a file of about 3 MB. Refused by the limit 'leaf operations' before any
    leaf is checked."""
    n_in, width, n = 5, 250, 5000
    layers = [{"W": [[0] * n_in for _ in range(width)], "b": [0] * width, "activation": "relu"},
              {"W": [[0] * width for _ in range(width)], "b": [0] * width, "activation": "relu"},
              {"W": [[1] * width], "b": [0], "activation": "none"}]
    net = {"symrel": 1, "kind": "relu", "input_dim": n_in, "layers": layers}
    region = []
    for i in range(n_in):
        region += [{"x": [1 if j == i else 0 for j in range(n_in)], "y": [0], "rhs": 1},
                   {"x": [-1 if j == i else 0 for j in range(n_in)], "y": [0], "rhs": 0}]
    prop = {"inputs": n_in, "outputs": 1, "input_region": [region],
            "unsafe": [[{"x": [0] * n_in, "y": [-1], "rhs": 0}]]}
    leaf = {"leaf": {"phases": ["u" * width, "u" * width], "relaxations": [], "closes": []}}
    tree = []
    for k in range(1, n + 1):
        tree += [{"split": 0, "at": f"{k}/{n + 1}"}, leaf]
    tree.append(leaf)
    inputs = embedded(network=net)
    steps = [{"rule": "vnnlib-branch-and-bound", "status": "proved",
              "certificate": {"disjunct": 0, "box": {"lower": [0] * n_in, "upper": [1] * n_in}, "tree": tree}}]
    return json.dumps(header("vnnlib-unsat", steps, inputs, network_sha256=inputs["network"]["sha256"],
                             property_sha256="0" * 64, property_source="inline", property=prop))


def _golden(name: str) -> dict:
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "golden" / "valid" / f"{name}.json"
    return json.loads(path.read_text(encoding="utf-8"))


def embedded_model_with_an_unknown_key() -> str:
    """The golden equivalence certificate, its maxout net B's first piece given a key ``"scale": 2``
    that the checker does not read (a reader of the file might): the sha256 is recomputed,
    the statement dropped, so only the reader's key check can refuse it."""
    from symrel.fileformat import sha256_of

    cert = _golden("equivalence")
    obj = cert["inputs"]["b"]["object"]
    obj["layers"][0]["units"][0]["pieces"][0]["scale"] = 2
    cert["inputs"]["b"]["sha256"] = sha256_of(obj)
    cert["claim"].pop("statement", None)
    return json.dumps(cert)


def embedded_transformer_with_an_unknown_top_key() -> str:
    """The golden equivalence certificate of a CPWL mesh and a Transformer, the Transformer
    given a top-level key ``"layer_norm": true``: read by nobody in the checker, it would
    change the function for a reader that honours it."""
    from symrel.fileformat import sha256_of

    cert = _golden("equivalence-cpwl-mesh")
    obj = cert["inputs"]["b"]["object"]
    obj["layer_norm"] = True
    cert["inputs"]["b"]["sha256"] = sha256_of(obj)
    cert["claim"].pop("statement", None)
    return json.dumps(cert)


def equivalence_mesh_fan_of_slivers() -> str:
    """The golden CPWL-mesh certificate, its mesh replaced by a conforming fan of 10,000 thin
    triangles ``(0,0), (1,k), (1,k+1)`` (about 350 KB): every two bounding boxes meet at the
    origin, so a conformity check that compares the pairs whose boxes meet does 5 x 10^7 of
    them, and a grid index files each triangle under about half its cells."""
    from symrel.fileformat import sha256_of

    n = 10_000
    cert = _golden("equivalence-cpwl-mesh")
    mesh = {"symrel": 1, "kind": "cpwl", "input_dim": 2,
            "vertices": [[0, 0]] + [[1, k] for k in range(n + 1)],
            "simplices": [[0, k + 1, k + 2] for k in range(n)],
            "values": [[0]] * (n + 2)}
    cert["inputs"]["a"] = {"object": mesh, "sha256": sha256_of(mesh)}
    cert["claim"].pop("statement", None)
    return json.dumps(cert)


def vnnlib_layered_refinements_over_a_convolution() -> str:
    """A vnnlib-unsat certificate of a layered net (a 2 x 2 convolution over a 28 x 28 image into
    8 channels, a ReLU, an affine mix of 1,352 entries, a ReLU, one output: about 76,000 entries)
    whose 300 leaves each ask for the backward refinement of every entry of the second ReLU:
    about 2.0 billion operations from a file of about 0.5 MB (the leaves' closes left empty).
    Refused by the limit 'leaf operations' before any leaf is checked."""
    n, k, c = 28, 27, 8
    conv_rows = [[[(i + di) * n + j + dj, 1] for di in range(2) for dj in range(2)]
                 for _ in range(c) for i in range(k) for j in range(k)]
    for row in conv_rows:
        row.sort()
    width = c * k * k
    mix = [[[j, 1] for j in range(m, width, 100)] for m in range(100)]
    net = {"symrel": 1, "kind": "layered", "input_dim": n * n,
           "ops": [{"op": "affine", "rows": conv_rows, "b": [0] * width}, {"op": "relu"},
                   {"op": "affine", "rows": mix, "b": [0] * 100}, {"op": "relu"},
                   {"op": "affine", "rows": [[[j, 1] for j in range(100)]], "b": [0]}]}
    prop = {"inputs": n * n, "outputs": 1,
            "input_region": [[{"x": [1 if j == i else 0 for j in range(n * n)], "y": [0], "rhs": 1} for i in range(1)]],
            "unsafe": [[{"x": [0] * (n * n), "y": [-1], "rhs": 0}]]}
    leaf = {"leaf": {"refine": [[3, list(range(100))]], "closes": []}}
    tree = []
    for m in range(1, 300):
        tree += [{"relu": [1, m]}, leaf]
    tree.append(leaf)
    inputs = embedded(network=net)
    steps = [{"rule": "vnnlib-branch-and-bound", "status": "proved",
              "certificate": {"disjunct": 0, "box": {"lower": [0] * (n * n), "upper": [1] * (n * n)}, "tree": tree}}]
    return json.dumps(header("vnnlib-unsat", steps, inputs, network_sha256=inputs["network"]["sha256"],
                             property_sha256="0" * 64, property_source="inline", property=prop))

def output_bounds_many_leaves_over_a_wide_net() -> str:
    """An output-bounds certificate over a 5-250-250-1 ReLU net (63,750 weights, mostly 0) whose
    lower side's tree is a chain of 5,000 splits of x0, each with a leaf: about 446,000
    operations a leaf, 2.2e9 in all, from a file of about 3 MB. Refused by the limit 'leaf
    operations' before any leaf is checked."""
    n_in, width, n = 5, 250, 5000
    layers = [{"W": [[0] * n_in for _ in range(width)], "b": [0] * width, "activation": "relu"},
              {"W": [[0] * width for _ in range(width)], "b": [0] * width, "activation": "relu"},
              {"W": [[1] * width], "b": [0], "activation": "none"}]
    net = {"symrel": 1, "kind": "relu", "input_dim": n_in, "layers": layers}
    box = {"symrel": 1, "kind": "box", "bounds": [[0, 1]] * n_in}
    leaf = {"leaf": {"phases": ["u" * width, "u" * width], "relaxations": [], "bound": 0}}
    tree = []
    for k in range(1, n + 1):
        tree += [{"split": 0, "at": f"{k}/{n + 1}"}, leaf]
    tree.append(leaf)
    inputs = embedded(network=net, region=box)
    steps = [{"rule": "output-bound-branch-and-bound", "status": "proved",
              "certificate": {"output": 0, "side": side, "bound": 0, "tree": tree if side == "lower" else [leaf]}}
             for side in ("lower", "upper")]
    return json.dumps(header("output-bounds", steps, inputs, network_sha256=inputs["network"]["sha256"],
                             bounds=[{"output": 0, "lower": 0, "upper": 0}]))
