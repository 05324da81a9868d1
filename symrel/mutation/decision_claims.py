"""The claims of the decision campaign: "for all x in D, A(x) = B(x)", built in the file format.

Four groups, all from a seed:

* ``compiled``: a small maxout or ReLU net against its compiled hardmax Transformer;
* ``mutant``: the net against the Transformer with one number changed by ``+1/10^6``
  (feed-forward, attention query/key/value/output, embedding or read-out weights);
* ``equal``: structurally different models of the same function (a ReLU net against its
  maxout form, permuted units, pieces and heads, an averaged redundant piece, a split and
  scaled unit, |x| written two ways, a tent map against its CPWL form, two gating margins);
* ``tie``: two hardmax Transformers that differ at one point only (a tie of two scores,
  averaged over two tokens by A and over three by B).

Every claim is plain data (``{"name", "group", "a", "b", "domain"}`` with FORMAT.md
objects), so an independent decision procedure (the z3 encoding of the tests) reads the
same claims as symrel. Cost: O(claims x model size).

>>> cs = campaign_claims(seeds=[1], mutants_per_pair=2)
>>> sorted({c["group"] for c in cs}) == ["compiled", "equal", "mutant", "tie"]
True
"""

from __future__ import annotations

import copy
import random

from ..exact import Q
from ..fileformat import to_json
from ..models import Box, CPWL1D
from ..constructions import to_maxout
from ..constructions.random import random_maxout_net, random_relu_net
from .mutants import TINY, parameters

MUTATED_PARTS = ("feedforward", "WQ", "WK", "WV", "WO", "embedding", "readout")


def _claim(name, group, a, b, domain) -> dict:
    return {"name": name, "group": group, "a": to_json(a) if not isinstance(a, dict) else a,
            "b": to_json(b) if not isinstance(b, dict) else b,
            "domain": to_json(domain) if not isinstance(domain, dict) else domain}


SIZES = {  # input dimension, depth, ReLU widths, maxout widths (ranges)
    "small": ((1, 2), (1, 1), (1, 2), (1, 2)),
    "medium": ((1, 3), (1, 2), (2, 3), (1, 2)),
    "large": ((1, 4), (1, 3), (2, 4), (1, 3)),
}


def _net(rng, size="medium"):
    """A random maxout or ReLU net on a cube (sizes: :data:`SIZES`)."""
    (d0, d1), (l0, l1), (r0, r1), (m0, m1) = SIZES[size]
    d = rng.randint(d0, d1)
    depth = rng.randint(l0, l1)
    if rng.random() < 0.5:
        net = random_relu_net(rng, d, [rng.randint(r0, r1) for _ in range(depth)], max_num=5, max_den=3)
    else:
        net = random_maxout_net(rng, d, [rng.randint(m0, m1) for _ in range(depth)], rank=(2, 3),
                                max_num=5, max_den=3)
    return net, Box.cube(d)


def _set(obj, path, delta):
    """``obj`` with the number at ``path`` (FORMAT.md path) increased by ``delta``."""
    from .tamper import altered

    return altered(obj, path, delta)


def mutant_paths(transformer_json, rng, count, nonzero=False):
    """``count`` parameter paths of a Transformer, spread over its parts (attention query
    and key weights included); ``nonzero``: only entries that are not 0."""
    from ..exact import rational
    from ..fileformat import from_json

    params = [p for p, v in parameters(from_json(transformer_json)) if not nonzero or rational(v) != 0]
    by_part: dict[str, list] = {}
    for p in params:
        part = next((k for k in MUTATED_PARTS if k in p), "other")
        by_part.setdefault(part, []).append(p)
    for v in by_part.values():
        rng.shuffle(v)
    out, parts = [], sorted(by_part)
    rng.shuffle(parts)          # every part first somewhere, feed-forward and read-out included
    while len(out) < count and any(by_part.values()):
        for k in parts:
            if by_part[k] and len(out) < count:
                out.append(by_part[k].pop())
    return out


def compiled_and_mutants(seed: int, mutants_per_pair: int, size: str = "medium") -> list[dict]:
    from ..compiler import compile_model

    rng = random.Random(seed)
    net, D = _net(rng, size)
    T = to_json(compile_model(net, D).transformer)
    out = [_claim(f"seed {seed}: compiled", "compiled", net, T, D)]
    for path in mutant_paths(T, rng, mutants_per_pair):
        out.append(_claim(f"seed {seed}: {path} +1/10^6", "mutant", net, _set(T, path, TINY), D))
    return out


def _relu_json(d, layers):
    return {"symrel": 1, "kind": "relu", "input_dim": d,
            "layers": [{"W": W, "b": b, "activation": act} for W, b, act in layers]}


def _maxout_json(d, layers, readout=None):
    obj = {"symrel": 1, "kind": "maxout", "input_dim": d,
           "layers": [{"units": [{"pieces": [{"w": w, "b": c} for w, c in unit]} for unit in layer]}
                      for layer in layers]}
    if readout is not None:
        obj["readout"] = {"W": readout[0], "b": readout[1]}
    return obj


def equal_pairs(seed: int) -> list[dict]:
    """Structurally different models of one function (each pair equal on its domain)."""
    from ..compiler import compile_model

    rng = random.Random(seed)
    out = []
    relu = random_relu_net(rng, 2, [3], max_num=5, max_den=3)
    D2 = Box.cube(2)
    out.append(_claim(f"seed {seed}: ReLU net vs its maxout form", "equal", relu, to_maxout(relu), D2))
    rj = to_json(relu)
    perm = copy.deepcopy(rj)                      # permute the hidden units
    order = [2, 0, 1]
    perm["layers"][0]["W"] = [rj["layers"][0]["W"][i] for i in order]
    perm["layers"][0]["b"] = [rj["layers"][0]["b"][i] for i in order]
    perm["layers"][1]["W"] = [[row[i] for i in order] for row in rj["layers"][1]["W"]]
    out.append(_claim(f"seed {seed}: permuted hidden units", "equal", relu, perm, D2))
    split = copy.deepcopy(rj)                     # unit 0 split in two, each scaled by 2 inside, 1/4 outside
    W1, b1, W2 = split["layers"][0]["W"], split["layers"][0]["b"], split["layers"][1]["W"]
    w0, c0 = [Q(v) if isinstance(v, int) else v for v in rj["layers"][0]["W"][0]], rj["layers"][0]["b"][0]
    from ..exact import format_rational, rational

    W1.append([format_rational(2 * rational(v)) for v in w0])
    b1.append(format_rational(2 * rational(c0)))
    W1[0] = [format_rational(2 * rational(v)) for v in w0]
    b1[0] = format_rational(2 * rational(c0))
    for row in W2:
        half = rational(row[0]) / 4
        row[0] = format_rational(half)
        row.append(format_rational(half))
    out.append(_claim(f"seed {seed}: a unit split in two and scaled", "equal", relu, split, D2))
    mx = random_maxout_net(rng, 2, [2], rank=3, max_num=5, max_den=3)
    mj = to_json(mx)
    pieces = copy.deepcopy(mj)                    # permute the pieces of every unit, and the units
    for unit in pieces["layers"][0]["units"]:
        unit["pieces"].reverse()
    pieces["layers"][0]["units"].reverse()
    pieces["readout"]["W"] = [list(reversed(r)) for r in mj["readout"]["W"]]
    out.append(_claim(f"seed {seed}: permuted pieces and units", "equal", mx, pieces, D2))
    avg = copy.deepcopy(mj)                       # an averaged (redundant) piece
    for unit in avg["layers"][0]["units"]:
        p, q = unit["pieces"][0], unit["pieces"][1]
        unit["pieces"].append({"w": [format_rational((rational(u) + rational(v)) / 2) for u, v in zip(p["w"], q["w"])],
                               "b": format_rational((rational(p["b"]) + rational(q["b"])) / 2)})
    out.append(_claim(f"seed {seed}: an averaged redundant piece", "equal", mx, avg, D2))
    T = to_json(compile_model(mx, D2).transformer)
    out.append(_claim(f"seed {seed}: compiled vs an averaged redundant piece", "equal", T, avg, D2))
    heads = copy.deepcopy(T)                      # duplicate a head with half its output weights
    for block in heads["blocks"]:
        att = block.get("attention")
        if att and att["heads"]:
            h = copy.deepcopy(att["heads"][0])
            h["WO"] = [[format_rational(rational(v) / 2) for v in row] for row in h["WO"]]
            att["heads"] = [copy.deepcopy(h), h] + att["heads"][1:]
            break
    out.append(_claim(f"seed {seed}: a head split into two half heads", "equal", T, heads, D2))
    T2 = to_json(compile_model(mx, D2, margin=1).transformer)
    out.append(_claim(f"seed {seed}: two gating margins", "equal", T, T2, D2))
    D1 = Box([[-2, 2]])
    absolute_relu = _relu_json(1, [([[1], [-1]], [0, 0], "relu"), ([[1, 1]], [0], "none")])
    absolute_max = _maxout_json(1, [[[([1], 0), ([-1], 0)]]])
    out.append(_claim("|x| as ReLU(x) + ReLU(-x) vs max(x, -x)", "equal", absolute_relu, absolute_max, D1))
    tent = CPWL1D([0, 1, 2], [0, 1, 0])
    tent_relu = _relu_json(1, [([[1], [1], [1]], [0, -1, -2], "relu"), ([[1, -2, 1]], [0], "none")])
    out.append(_claim("tent map: ReLU net vs cpwl1d", "equal", tent_relu, tent, Box([[0, 2]])))
    out.append(_claim("tent map: compiled vs cpwl1d", "equal", compile_model(tent, Box([[-1, 3]])).transformer,
                      tent, Box([[-1, 3]])))
    return out


def tie_pair() -> dict:
    """A (x >= 0 selects 1, ties average over 2 tokens) against B (ties average over 3):
    equal except at x = 0, where A = 1/2 and B = 1/3."""

    def tf(tokens):
        offsets = [[0, 1, 1 if t == 0 else 0] for t in range(tokens)]   # slots: x, 1, value
        sign = [1] + [-1] * (tokens - 1)                                  # key of token t: +-x
        return {"symrel": 1, "kind": "transformer", "input_dim": 1, "width": 3, "tokens": tokens,
                "embedding": {"input_rows": [0], "offsets": offsets},
                "blocks": [{"attention": {"rule": "hardmax", "heads": [
                    {"WQ": [[0, 1, 0]], "WK": [[1, 0, 0]], "WV": [[0, 0, 1]], "WO": [[0], [0], [1]]}]},
                    "feedforward": None}],
                "readout": {"token": 0, "W": [[0, 0, 1]], "b": [-1]}}, sign

    a, _ = tf(2)
    b, _ = tf(3)
    # keys: token 0 reads +x, the others -x; the key row reads slot 0 times a token sign held in the offsets
    for obj, T in ((a, 2), (b, 3)):
        obj["embedding"]["offsets"] = [[0, 1, 1 if t == 0 else 0, 1 if t == 0 else -1] for t in range(T)]
        obj["width"] = 4
        h = obj["blocks"][0]["attention"]["heads"][0]
        h["WQ"], h["WK"] = [[1, 0, 0, 0]], [[0, 0, 0, 1]]    # score of key s for query 0: sign_s * x
        h["WV"], h["WO"] = [[0, 0, 1, 0]], [[0], [0], [1], [0]]
        obj["readout"]["W"] = [[0, 0, 1, 0]]
    return _claim("tie pair: average over 2 vs 3 tokens at x = 0", "tie", a, b, Box([[-1, 1]]))


def campaign_claims(seeds=range(1000, 1032), mutants_per_pair=5, equal_seeds=(2000,), size="medium") -> list[dict]:
    """The whole campaign: compiled pairs and their mutants, equal pairs, the tie pair
    (``size``: of the random nets, :data:`SIZES`; "small" ones z3 decides in seconds)."""
    out = []
    for s in seeds:
        out += compiled_and_mutants(s, mutants_per_pair, size)
    for s in equal_seeds:
        out += equal_pairs(s)
    out.append(tie_pair())
    return out
