"""A model kind added in one module (a package of kind modules named once) is read, written,
lowered, shown by ``symrel info``, enumerated and proved by the same dispatch as symrel's own
kinds; and what a kind does not supply is refused naming the kind."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest

from symrel import kind_plugins, model_kinds
from symrel.errors import InputError
from symrel.exact import Q
from symrel.fileformat import load_model
from symrel.fileformat.registry import READERS, WRITERS, from_json, to_json
from symrel.lowering import lower
from symrel.models import Box, DenseLayer, ReLUNet

#: the whole toy kind: f(x) = c |x|, one module, nothing else touched
TOY = '''
"""The toy kind ``scaled-abs``: f(x) = c |x| on one input."""
from symrel.exact import format_rational, rational
from symrel.fileformat.fields import get
from symrel.lowering.program import Program
from symrel.model_kinds import ModelKind, register
from symrel.models import DenseLayer, ReLUNet
from symrel.models.base import Model


class ScaledAbs(Model):
    kind, input_dim, output_dim = "scaled-abs", 1, 1

    def __init__(self, c):
        self.c = rational(c, path="c")

    def as_relu(self):
        return ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[self.c, self.c]], [0], "none")])

    def _evaluate_batch(self, X):
        return self.as_relu()._evaluate_batch(X)

    def num_parameters(self):
        return 1

    def sizes(self):
        return {"kind": self.kind, "input_dim": 1, "output_dim": 1, "parameters": 1}


def lower(f):
    from symrel.lowering.relu_to_program import relu_to_program
    p = relu_to_program(f.as_relu())
    return Program("scaled-abs", 1, 1, p.stages, source=f)


def forms(f, ctx):
    from symrel.prover.relu_to_forms import relu_net_forms
    return relu_net_forms(f.as_relu(), ctx)


register(ModelKind(
    "scaled-abs", ScaledAbs, "a scaled absolute value",
    read=lambda obj, path="": ScaledAbs(rational(get(obj, "c", path), path=f"{path}.c" if path else "c")),
    write=lambda f: {"symrel": 1, "kind": "scaled-abs", "c": format_rational(f.c)},
    lower=lower, forms=forms,
    describe=lambda f: f"c|x| with c = {format_rational(f.c)}",
    info=lambda f, budget: {**f.sizes(), "c": format_rational(f.c)},
    continuous=True,
))
'''


@pytest.fixture
def toy_kind(tmp_path, monkeypatch):
    pkg = tmp_path / "toy_model_kinds"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "scaled_abs.py").write_text(textwrap.dedent(TOY))
    monkeypatch.syspath_prepend(str(tmp_path))
    model_kinds.register_kind_package("toy_model_kinds")
    try:
        yield tmp_path
    finally:
        kind_plugins.MODEL_KIND_PACKAGES.remove("toy_model_kinds")
        cls = model_kinds.KINDS["scaled-abs"].model if "scaled-abs" in model_kinds.KINDS else None
        model_kinds.unregister("scaled-abs")
        READERS.pop("scaled-abs", None)
        if cls is not None:
            WRITERS.pop(f"{cls.__module__}.{cls.__qualname__}", None)
        for name in [m for m in sys.modules if m.startswith("toy_model_kinds")]:
            del sys.modules[name]


def _relu(c):
    return ReLUNet(1, [DenseLayer([[1], [-1]], [0, 0]), DenseLayer([[c, c]], [0], "none")])


def test_the_toy_kind_is_found_read_written_lowered_and_shown(toy_kind, capsys):
    from symrel.cli import main

    assert "scaled-abs" in model_kinds.names()
    f = from_json({"symrel": 1, "kind": "scaled-abs", "c": "3/2"})
    assert f.evaluate_exact([-2]) == [Q(3)]
    assert to_json(f) == {"symrel": 1, "kind": "scaled-abs", "c": "3/2"}
    path = toy_kind / "f.json"
    path.write_text(json.dumps(to_json(f)))
    assert load_model(path).c == Q(3, 2)
    program = lower(f)
    assert (program.kind, program.source) == ("scaled-abs", f)
    assert main(["info", str(path)]) == 0
    assert "c: 3/2" in capsys.readouterr().out
    other = toy_kind / "g.json"
    other.write_text(json.dumps(to_json(_relu(Q(3, 2)))))
    box = toy_kind / "box.json"
    box.write_text(json.dumps({"symrel": 1, "kind": "box", "bounds": [[-1, 1]]}))
    assert main(["prove", str(path), str(other), "--domain", str(box)]) == 0   # symrel prove: proved
    assert "proved" in capsys.readouterr().out


def test_the_toy_kind_is_proved_refuted_and_enumerated(toy_kind):
    from symrel.prover import prove_equivalence
    from symrel.regions import enumerate_cells

    f = from_json({"symrel": 1, "kind": "scaled-abs", "c": "3/2"})
    proof = prove_equivalence(f, _relu(Q(3, 2)), Box([[-1, 1]]))
    assert proof.result == "proved" and "A is c|x| with c = 3/2" in proof.claim
    # the checker keeps its own table of model semantics: a kind it does not know is refused
    from symrel.certificates.io import certificate_of
    from symrel.checking import CertificateError, check_certificate

    with pytest.raises(CertificateError, match="scaled-abs"):
        check_certificate(certificate_of(proof))
    bad = prove_equivalence(f, _relu(Q(1)), Box([[-1, 1]]))
    assert bad.result == "refuted" and f.evaluate_exact(bad.counterexample) != _relu(Q(1)).evaluate_exact(bad.counterexample)
    assert len(enumerate_cells([f], Box([[-1, 1]])).cells) == 2


def test_what_a_kind_does_not_supply_is_refused_naming_it(toy_kind):
    from symrel.constructions import to_maxout
    from symrel.interop.exact_trace import exact_trace

    f = from_json({"symrel": 1, "kind": "scaled-abs", "c": "1"})
    with pytest.raises(InputError, match="cannot trace a model of kind scaled-abs"):
        exact_trace(f, [[0]])
    with pytest.raises(InputError, match="expected a cpwl, cpwl1d, maxout or relu model, got scaled-abs"):
        to_maxout(f)


def test_a_class_whose_kind_disagrees_is_refused():
    class Wrong:
        kind = "other"

    with pytest.raises(ValueError, match="say kind 'other'"):
        model_kinds.register(model_kinds.ModelKind("wrong", Wrong, "a wrong kind"))
    assert model_kinds.get("wrong") is None and model_kinds.kind_of(Wrong()) is None


def test_every_kind_module_registers_its_kind_with_the_file_formats_reader():
    for name in model_kinds.names():
        kind = model_kinds.get(name)
        assert kind is not None and kind.name == name and kind.model.kind == name
        assert kind.read is not None and kind.write is not None and kind.lower is not None and kind.describe is not None
        from_json({"symrel": 1, "kind": "box", "bounds": [[0, 1]]})   # loads the file format's own readers
        assert READERS[name].__name__ == kind.read.name, name     # the record names the file format's reader
    assert model_kinds.supporting("forms") == ["cpwl", "cpwl1d", "maxout", "relu", "transformer"]


#: the isinstance checks against a model class that stay, each a type check of an argument (or
#: the checker's own semantics), not a dispatch over the kinds: module -> classes checked
GENUINE_TYPE_CHECKS = {
    "symrel.models.cpwl": {"CPWL1D"}, "symrel.models.cpwl_mesh": {"CPWLMesh"},   # __eq__
    "symrel.models.maxout": {"MaxoutNet"}, "symrel.models.relu": {"ReLUNet"},
    "symrel.models.sequence": {"SequenceTransformer"}, "symrel.models.transformer": {"Transformer"},
    "symrel.compiler.compiling": {"MaxoutNet"},              # compile_maxout takes a maxout net
    "symrel.cli.commands.eval": {"Transformer"},             # --scale: softmax evaluation of a Transformer
    "symrel.cli.commands.softmax_bound": {"Transformer"},    # softmax-bound takes a Transformer
    "symrel.vnnlib.symbolic": {"ReLUNet"},
    "symrel.interop.onnx_guard": {"ReLUNet"},
    "symrel.verification.output_bounds": {"ReLUNet"},   # bounds: ReLU nets (the dense engine's bounds)   # the guard's exact outputs: a ReLU net by matrix products
}
MODEL_CLASSES = {"MaxoutNet", "ReLUNet", "CPWL1D", "CPWLMesh", "Transformer", "SequenceTransformer"}


def test_no_analysis_dispatches_on_the_model_classes():
    """Outside the checker (its own table, on purpose), an isinstance check against a model
    class is a type check listed above; a dispatch over the kinds asks symrel.model_kinds."""
    import ast
    from pathlib import Path

    import symrel

    root = Path(symrel.__file__).parent
    found: dict[str, set] = {}
    for path in root.rglob("*.py"):
        module = ".".join(("symrel", *path.relative_to(root).with_suffix("").parts)).removesuffix(".__init__")
        if module.startswith("symrel.checking"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
                names = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)} & MODEL_CLASSES
                if names:
                    found.setdefault(module, set()).update(names)
    assert found == GENUINE_TYPE_CHECKS
