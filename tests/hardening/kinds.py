"""One small valid file of every kind in FORMAT.md, and the commands that read each kind.

The fuzz tests start from these and break them (a field replaced, the text cut or
corrupted); every kind of FORMAT.md appears once.
"""

from __future__ import annotations

MAXOUT = {"symrel": 1, "kind": "maxout", "input_dim": 2,
          "layers": [{"units": [{"pieces": [{"w": [1, "-2/3"], "b": "1/2"}, {"w": [0, 1], "b": 0}]},
                                {"pieces": [{"w": [-1, 0], "b": 0}]}]}],
          "readout": {"W": [[2, -1]], "b": [0]}}
RELU = {"symrel": 1, "kind": "relu", "input_dim": 1,
        "layers": [{"W": [[2], [2]], "b": [0, -1], "activation": "relu"},
                   {"W": [[1, -2]], "b": [0], "activation": "none"}]}
CPWL1D = {"symrel": 1, "kind": "cpwl1d", "x": [0, "1/2", 1], "y": [0, 1, 0]}
CPWL = {"symrel": 1, "kind": "cpwl", "input_dim": 2, "vertices": [[0, 0], [1, 0], [0, 1], [1, 1]],
        "simplices": [[0, 1, 2], [1, 3, 2]], "values": [[0, 1], [1, "1/2"], [1, 0], ["1/2", -1]]}
TRANSFORMER = {
    "symrel": 1, "kind": "transformer", "input_dim": 1, "width": 2, "tokens": 2,
    "embedding": {"input_rows": [0], "offsets": [[0, 1], [0, -1]]},
    "blocks": [
        {"attention": {"rule": "hardmax", "heads": [{"WQ": [[0, 1]], "WK": [[0, 1]], "WV": [[1, 0]], "WO": [[0], [1]]}]},
         "feedforward": {"W1": [[1, 0]], "b1": [0], "W2": [[0], [1]], "b2": [0, 0]}},
        {"attention": {"rule": "softmax", "scale": 4,
                       "heads": [{"WQ": [[0, 1]], "WK": [[0, 1]], "WV": [[1, 1]], "WO": [[1], [0]]}]},
         "feedforward": None},
    ],
    "readout": {"token": 0, "W": [[1, "1/2"]], "b": [0]},
}
HARDMAX_TRANSFORMER = {**TRANSFORMER, "blocks": [TRANSFORMER["blocks"][0]]}
BOX = {"symrel": 1, "kind": "box", "bounds": [[-1, 1], ["-1/2", 2]]}
BOX1 = {"symrel": 1, "kind": "box", "bounds": [[-1, 1]]}
POLYTOPE = {"symrel": 1, "kind": "polytope", "A": [[1, 0], [0, 1], [-1, -1]], "b": [1, 1, 1]}
POINTS = {"symrel": 1, "kind": "points", "x": [[1, "1/2"], ["-1/3", 0]]}
POINTS1 = {"symrel": 1, "kind": "points", "x": [["1/2"], ["-1/3"]]}
VALUES = {"symrel": 1, "kind": "values", "y": [[1, "1/2"], ["-1/3", 0]]}
PREORDER = {"symrel": 1, "kind": "preorder", "elements": ["a", "b", "c"], "leq": [["a", "b"], ["b", "c"], ["a", "c"]]}
RETRIEVAL = {"symrel": 1, "kind": "retrieval", "keys": {"k1": [1, 0], "k2": [0, 1], "k3": [1, 1]},
             "queries": {"q1": [1, 0], "q2": [0, 1]},
             "preorders": {"q1": {"leq": [["k2", "k1"], ["k2", "k3"], ["k1", "k3"], ["k3", "k1"]]},
                           "q2": {"elements": ["k1", "k2", "k3"], "leq": [["k1", "k2"], ["k1", "k3"], ["k2", "k3"]]}}}
RELATION = {"symrel": 1, "kind": "relation", "x": [[0], ["1/2"], [1]],
            "r": [[1, "1/2", 0], ["1/2", 1, "1/2"], [0, "1/2", 1]]}
RELATION_FEATURES = {"symrel": 1, "kind": "relation-features", "phi": RELU,
                     "psi": {"symrel": 1, "kind": "relu", "input_dim": 1,
                             "layers": [{"W": [[1]], "b": [0], "activation": "none"}]}}

SAMPLES = {
    "maxout": MAXOUT, "relu": RELU, "cpwl1d": CPWL1D, "cpwl": CPWL, "transformer": TRANSFORMER,
    "box": BOX, "polytope": POLYTOPE, "points": POINTS, "values": VALUES,
    "preorder": PREORDER, "retrieval": RETRIEVAL, "relation": RELATION,
    "relation-features": RELATION_FEATURES,
}


def certificate() -> dict:
    """A real certificate: the equivalence of a ReLU net and its maxout conversion."""
    from symrel.fileformat import from_json
    from symrel.models import Box
    from symrel.constructions import to_maxout
    from symrel.certificates.io import certificate_of
    from symrel.prover import prove_equivalence

    net = from_json(RELU)
    proof = prove_equivalence(net, to_maxout(net), Box([[-1, 1]]))
    return certificate_of(proof)
