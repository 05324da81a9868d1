"""Writes the golden certificates of tests/checking/golden (run from the repository root:
``PYTHONPATH=. python tests/checking/golden/make.py``).

``valid/KIND.json``: a certificate of every claim kind the command line and ``symrel
proofs`` write, produced by the provers on the tiny inputs below and then kept fixed, so
a change of the format or of the checker shows up as a failing test rather than as a
silently regenerated file. ``invalid/NAME.json``: one hand edit of a valid file each,
listed in ``EDITS`` with the JSON path and words the rejection must name; the list is
written to ``invalid.json`` for the test.
"""

import copy
import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def jump_transformer():
    """f(x) = 1 for x != 0 and f(0) = 0: scores 0, x, -x, the three tokens tie at 0 and hardmax
    averages (tests/regions/regions_fixtures.py has the same model)."""
    from symrel.models import Attention, AttentionHead, Block, Embedding, Readout, Transformer

    emb = Embedding([0], [[0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]], width=5, tokens=3)
    head = AttentionHead([[1, 0, 0, 0, 0]], [[0, 0, 1, -1, 0]], [[0, 3, 0, 0, 0]], [[0], [0], [0], [0], [1]], width=5)
    return Transformer(1, 5, 3, emb, [Block(Attention([head], "hardmax"), None)],
                       Readout(0, [[0, 0, 0, 0, -1]], [1], width=5, tokens=3))


def valid_certificates():
    from symrel.certificates.io import certificate_of
    from symrel.checking import stated
    from symrel.compiler import compile_model
    from symrel.exact import rational
    from symrel.fileformat import canonical_dumps, loads
    from symrel.models import Box, CPWL1D, CPWLMesh, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
    from symrel.constructions import cpwl_to_maxout
    from symrel.preorders import Preorder, debreu_utility, multi_utility, prove_retrieval, richter_peleg_utility
    from symrel.preorders import RetrievalTask, build_retrieval_attention
    from symrel.prover import prove_equivalence
    from symrel.regions import certify_regions, decide_equivalence
    from symrel.relations import Relation, factor_relation, factors_to_features, prove_relation
    from symrel.softmax import lambda_min

    relu = ReLUNet(1, [DenseLayer([[1]], [0]), DenseLayer([[1]], [0], "none")])          # max(x, 0)
    unit = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [0]], [0, 0])])])                 # max(x, 0)
    box = Box([(-1, 1)])
    tent = CPWL1D([0, "1/2", 1], [0, 1, 0])
    absval = ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[1, 1]], [0], "none")])  # |x|
    complete = Preorder.from_pairs(["a", "b", "c"], [["a", "b"], ["b", "a"], ["a", "c"], ["b", "c"]])
    partial = Preorder.from_pairs(["a", "b", "c"], [["a", "b"], ["a", "c"]])
    task = RetrievalTask({"k1": [0], "k2": [1]}, {"q": [1]}, {"q": Preorder.from_pairs(["k1", "k2"], [["k1", "k2"]])})
    eps = rational("1/10")
    gram = Relation([[0], [1]], [[1, 0], [0, 2]])
    fac = factor_relation(gram, symmetric=True)
    out = {
        "equivalence": certificate_of(prove_equivalence(relu, unit, box)),
        "equivalence-cpwl": certificate_of(prove_equivalence(tent, cpwl_to_maxout(tent), Box([(0, 1)]))),
        "equivalence-cells": certificate_of(decide_equivalence(relu, unit, box)),
        "regions": certify_regions(absval, box, "linear"),
        "softmax-bound": lambda_min(compile_model(unit, box).transformer, box, eps).certificate(),
        "utility": certificate_of(debreu_utility(complete).proof),
        "richter-peleg-utility": certificate_of(richter_peleg_utility(partial).proof),
        "multi-utility": certificate_of(multi_utility(partial).proof),
        "retrieval": certificate_of(prove_retrieval(task, build_retrieval_attention(task, eps=eps), max_subset=2, eps=eps)),
        "relation": certificate_of(prove_relation(gram, factors_to_features(gram, fac), symmetric=True, ldl=fac.ldl)),
    }
    out["regions"] = certificate_of(out["regions"])
    out["equivalence-scaled"] = certificate_of(prove_equivalence(*scaled_pair(), box))
    from symrel.models import Polytope

    # the interval [-1, 1] as a polytope: the domain-box step's duals, witness and lex records
    out["equivalence-polytope"] = certificate_of(prove_equivalence(relu, unit, Polytope([[1], [-1]], [1, 1])))
    from symrel.constructions import freudenthal_mesh

    mesh = freudenthal_mesh([[0, 1]], [2], lambda x: [abs(x[0] - rational("1/2"))])
    out["equivalence-cpwl-mesh"] = certificate_of(prove_equivalence(mesh, compile_model(mesh, Box([(0, 1)])).transformer,
                                                                    Box([(0, 1)])))
    # max(x, y) - max(-x, -y) = x + y, equal as functions but not layer by layer: a node-cells step
    from symrel.models import AffineMap

    diff = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 0], [0, 1]]), MaxoutUnit([[-1, 0], [0, -1]])])], AffineMap([[1, -1]]))
    out["equivalence-node-cells"] = certificate_of(prove_equivalence(diff, MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, 1]])])]),
                                                                     Box.cube(2)))
    square = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], [1], [1], ["1/2"]])
    out["regions-cpwl-mesh"] = certificate_of(certify_regions(square, Box([(0, 1), (0, 1)]), "linear"))
    out["regions-hardmax"] = certificate_of(certify_regions(jump_transformer(), box, "linear"))
    try:  # the tracr extra writes this one; the checker needs no extra to read it
        from tracr.compiler import compiling, lib

        from symrel.interop.tracr import audit_tracr

        program = lib.make_hist()
        model = compiling.compile_rasp_to_model(program, vocab={1, 2}, max_seq_len=3, causal=False, compiler_bos="BOS")
        out["tracr-audit"] = certificate_of(audit_tracr(program, (1, 2), 3, model=model))
    except ImportError:
        previous = HERE / "valid" / "tracr-audit.json"
        if previous.exists():
            out["tracr-audit"] = json.loads(previous.read_text())
    out["vnnlib-unsat"] = vnnlib_unsat()
    out["vnnlib-unsat-layered"] = vnnlib_unsat_layered()
    out["output-bounds"] = output_bounds()
    return {name: loads(canonical_dumps(stated(cert))) for name, cert in out.items()}


def vnnlib_unsat():
    """|x0| + |x1| - 1 on [-1, 3] x [-1, 1] never reaches -1001/1000 nor 31/10 (two unsafe disjuncts)."""
    from symrel.exact import rational as q
    from symrel.models import DenseLayer, ReLUNet
    from symrel.vnnlib import LinearAtom, VnnProperty
    from symrel.vnnlib.engine import decide

    def atom(x, y, rhs):
        return LinearAtom(tuple(q(v) for v in x), tuple(q(v) for v in y), q(rhs))

    net = ReLUNet(2, [DenseLayer([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0]),
                      DenseLayer([[1, 1, 1, 1]], [-1], "none")])
    region = ((atom([1, 0], [0], 3), atom([-1, 0], [0], 1), atom([0, 1], [0], 1), atom([0, -1], [0], 1)),)
    unsafe = ((atom([0, 0], [1], "-1001/1000"),), (atom([0, 0], [-1], "-31/10"),))
    return decide(net, VnnProperty(2, 1, region, unsafe, "0" * 64, "inline")).certificate


def vnnlib_unsat_layered():
    """A random layered net (affine, ReLU, max over groups, affine; tests/vnnlib/layered/oracle.py,
    seed 28), ``y`` on ``[-1, 1]`` with its minimum about ``-3.596`` near ``x = 5/16``, and an
    unsafe condition of two atoms that each matter: ``y - 2 x <= -17/4`` and ``2 y + x <=
    -111/16``, the two sides of a tent of top ``-29/8`` at ``x = 5/16`` below the graph. Each
    atom alone holds somewhere (the first near ``x = 1``, the second near ``x = -1``), so every
    leaf where it holds closes the other, and both are closed by some leaf: a number of either
    moved must be refused (the campaign's layered row). The second atom is scaled by 2 so that a
    close pointed at the other atom recomputes another bound, even at a point (``x = 0``) where
    both atoms' input terms vanish.
    Its tree has input, ReLU and max splits, betas, lambdas, slopes, pieces and an empty leaf."""
    import random

    from symrel.exact import rational as q
    from symrel.vnnlib import LinearAtom, VnnProperty
    from symrel.vnnlib.layered.search import decide
    from tests.vnnlib.layered.oracle import random_net

    def atom(x, y, rhs):
        return LinearAtom(tuple(map(q, x)), tuple(map(q, y)), q(rhs))

    rng = random.Random(28)
    net = random_net(rng, rng.randint(1, 3))
    region = ((atom([1], [0], 1), atom([-1], [0], 1)),)
    unsafe = ((atom([-2], [1], "-17/4"), atom([1], [2], "-111/16")),)
    return decide(net, VnnProperty(1, 1, region, unsafe, "0" * 64, "random")).certificate


def output_bounds():
    """f = relu(x0 - x1) - relu(x1 - 1/3) + x0 / 4 and f + |x0| on [-1, 1] x [0, 1]: every bound
    attained, at isolated points (a moved coordinate changes the output), some at a kink (ReLU
    splits with exact betas)."""
    from symrel.exact import Q
    from symrel.models import DenseLayer, ReLUNet
    from symrel.vnnlib.output_bounds import certificate, search_bounds

    net = ReLUNet(2, [DenseLayer([[1, -1], [0, 1], [1, 0], [-1, 0]], [0, "-1/3", 0, 0]),
                      DenseLayer([[1, -1, "1/4", "-1/4"], [0, 0, 1, 1]], [0, 0], "none"),
                      DenseLayer([[1, 0], [1, 1]], [0, 0], "none")])
    lo, hi = [Q(-1), Q(0)], [Q(1), Q(1)]
    return certificate(net, lo, hi, search_bounds(net, lo, hi, nodes=200))


def scaled_pair():
    """max(x, 0) against (max(2x + 3, 3) - 3) / 2: B's unit is 2 y + 3 for A's node y (max-scale-shift)."""
    from symrel.models import AffineMap, MaxoutLayer, MaxoutNet, MaxoutUnit

    a = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [0]], [0, 0])])])
    b = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[2], [0]], [3, 3])])], AffineMap([["1/2"]], ["-3/2"]))
    return a, b


def _set(cert, path, value):
    """``cert`` with the value at ``path`` (a list of keys and indices) replaced."""
    holder = cert
    for k in path[:-1]:
        holder = holder[k]
    holder[path[-1]] = value


def _bump(value):
    from symrel.exact import format_rational, rational

    return format_rational(rational(value) + 1)


# (name, valid file, edit, the path the rejection names, words it must contain)
EDITS = [
    ("equivalence-open", "equivalence", lambda c: _set(c, ["steps", 1, "status"], "open"),
     "steps[1].status", 'expected "proved"'),
    ("equivalence-bound", "equivalence", lambda c: _set(c, ["steps", 1, "certificate", "units", 0], ["+", 0]),
     "steps[1].certificate.units[0]", "ReLU lower bound 0 differs from the exact -1"),
    ("equivalence-cpwl-lattice", "equivalence-cpwl",
     lambda c: _set(c, ["steps", 1, "certificate", "lattice", "layers", 0, "units", 0, "pieces", 0, "b"], "5"),
     "steps[1].certificate.lattice", "not minus a piece of f"),
    ("equivalence-removed", "equivalence", lambda c: c["steps"].pop(1), "steps[1].rule", "expected rule 'relu-fixed-sign'"),
    ("equivalence-cells-count", "equivalence-cells", lambda c: _set(c, ["steps", 0, "certificate", "cells"],
                                                                     c["steps"][0]["certificate"]["cells"] + 1),
     "steps[0].certificate", "cells"),
    ("regions-count", "regions", lambda c: _set(c, ["claim", "count"], c["claim"]["count"] + 1), "claim.count", ""),
    ("regions-unknown-step", "regions", lambda c: _set(c, ["steps", 1, "rule"], "facet-guess"),
     "steps[1].rule", "unknown rule 'facet-guess'"),
    ("regions-cpwl-support", "regions-cpwl-mesh",
     lambda c: _set(c, ["steps", 0, "certificate", "support", 0, 1, 2, 0, 1], "1/3"),
     "steps[0].certificate.support[0][1]", "normal form"),
    ("regions-hardmax-definition", "regions-hardmax", lambda c: c["claim"].pop("definition"),
     "claim.definition", "must say which count it is"),
    ("regions-hardmax-jump", "regions-hardmax",
     lambda c: _set(c, ["steps", 1, "certificate", "apart", 0, "hyperplanes", 0, "jumps", -1, "differs"], 1),
     "steps[1].certificate.apart[0].hyperplanes[0].jumps[12].differs", "expected an index in 0..0"),
    ("softmax-bound-log", "softmax-bound",
     lambda c: _set(c, ["steps", 1, "certificate", "log_upper", "3"], _bump(c["steps"][1]["certificate"]["log_upper"]["3"])),
     "steps[1].certificate.log_upper.3", "within 2^-80"),
    ("softmax-bound-swapped", "softmax-bound", lambda c: c["steps"].insert(0, c["steps"].pop(1)),
     "steps[0].rule", "expected 'interval-ranges-box' here"),
    ("utility-gap", "utility", lambda c: _set(c, ["steps", 2, "certificate", "levels"], 3),
     "steps[2].certificate.levels", "recorded 3, recomputed 2"),
    ("utility-truncated", "utility", lambda c: c["steps"].pop(), "steps", "ends after 2 steps"),
    ("richter-peleg-utility-level", "richter-peleg-utility", lambda c: _set(c, ["claim", "utility", "b"], 2),
     "claim.utility.b", "chain level"),
    ("multi-utility-pairs", "multi-utility", lambda c: _set(c, ["steps", 0, "certificate", "pairs"], 8),
     "steps[0].certificate.pairs", "recorded 8, recomputed 9"),
    ("retrieval-score", "retrieval", lambda c: _set(c, ["steps", 0, "certificate", "scores", "q", "k1"], "1/3"),
     "steps[0].certificate.scores.q.k1", "recorded 1/3"),
    ("retrieval-beta", "retrieval",
     lambda c: _set(c, ["steps", 3, "certificate", "beta_bound"], _bump(c["steps"][3]["certificate"]["beta_bound"])),
     "steps[3].certificate.beta_bound", ""),
    ("relation-row", "relation", lambda c: _set(c, ["steps", 2, "certificate", "values", 1], 1),
     "steps[2].certificate.values", "row 0"),
    ("tracr-audit-count", "tracr-audit", lambda c: _set(c, ["steps", 0, "certificate", "count"], 15),
     "steps[0].certificate.count", "expected 14"),
    ("relation-psd-removed", "relation", lambda c: c["steps"].pop(0), "steps[0].rule", "expected 'table-psd' here"),
    ("vnnlib-unsat-bound", "vnnlib-unsat",
     lambda c: _set(c, ["steps", 0, "certificate", "tree", 1, "leaf", "closes", 0, "bound"], "-1/1000"),
     "steps[0].certificate.tree[1].leaf.closes[0].bound", "the bound recomputed is"),
    ("vnnlib-unsat-leaf-dropped", "vnnlib-unsat", lambda c: c["steps"][0]["certificate"]["tree"].pop(),
     "steps[0].certificate.tree", "still to cover"),
    ("vnnlib-unsat-split-outside", "vnnlib-unsat",
     lambda c: _set(c, ["steps", 0, "certificate", "tree", 0, "at"], "3"),
     "steps[0].certificate.tree[0].at", "do not partition"),
    ("vnnlib-unsat-layered-bound", "vnnlib-unsat-layered",
     lambda c: _set(c, ["steps", 0, "certificate", "tree", -1, "leaf", "closes", 0, "bound"], "-1/1000"),
     "steps[0].certificate.tree[", "the bound recomputed is"),
    ("vnnlib-unsat-layered-max-index", "vnnlib-unsat-layered",
     lambda c: next(e for e in c["steps"][0]["certificate"]["tree"] if "max" in e)["max"].__setitem__(1, 99),
     "steps[0].certificate.tree[", "expected an index"),
    ("vnnlib-unsat-layered-leaf-dropped", "vnnlib-unsat-layered", lambda c: c["steps"][0]["certificate"]["tree"].pop(),
     "steps[0].certificate.tree", "still to cover"),
    ("output-bounds-leaf", "output-bounds",
     lambda c: _set(c, ["steps", 1, "certificate", "tree", 1, "leaf", "bound"], "2"),
     "steps[1].certificate.tree[1].leaf.bound", "the bound recomputed is"),
    ("output-bounds-attained", "output-bounds",
     lambda c: _set(c, ["steps", 1, "certificate", "attained"], ["0", "0"]),
     "steps[1].certificate.attained", "the network's output 0 at the point is 0"),
    ("equivalence-scaled-factor", "equivalence-scaled",
     lambda c: _set(c, ["steps", 2, "certificate", "units", 0, "scale"], [3, 3]),
     "steps[2].certificate.units[0].result", "as 3 * node + 3"),
    ("equivalence-scaled-rule", "equivalence-scaled",
     lambda c: _set(c, ["steps", 2, "rule"], "maxout-unit-normal-form"),
     "steps[2].rule", "the records use the rules 'maxout-unit-normal-form+max-scale-shift'"),
]


def main(only=None):
    """Write every golden file, or (``only``: names of valid files) just those and their edits."""
    valid = valid_certificates()
    if only is not None:
        valid = {k: v for k, v in valid.items() if k in only}
    (HERE / "valid").mkdir(exist_ok=True)
    (HERE / "invalid").mkdir(exist_ok=True)
    for name, cert in valid.items():
        (HERE / "valid" / f"{name}.json").write_text(json.dumps(cert, indent=1, sort_keys=True) + "\n")
    cases = json.loads((HERE / "invalid.json").read_text()) if only is not None else {}
    for name, source, edit, path, words in EDITS:
        if source not in valid:
            continue
        cert = copy.deepcopy(valid[source])
        edit(cert)
        (HERE / "invalid" / f"{name}.json").write_text(json.dumps(cert, indent=1, sort_keys=True) + "\n")
        cases[name] = {"from": source, "path": path, "words": words}
    (HERE / "invalid.json").write_text(json.dumps(cases, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:] or None)
