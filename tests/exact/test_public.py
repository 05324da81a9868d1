"""One public number type (symrel.exact.public): every number a user reads from the public
API objects is a sympy Rational or an int, equal to the corresponding Fraction, whatever
ground types sympy runs on (flint, gmpy, python), and every matrix a sympy ImmutableMatrix
of those. A walker reads every public attribute and property of each result object, model
and domain (and the listed number-giving methods), recursively.

Left out on purpose, as the inner type shared with the rest of the library and the checker:
the ``exact_`` data of models and domains (``exact_W``, ``exact_bounds``, ...), the exact
affine forms of cells (``AffineForm``), and the working records a certificate is written
from (``NetworkBound.trace`` / ``.plan``, ``RegionCount.enumeration``)."""

import inspect
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from sympy import QQ

from symrel.exact import Public, inner, to_public

#: attributes holding the inner type by design (see the module docstring), besides ``exact_*``
#: (a mesh's working records are ``exact_geometry`` and ``exact_index``)
INNER = {"trace", "plan", "enumeration"}


def _skip(obj) -> bool:
    from symrel.exact.forms import AffineForm

    return isinstance(obj, AffineForm)


def readings(obj, where="obj", depth=0, seen=None, out=None):
    """Every ``(where, value)`` a user reads from ``obj``: numbers found through public
    attributes and properties, lists, tuples and dicts (20 entries of each at most)."""
    if seen is None:
        seen, out = {}, []  # id -> object: the objects stay alive, so no id is reused
    if depth > 8 or obj is None or isinstance(obj, (str, bool, float, type)):
        return out
    if isinstance(obj, (int, sympy.Rational, Fraction)) or QQ.of_type(obj) or hasattr(obj, "denominator"):
        out.append((where, obj))
        return out
    if id(obj) in seen or _skip(obj):
        return out
    seen[id(obj)] = obj
    if isinstance(obj, sympy.MatrixBase) or hasattr(obj, "to_Matrix"):  # a sympy matrix, or a DomainMatrix
        out.append((where, obj))
        if isinstance(obj, sympy.MatrixBase):
            for k, v in enumerate(list(obj)[:20]):
                readings(v, f"{where}[{divmod(k, obj.shape[1])}]", depth + 1, seen, out)
    elif isinstance(obj, dict):
        for k, v in list(obj.items())[:20]:
            readings(v, f"{where}[{k!r}]", depth + 1, seen, out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj[:20]):
            readings(v, f"{where}[{i}]", depth + 1, seen, out)
    elif (type(obj).__module__ or "").startswith("symrel"):
        for name in dir(obj):
            if name.startswith(("_", "exact_")) or name in INNER:
                continue
            try:
                v = getattr(obj, name)
            except Exception:  # a property that does not apply to this object
                continue
            if not inspect.isroutine(v):  # a model is callable, and read
                readings(v, f"{where}.{name}", depth + 1, seen, out)
    return out


def public_objects() -> dict:
    """The public API objects, small enough to build in a few seconds."""
    from symrel.compiler import compile_maxout
    from symrel.models import CPWL1D, Box, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, Polytope, ReLUNet
    from symrel.preorders import Preorder, debreu_utility, richter_peleg_utility
    from symrel.prover import prove_equivalence
    from symrel.regions import count_regions
    from symrel.relations import Relation, gram_factors, prove_relation, rank_factors, relation_features
    from symrel.softmax import empirical_check, lambda_for_max_head, lambda_min, retrieval_beta, retrieval_bound

    net = ReLUNet(2, [DenseLayer([[1, -1], [2, "1/3"]], ["1/2", 0]), DenseLayer([[1, 1]], [0], "none")])
    other = ReLUNet(2, [DenseLayer([[1, -1], [2, "1/3"]], ["1/2", "1/1000"]), DenseLayer([[1, 1]], [0], "none")])
    box = Box([[-1, "1/2"], ["-1/3", 1]])
    maxout = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, "1/3"])])])
    line = Box([[-1, 1]])
    comp = compile_maxout(maxout, line)
    bound = lambda_min(comp.transformer, line, QQ(1, 100))
    cpwl = CPWL1D([0, "1/2", 1], [0, "1/3", 0])
    rel = Relation([[0], [1]], [[2, 1], [1, 1]])
    feats = relation_features(rel, symmetric=True)
    objs = {
        "net(x)": net(["1/4", "1/3"]), "net.evaluate_batch": net.evaluate_batch([[0, 0], ["1/2", 1]]),
        "cpwl(x)": cpwl(["1/4"]), "net.to_sympy": [sympy.nsimplify(e.subs("x1", 0).subs("x2", 0)) for e in net.to_sympy()],
        "box": box, "box.lower": box.lower(), "box.upper": box.upper(), "box.center": box.center(),
        "box.vertices": list(box.vertices()), "box.sample": box.sample(3), "box.halfspaces": box.halfspaces(),
        "polytope.contains": Polytope([[1, 1]], ["1/2"]).contains(["1/4", 0]),
        "regions": count_regions(net, box),
        "proof(refuted)": prove_equivalence(net, other, box),
        "proof(proved)": prove_equivalence(maxout, comp.transformer, line),
        "compilation": comp, "gates": comp.gates,
        "network bound": bound, "network bound.bound": bound.bound,
        "empirical": empirical_check(comp.transformer, line, bound.lam, bound.bound, points=4),
        "lambda bound": lambda_for_max_head(2, QQ(1, 10)), "retrieval bound": retrieval_bound(3, QQ(1, 2), QQ(1, 10)),
        "retrieval beta": retrieval_beta(3, QQ(1, 2), QQ(1, 10)),
        "debreu": debreu_utility(Preorder.from_utility({"a": "1/2", "b": 2, "c": 2})),
        "richter-peleg": richter_peleg_utility(Preorder.from_pairs(["a", "b", "c"], [("a", "b")])),
        "relation proof": prove_relation(rel, feats), "feature value": feats.value([0], [1]),
        "gram factors": gram_factors(rel.R), "rank factors": rank_factors(rel.R),
        "not psd": gram_factors(Relation([[0], [1]], [["1/3", 1], [1, "1/3"]]).R),
    }
    objs.update(model_objects(net, maxout, comp.transformer))
    objs["counterexample"] = objs["proof(refuted)"].counterexample
    objs["counterexample values"] = objs["proof(refuted)"].counterexample_values()
    try:
        import numpy  # noqa: F401
    except ImportError:
        pass
    else:
        from symrel.crossval.compare import crossvalidate

        objs["crossval"] = crossvalidate(net, "numpy", "float32", 8, seed=0)
    return objs


def sequence_model():
    """A small sequence Transformer with an attention and an MLP sublayer."""
    from symrel.models.sequence import SequenceAttention, SequenceHead, SequenceLayer, SequenceMLP, SequenceTransformer

    head = SequenceHead([[1, 0, 0]], [[0, "1/2", 0]], [[0, 0, 1]], [[1], [0], ["-1/3"]], bQ=["1/4"], width=3)
    layer = SequenceLayer(SequenceAttention([head], bO=[0, "1/5", 0], scale="3/2", width=3),
                          SequenceMLP([[1, -1, 0]], ["1/7"], [[0], [1], [0]], [0, 0, "2/9"], width=3))
    return SequenceTransformer(tokens=["BOS", "a", "b"], bos="BOS", token_embedding=[[0, 0, 1], ["1/2", 0, 1], [0, 1, 1]],
                               position_embedding=[[0, 0, 0], [0, "1/3", 0], [0, 0, 0]], layers=[layer],
                               unembedding=[[1, 0, 0], [0, 1, 0]], output="categorical", output_labels=["x", "y"])


def model_objects(net, maxout, transformer) -> dict:
    """Models and their parts: their defining data read as public numbers (the walker reads
    the attributes; the number-giving methods are called here)."""
    from symrel.models import CPWL1D, AffineMap, CPWLMesh, Polytope
    from symrel.preorders.generators import random_retrieval_task
    from symrel.relations import Relation

    affine = AffineMap([[1, "-1/2"], ["2/3", 0]], ["1/3", -2])
    softmax = transformer.with_rule("softmax", "7/2")
    head = next(b.attention.heads[0] for b in transformer.blocks if b.attention is not None)
    ff = next(b.feedforward for b in transformer.blocks if b.feedforward is not None)
    seq = sequence_model()
    cpwl = CPWL1D([0, "1/2", 1], [0, "1/3", 0])
    mesh = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0, 1], ["1/2", 0], [1, 0], ["1/3", "2/5"]])
    task = random_retrieval_task(3, 4, seed=1)
    from symrel.constructions import lattice_forms, wang_sun_forms

    (ws,) = wang_sun_forms(CPWLMesh([[0, 0], [2, 0], [0, 2], [2, 2], [1, 1]], [[0, 1, 4], [1, 3, 4], [3, 2, 4], [2, 0, 4]],
                                    [[0], [0], [0], [0], ["1/3"]]))
    return {
        "wang-sun form": ws, "wang-sun value": ws(["1/2", 1]), "lattice form": lattice_forms(mesh)[1],
        "cpwl": cpwl, "cpwl pieces": cpwl.pieces(), "mesh": mesh, "mesh pieces": mesh.pieces(),
        "retrieval task": task, "utility matrix": task.utility_matrix(),
        "polytope": Polytope([[1, "1/2"], [-1, 0], [0, -1]], ["3/4", 0, 0]),
        "polytope halfspaces": Polytope([[1, "1/2"], [-1, 0], [0, -1]], ["3/4", 0, 0]).halfspaces(),
        "relation": Relation([["1/2"], [1]], [[2, "1/3"], ["1/3", 1]]),
        "relation on two sets": Relation([["1/2"], [1]], [[2, "1/3", 0], ["1/3", 1, 0]], [[0], ["-1/4"], [3]]),
        "relu net": net, "maxout net": maxout, "maxout hidden": maxout.hidden_batch([[0], ["1/2"]]), "affine": affine, "affine pieces": affine.pieces(),
        "unit pieces": maxout.layers[0].units[0].pieces.pieces(), "transformer": transformer,
        "softmax transformer": softmax, "head matrices": head.matrices(), "feedforward matrices": ff.matrices(),
        "sequence transformer": seq, "sequence head data": seq.layers[0].attention.heads[0].data(),
        "sequence scores": seq.scores(["a", "b"]), "sequence residuals": seq.residuals(["b"]),
        "transformer states": transformer.states(["1/3"]), "transformer embed": transformer.embed(["-1/2"]),
    }


def all_readings() -> list:
    return [r for name, obj in public_objects().items() for r in readings(obj, name)]


def test_public_descriptor():
    @dataclass
    class Result:
        lam: object = Public()
        point: list = Public(default=None)

    r = Result(QQ(1, 4), [QQ(1, 2), QQ(3)])
    assert type(r.lam) is sympy.Rational and r.lam == Fraction(1, 4) and Fraction(1, 4) == r.lam
    assert r.point == [Fraction(1, 2), 3] and QQ.of_type(inner(r, "lam")) and Result(1).point is None
    assert r == Result(QQ(1, 4), [QQ(1, 2), QQ(3)])
    with pytest.raises(TypeError):
        Result()  # a Public field without a default is required
    assert to_public((QQ(-2, 7), "x", None, True)) == (sympy.Rational(-2, 7), "x", None, True)


def test_every_number_a_user_reads_is_a_sympy_rational():
    found = all_readings()
    assert len(found) > 100
    matrices = [(w, v) for w, v in found if hasattr(v, "shape")]
    found = [(w, v) for w, v in found if not hasattr(v, "shape")]
    wrong = [(w, type(v).__name__) for w, v in found if not (type(v) is int or isinstance(v, sympy.Rational))]
    wrong += [(w, type(v).__name__) for w, v in matrices if not isinstance(v, sympy.ImmutableMatrix)]
    assert not wrong, wrong[:20]
    for w, v in found:
        f = Fraction(int(v.numerator), int(v.denominator)) if not isinstance(v, int) else Fraction(v)
        assert v == f and f == v and v - f == 0, w
    names = {w.split(".")[0].split("[")[0] for w, _ in found}
    for must in ("box", "regions", "network bound", "proof(refuted)", "counterexample", "debreu", "not psd",
                 "lambda bound", "gates", "net(x)", "relu net", "maxout net", "affine", "transformer",
                 "softmax transformer", "sequence transformer", "affine pieces", "head matrices", "cpwl",
                 "cpwl pieces", "mesh", "mesh pieces", "polytope", "relation", "sequence scores",
                 "sequence residuals", "transformer states", "transformer embed", "retrieval task", "utility matrix",
                 "wang-sun form", "wang-sun value", "maxout hidden",
                 "lattice form"):
        assert must in names, must
    read = {w for w, _ in found} | {w for w, _ in matrices}
    for must in ("relu net.layers[0].affine.W", "relu net.layers[0].affine.b", "maxout net.layers[0].units[0].pieces.W",
                 "transformer.readout.W", "transformer.embedding.offsets", "softmax transformer.blocks[1].attention.scale",
                 "sequence transformer.token_embedding", "sequence transformer.layers[0].attention.heads[0].bQ[0]",
                 "sequence transformer.layers[0].mlp.W2", "sequence transformer.layers[0].attention.scale",
                 "cpwl.x[1]", "cpwl.y[1]", "cpwl pieces[1][0]", "mesh.vertices[3][1]", "mesh.values[3][1]",
                 "mesh pieces[1][0][0][1]", "polytope.A", "polytope.b", "relation.R", "relation.x[0][0]",
                 "relation on two sets.y[1][0]", "relation on two sets.ys[2][0]", "retrieval task.keys['k1'][0]",
                 "utility matrix[1][2]", "box.halfspaces[0][1][1]", "box.halfspaces[1][3]",
                 "polytope halfspaces[0][0][1]", "polytope halfspaces[1][0]", "wang-sun form.pieces[0][0][0]",
                 "wang-sun form.pieces[0][1]", "wang-sun form.terms[0][0]", "wang-sun value",
                 "maxout hidden[0][1][0]", "lattice form.pieces[0][0][0]", "lattice form.pieces[0][1]"):
        assert must in read, (must, sorted(r for r in read if r.startswith(must.split(".")[0]))[:40])
    # read-only, and equal to Fractions entry by entry
    W = dict(matrices)["relu net.layers[0].affine.W"]
    assert W[1, 1] == Fraction(1, 3) and sympy.latex(W) == r"\left[\begin{matrix}1 & -1\\2 & \frac{1}{3}\end{matrix}\right]"
    with pytest.raises(TypeError):
        W[0, 0] = 5


_PROBE = """
import json, sys
sys.path.insert(0, {tests!r})
from exact.test_public import all_readings
from sympy import QQ
found = all_readings()
print(json.dumps({{"types": sorted({{type(v).__module__ + "." + type(v).__name__ for _, v in found}}),
                  "values": [[w, repr(v)] for w, v in found if "seconds" not in w and "time" not in w],
                  "ground": type(QQ(1)).__name__}}))
"""


def _probe(ground):
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, SYMPY_GROUND_TYPES=ground, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", _PROBE.format(tests=str(root / "tests"))], capture_output=True,
                       text=True, env=env, timeout=300, cwd=root)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_same_numbers_under_every_ground_type():
    grounds = ["python"]
    for module, ground in (("gmpy2", "gmpy"), ("flint", "flint")):
        try:
            __import__(module)
            grounds.append(ground)
        except ImportError:
            pass
    seen = {g: _probe(g) for g in grounds}
    first = seen["python"]
    assert {t.rsplit(".", 1)[0] for t in first["types"]} <= {"builtins", "sympy.core.numbers", "sympy.matrices.immutable"}
    for g, got in seen.items():
        assert got["types"] == first["types"] and got["values"] == first["values"], g
    assert len({got["ground"] for got in seen.values()}) == len(grounds)  # really different ground types


def test_the_library_reads_the_exact_data(monkeypatch):
    """Inside symrel every reading goes to the ``exact_`` data: no public view (a sympy
    matrix, slower and a second number type) is made while proving, checking, counting,
    compiling, lowering, exporting or writing files."""
    from symrel.certificates.io import certificate_of
    from symrel.checking import check_certificate
    from symrel.compiler import compile_maxout
    from symrel.exact.public import PublicView
    from symrel.fileformat import from_json, to_json
    from symrel.lowering import lower
    from symrel.models import Box, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, ReLUNet
    from symrel.prover import prove_equivalence
    from symrel.regions import count_regions

    library_reads = []
    get = PublicView.__get__

    def spy(self, obj, owner=None):
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if obj is not None and caller.startswith("symrel") and caller != "symrel.exact.public":
            library_reads.append(f"{caller}: {type(obj).__name__}.{self.name}")
        return get(self, obj, owner)

    monkeypatch.setattr(PublicView, "__get__", spy)
    net = ReLUNet(2, [DenseLayer([[1, -1], [2, "1/3"]], ["1/2", 0]), DenseLayer([[1, 1]], [0], "none")])
    maxout = MaxoutNet(1, [MaxoutLayer([MaxoutUnit([[1], [-1]], [0, "1/3"])])])
    line = Box([[-1, 1]])
    comp = compile_maxout(maxout, line)
    proof = prove_equivalence(maxout, comp.transformer, line)
    check_certificate(certificate_of(proof))
    count_regions(net, Box([[-1, 1], [-1, 1]]))
    for model in (net, maxout, comp.transformer, sequence_model()):
        assert from_json(to_json(model)) == model
        if model is not comp.transformer and hasattr(model, "input_dim"):
            lower(model)
    lower(comp.transformer)
    from symrel.models import CPWL1D, CPWLMesh, Polytope
    from symrel.relations import Relation, prove_relation, relation_features

    rel = Relation([[0], [1]], [[2, 1], [1, 1]])
    assert prove_relation(rel, relation_features(rel, symmetric=True)).result == "proved"
    triangle = Polytope([[1, 1], [-1, 0], [0, -1]], [1, 0, 0])
    count_regions(net, triangle)
    cpwl = CPWL1D([0, "1/2", 1], [0, "1/3", 0])
    mesh = CPWLMesh([[0, 0], [1, 0], [0, 1], [1, 1]], [[0, 1, 2], [1, 3, 2]], [[0], ["1/2"], [1], ["1/3"]])
    assert prove_equivalence(cpwl, cpwl, line).result == "proved"
    for thing in (rel, triangle, cpwl, mesh):
        assert from_json(to_json(thing)) == thing
    lower(cpwl), lower(mesh)
    assert not library_reads, sorted(set(library_reads))


def test_a_public_view_is_read_only_kept_and_goes_back_into_a_constructor():
    from symrel.models import AffineMap, FeedForward, Readout

    f = AffineMap([[1, "1/2"], [0, "-2/3"]], ["1/3", 0])
    assert f.W is f.W and isinstance(f.W, sympy.ImmutableMatrix) and f.b.shape == (2, 1)
    assert f.W[0, 1] == Fraction(1, 2) and f.b[0] == Fraction(1, 3) and QQ.of_type(f.exact_W.getitem(0, 1))
    with pytest.raises(AttributeError, match="read-only"):
        f.W = [[1, 2], [3, 4]]
    pieces = f.pieces()
    pieces[0][0][0] = 99  # a fresh list each time
    assert f.pieces()[0][0][0] == 1 and f.pieces() == [([1, Fraction(1, 2)], Fraction(1, 3)), ([0, Fraction(-2, 3)], 0)]
    assert AffineMap(f.W, f.b) == f and AffineMap(f.W.tolist(), list(f.b)) == f
    ff = FeedForward([[1]], ["1/2"], [[2]], [0])
    assert FeedForward(*ff.matrices()) == ff
    assert Readout(0, f.W, f.b, width=2, tokens=1).W == f.W


def test_a_wang_sun_form_reads_public_and_goes_back_into_its_constructor():
    from symrel.models import CPWLMesh
    from symrel.constructions import WangSunForm, wang_sun_forms

    f = CPWLMesh([[0], [1], [2]], [[0, 1], [1, 2]], [[0], ["1/3"], [0]])
    (ws,) = wang_sun_forms(f)
    again = WangSunForm(ws.output, ws.pieces, ws.terms)
    assert again == ws and QQ.of_type(again.exact_terms[0][0]) and again.to_json() == ws.to_json()
    assert ws([1]) == Fraction(1, 3) and type(ws([1])) is sympy.Rational and QQ.of_type(ws.exact_value([1]))
