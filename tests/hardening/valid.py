"""Hypothesis strategies for random *valid* files of every kind (for round trips)."""

from __future__ import annotations

from hypothesis import strategies as st

# numbers in every spelling FORMAT.md allows: integers, "p/q", decimals, exponents
number = st.one_of(
    st.integers(-10**30, 10**30),
    st.fractions(max_denominator=10**12).map(str),
    st.decimals(allow_nan=False, allow_infinity=False, places=6).map(str),
    st.tuples(st.integers(-99, 99), st.integers(-40, 40)).map(lambda t: f"{t[0]}e{t[1]}"),
)
dim = st.integers(1, 3)


def vector(n):
    return st.lists(number, min_size=n, max_size=n)


def matrix(r, c):
    return st.lists(vector(c), min_size=r, max_size=r)


@st.composite
def maxout(draw):
    d = draw(dim)
    layers, width = [], d
    for _ in range(draw(st.integers(1, 2))):
        units = [{"pieces": [{"w": draw(vector(width)), "b": draw(number)} for _ in range(draw(st.integers(1, 3)))]}
                 for _ in range(draw(st.integers(1, 3)))]
        layers.append({"units": units})
        width = len(units)
    obj = {"symrel": 1, "kind": "maxout", "input_dim": d, "layers": layers}
    if draw(st.booleans()):
        m = draw(dim)
        obj["readout"] = {"W": draw(matrix(m, width)), "b": draw(vector(m))}
    return obj


@st.composite
def relu(draw):
    d = draw(dim)
    layers, width = [], d
    for _ in range(draw(st.integers(1, 3))):
        m = draw(dim)
        layers.append({"W": draw(matrix(m, width)), "b": draw(vector(m)), "activation": draw(st.sampled_from(["relu", "none"]))})
        width = m
    return {"symrel": 1, "kind": "relu", "input_dim": d, "layers": layers}


@st.composite
def cpwl1d(draw):
    xs = sorted(set(draw(st.lists(st.fractions(max_denominator=100), min_size=2, max_size=6))))
    if len(xs) < 2:
        xs = [xs[0], xs[0] + 1]
    return {"symrel": 1, "kind": "cpwl1d", "x": [str(v) for v in xs], "y": draw(vector(len(xs)))}


@st.composite
def transformer(draw):
    d, m, T = draw(dim), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    rows = draw(st.lists(st.integers(0, m - 1), min_size=d, max_size=d))
    blocks = []
    for _ in range(draw(st.integers(0, 2))):
        att = ff = None
        if draw(st.booleans()):
            heads = []
            for _ in range(draw(st.integers(1, 2))):
                k, v = draw(st.integers(0, 2)), draw(st.integers(0, 2))   # zero-width heads too
                heads.append({"WQ": draw(matrix(k, m)), "WK": draw(matrix(k, m)),
                              "WV": draw(matrix(v, m)), "WO": draw(matrix(m, v))})
            att = {"rule": "hardmax", "heads": heads}
            if draw(st.booleans()):
                att = {"rule": "softmax", "scale": str(draw(st.fractions(min_value=0, max_denominator=100).filter(bool))), "heads": heads}
        if draw(st.booleans()):
            h = draw(st.integers(0, 3))                                  # zero-width hidden layer too
            ff = {"W1": draw(matrix(h, m)), "b1": draw(vector(h)), "W2": draw(matrix(m, h)), "b2": draw(vector(m))}
        blocks.append({"attention": att, "feedforward": ff})
    o = draw(dim)
    return {"symrel": 1, "kind": "transformer", "input_dim": d, "width": m, "tokens": T,
            "embedding": {"input_rows": rows, "offsets": draw(matrix(T, m))}, "blocks": blocks,
            "readout": {"token": draw(st.integers(0, T - 1)), "W": draw(matrix(o, m)), "b": draw(vector(o))}}


@st.composite
def box(draw):
    ivs = [sorted(draw(st.lists(st.fractions(max_denominator=1000), min_size=2, max_size=2))) for _ in range(draw(dim))]
    return {"symrel": 1, "kind": "box", "bounds": [[str(a), str(b)] for a, b in ivs]}


@st.composite
def polytope(draw):
    d, k = draw(dim), draw(st.integers(1, 4))
    return {"symrel": 1, "kind": "polytope", "A": draw(matrix(k, d)), "b": draw(vector(k))}


@st.composite
def points(draw, key="x", kind="points"):
    d = draw(dim)
    return {"symrel": 1, "kind": kind, key: draw(st.lists(vector(d), max_size=4))}


@st.composite
def preorder(draw):
    n = draw(st.integers(1, 5))
    names = [f"e{i}" for i in range(n)]
    level = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))   # a complete preorder by levels
    leq = [[a, b] for a in names for b in names if a != b and level[names.index(a)] <= level[names.index(b)]]
    partial = draw(st.booleans())
    if partial:   # drop some pairs and let symrel close what is left
        leq = [p for p in leq if draw(st.booleans())]
    return {"symrel": 1, "kind": "preorder", "elements": names, "leq": leq, "close": True}


@st.composite
def retrieval(draw):
    d, n, q = draw(dim), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    keys = {f"k{i}": draw(vector(d)) for i in range(n)}
    queries = {f"q{i}": draw(vector(d)) for i in range(q)}
    preorders = {}
    for name in queries:
        level = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
        preorders[name] = {"leq": [[a, b] for i, a in enumerate(keys) for j, b in enumerate(keys) if i != j and level[i] <= level[j]]}
    return {"symrel": 1, "kind": "retrieval", "keys": keys, "queries": queries, "preorders": preorders}


@st.composite
def relation(draw):
    d, n = draw(dim), draw(st.integers(1, 4))
    xs = draw(st.lists(vector(d), min_size=n, max_size=n, unique_by=lambda v: tuple(map(str, v))))
    obj = {"symrel": 1, "kind": "relation", "x": xs}
    m = n
    if draw(st.booleans()):
        m = draw(st.integers(1, 4))
        obj["y"] = [[str(i)] * d for i in range(m)]
    obj["r"] = draw(matrix(n, m))
    return obj


@st.composite
def cpwl(draw):
    """A Freudenthal grid on a box with random vertex values (conforming by construction)."""
    from symrel.fileformat import to_json
    from symrel.constructions import freudenthal_mesh

    d = draw(st.integers(1, 3))
    steps = [draw(st.integers(1, 3 if d < 3 else 1)) for _ in range(d)]
    lows = [draw(st.fractions(-10, 10, max_denominator=10)) for _ in range(d)]
    widths = [draw(st.fractions(1, 10, max_denominator=10)) for _ in range(d)]
    m = draw(st.integers(1, 2))
    n = 1
    for s in steps:
        n *= s + 1
    values = [draw(vector(m)) for _ in range(n)]
    f = freudenthal_mesh([[str(lo), str(lo + w)] for lo, w in zip(lows, widths)], steps, values)
    return to_json(f)


@st.composite
def relation_features(draw):
    phi, psi = draw(relu()), draw(relu())
    out = len(phi["layers"][-1]["b"])
    last = psi["layers"][-1]
    last["W"] = [last["W"][0]] * out
    last["b"] = [last["b"][0]] * out
    return {"symrel": 1, "kind": "relation-features", "phi": phi, "psi": psi}


VALID = {
    "maxout": maxout(), "relu": relu(), "cpwl1d": cpwl1d(), "cpwl": cpwl(), "transformer": transformer(),
    "box": box(), "polytope": polytope(), "points": points(), "values": points("y", "values"),
    "preorder": preorder(), "retrieval": retrieval(), "relation": relation(),
    "relation-features": relation_features(),
}
