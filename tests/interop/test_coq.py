"""symrel.interop.coq: certificates -> a Coq folder replayed by coqc. The replays need coqc
(skipped without it); the refusals do not."""

import shutil

import pytest

from symrel.errors import InputError
from symrel.fileformat import to_json
from symrel.interop.coq import export_coq, gating_bounds_of, replay
from symrel.models import AffineMap, Box, DenseLayer, MaxoutLayer, MaxoutNet, MaxoutUnit, Polytope, ReLUNet

needs_coqc = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc is not installed")


def certificate(net, transformer, domain) -> dict:
    """The parts of an equivalence certificate that export-coq reads."""
    return {"claim": {"kind": "equivalence", "a": "a", "b": "b", "domain": "domain"},
            "inputs": {"a": {"object": to_json(net)}, "b": {"object": to_json(transformer)},
                       "domain": {"object": to_json(domain)}}}


def compiled(net, domain, **kw):
    from symrel.compiler import compile_maxout, compile_model

    return (compile_maxout(net, domain, **kw) if kw else compile_model(net, domain)).transformer


MAXOUT = MaxoutNet(2, [MaxoutLayer([MaxoutUnit([[1, "-1/2"], [0, 1]], ["1/3", 0]), MaxoutUnit([[2, 0]], [-1])]),
                       MaxoutLayer([MaxoutUnit([[1, 1], [1, -1], [0, 0]], [0, "1/2", -2])])],
                   AffineMap([[3]], ["-1/7"]))
BOX = Box([["-1/2", 1], [0, 2]])
# a ReLU net with an affine layer in the middle (folded into the next layer) and one at the end
RELU = ReLUNet(2, [DenseLayer([[1, 2], [-1, "1/3"]], [0, 1]), DenseLayer([[1, 1]], ["1/2"], "none"),
                   DenseLayer([[2], [-3]], [0, 1]), DenseLayer([[1, -1]], [0], "none")])


@needs_coqc
@pytest.mark.parametrize("net", [MAXOUT, RELU, ReLUNet(1, [DenseLayer([["2/3"]], [1], "none")])],
                         ids=["maxout", "relu", "affine"])
def test_compiled_transformers_replay(net, tmp_path, coq_library):
    export_coq(certificate(net, compiled(net, BOX if net.input_dim == 2 else Box([[0, 1]])),
                           BOX if net.input_dim == 2 else Box([[0, 1]])), tmp_path)
    r = replay(tmp_path, library=coq_library)
    assert r["ok"], r["log"]
    assert r["compiled"] == ["Instance.v"]     # the library was built once, for the session
    assert r["assumptions"] == "Closed under the global context"
    text = (tmp_path / "Instance.v").read_text()
    # the general theorem is proved for maxout and ReLU nets: the claim holds outright
    assert f"{'eval_relu' if net.kind == 'relu' else 'eval_maxout'} net x)." in text and r["theorem"] == "claim"
    assert "Theorem claim : forall x, in_box box x ->" in text
    assert f"compile_{'relu_' if net.kind == 'relu' else ''}correct_proof net box Bs" in text


@needs_coqc
def test_a_changed_weight_is_rejected(tmp_path, coq_library):
    from symrel.fileformat import from_json
    from symrel.mutation.tamper import altered

    t = to_json(compiled(MAXOUT, BOX))
    broken = from_json(altered(t, "blocks[0].feedforward.W1[1][0]", "1/1000000"))
    export_coq(certificate(MAXOUT, broken, BOX), tmp_path)
    r = replay(tmp_path, library=coq_library)
    assert not r["ok"] and r["failed"] == "Instance.v"
    assert "transformer_is_compiled" in (tmp_path / "Instance.v").read_text()


@needs_coqc
def test_an_understated_gating_bound_is_rejected(tmp_path, coq_library):
    from symrel.compiler.domain_to_gates import gating_bounds

    true_bounds = [g.bound for g in gating_bounds(MAXOUT, BOX)]
    small = [true_bounds[0], true_bounds[1] - 1]
    t = compiled(MAXOUT, BOX, bounds=small)
    assert gating_bounds_of(t, 2) == small
    export_coq(certificate(MAXOUT, t, BOX), tmp_path)
    r = replay(tmp_path, library=coq_library)
    assert not r["ok"] and r["failed"] == "Instance.v"
    assert "hypotheses_checked" in r["log"] or "Unable to unify" in r["log"] or "reflexivity" in r["log"] \
        or "Error" in r["log"]


def test_the_sparse_rows_decode_to_the_transformers_rows():
    # Sparse.v's pairs, in Python: At c a is a at column c; Run c k n is table[k..k+n-1] at c..c+n-1
    import re
    from fractions import Fraction

    from symrel.interop.coq import Table, _vectors, extras_of, net_values

    def fr(x):
        return Fraction(int(x.numerator), int(x.denominator))

    def q(text):
        m = re.fullmatch(r"\(?(-?\d+)(?:#(\d+))?\)?", text)
        return Fraction(int(m[1]), int(m[2] or 1))

    for net in (MAXOUT, RELU):
        t = compiled(net, BOX)
        values = net_values(net)
        table = Table(values, extras_of(t, values))
        runs = 0
        for vec in _vectors(t):
            dense = [Fraction(0)] * len(vec)
            for entry in re.findall(r"(At \d+ \S+?|Run \d+ \d+ \d+)(?:;|\]$)", table.row(vec)):
                kind, col, *rest = entry.split(" ")
                if kind == "At":
                    dense[int(col)] = q(rest[0])
                else:
                    k, n = int(rest[0]), int(rest[1])
                    dense[int(col):int(col) + n] = [fr(x) for x in table.values[k:k + n]]
                    runs += 1
            assert dense == [fr(x) for x in vec]
        assert runs > 0      # the gating rows copy the net's rows


def test_only_boxes_hardmax_and_compiled_shapes_are_exported(tmp_path):
    t = compiled(MAXOUT, BOX)
    square = Polytope([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1])
    with pytest.raises(InputError, match="box domain"):
        export_coq(certificate(MAXOUT, t, square), tmp_path / "a")
    with pytest.raises(InputError, match="three per layer"):
        export_coq(certificate(MAXOUT, compiled(MaxoutNet(2, MAXOUT.layers[:1]), BOX), BOX), tmp_path / "b")
    with pytest.raises(InputError, match="maxout or relu net and a transformer"):
        export_coq(certificate(MAXOUT, MAXOUT, BOX), tmp_path / "c")
    with pytest.raises(InputError, match="equivalence"):
        export_coq({"claim": {"kind": "softmax-bound"}}, tmp_path / "d")
    assert not any(p.exists() for p in (tmp_path / "a", tmp_path / "b", tmp_path / "c", tmp_path / "d"))


@needs_coqc
def test_the_folder_builds_with_coq_makefile(tmp_path, coq_library):
    # the exported folder is self-contained; with the library's units already compiled
    # (copied from the session's build, newer than their sources), make compiles Instance.v alone
    import shutil
    import subprocess

    if shutil.which("coq_makefile") is None:
        pytest.skip("coq_makefile is not installed")
    export_coq(certificate(MAXOUT, compiled(MAXOUT, BOX), BOX), tmp_path)
    project = (tmp_path / "_CoqProject").read_text().split()
    assert project[:3] == ["-R", ".", "Symrel"] and project[-1] == "Instance.v"
    text = (tmp_path / "Instance.v").read_text()
    assert "From Symrel Require Import Semantics Sparse Compiler Correctness Theorems." in text
    assert "Definition transformer : Transformer := decode table transformer_data." in text
    for name in project[3:-1]:
        assert (tmp_path / name).read_text() == (coq_library / name).read_text()
        shutil.copy(coq_library / name.replace(".v", ".vo"), tmp_path)
    subprocess.run(["coq_makefile", "-f", "_CoqProject", "-o", "Makefile"], cwd=tmp_path, check=True,
                   capture_output=True)
    r = subprocess.run(["make"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "COQC Instance.v" in r.stdout and "COQC Semantics.v" not in r.stdout
    assert (tmp_path / "Instance.vo").is_file()


@needs_coqc
@pytest.mark.slow
def test_acas_xu_replays(tmp_path, coq_library, shared_dir):
    # ACAS Xu 1_1 (5-50x6-5 ReLU) and its 18-block Transformer on its box: written sparse
    from symrel.compiler import compile_model
    from symrel.interop.nnet import read_nnet
    from symrel.mutation.decision import acas_box

    nnet = shared_dir / "data" / "acasxu" / "ACASXU_experimental_v2a_1_1.nnet"
    net, box = read_nnet(nnet), acas_box(nnet)
    t = compiled(net, box)
    assert len(t.blocks) == 18
    export_coq(certificate(net, t, box), tmp_path)
    assert (tmp_path / "Instance.v").stat().st_size < 2_000_000     # 3.5 MB if written dense
    r = replay(tmp_path, library=coq_library)
    assert r["ok"], r["log"]
    assert r["compiled"] == ["Instance.v"] and r["assumptions"] == "Closed under the global context"


@needs_coqc
@pytest.mark.parametrize("script", ["a1_maxout_layer", "a2_deep_maxout", "a3_relu_nets"])
def test_a_compiled_transformer_of_symrel_proofs_replays(script, tmp_path, coq_library):
    # the first instance of each script of Paper A (`symrel proofs`) that export-coq takes
    import importlib

    from symrel.certificates.io import certificate_of

    for instance in importlib.import_module(f"symrel.statements.papers.{script}").run():
        if instance.proof.result != "proved":
            continue
        try:
            export_coq(certificate_of(instance.proof), tmp_path)
        except InputError:      # not a net and its compiled Transformer on a box
            continue
        break
    else:
        pytest.fail(f"{script} has no instance that export-coq takes")
    r = replay(tmp_path, library=coq_library)
    assert r["ok"], (instance.name, r["log"])
    assert r["compiled"] == ["Instance.v"] and r["assumptions"] == "Closed under the global context"
