"""The hostile files of README.md's section "A fresh round": how each was written
(``python -m tests.adversarial.hostile_files`` rewrites them in ``files/``).

Each tries one thing: to be read as something other than what its own tools read (onnxruntime,
numpy, z3's SMT-LIB reader, the competition's Python scripts, the C readers of ``.nnet``), to bind
a certificate to another file, to make the checker accept a false claim, to exhaust time or
memory, or to crash a reader. Small files are kept in ``files/`` (test_hostile_files.py checks
they are what this module writes); the large ones (:data:`GENERATED`) are written by the tests
into a temporary folder, and the devices (``/dev/zero`` under the name of every format) are
symbolic links made there too.

The helpers, valid files the attacks are measured against, are the network of
tests/hardening/seeds.py (two inputs, two outputs: ``h = relu(x0 - x1, x0/2 + x1 - 1/4)``,
``y = (h0 + 1/8, 2 h1 - h0)``) as ONNX, ``.nnet`` and JSON, and its two properties on
``[0, 1]^2`` (unsat; sat at ``(1, 1)``).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.hardening.seeds import NET, NNET, PROPERTY, SAT_PROPERTY, WITNESS, onnx_net

FILES = Path(__file__).parent / "files"

HEAD = "".join(f"(declare-const {v} Real)\n" for v in ("X_0", "X_1", "Y_0", "Y_1"))
BOX = "".join(f"(assert (>= X_{i} 0))\n(assert (<= X_{i} 1))\n" for i in range(2))


# -- VNN-LIB ------------------------------------------------------------------------------------------
def vnnlib_files() -> dict:
    return {
        # a CR alone ends the comment for Python's line readers (the competition's), not for SMT-LIB
        "vnnlib-cr-in-comment.vnnlib": HEAD + BOX.replace("(assert (<= X_1 1))\n", "(assert (<= X_1 1)) ; the unsafe "
                                                          "side\r(assert (>= Y_1 100))\n") + "(assert (>= Y_1 0.5))\n",
        "vnnlib-declared-twice.vnnlib": HEAD + "(declare-const X_1 Real)\n" + BOX + "(assert (>= Y_1 0.5))\n",
        # X_01 is another symbol than X_1 in SMT-LIB (undeclared: z3 refuses); int("01") is 1
        "vnnlib-leading-zero-index.vnnlib": HEAD + BOX + "(assert (<= X_01 0))\n(assert (>= Y_1 0.5))\n",
        # two boxes in one or: the counterexample is in the second only
        "vnnlib-or-of-boxes.vnnlib": HEAD + "(assert (or (and (>= X_0 0) (<= X_0 0.25) (>= X_1 0) (<= X_1 0.25) "
                                            "(>= Y_1 2)) (and (>= X_0 0.75) (<= X_0 1) (>= X_1 0.75) (<= X_1 1) "
                                            "(>= Y_1 2))))\n",
        "vnnlib-negative-zero.vnnlib": HEAD + "(assert (<= X_0 -0.0))\n(assert (>= X_0 -0))\n(assert (>= X_1 0))\n"
                                              "(assert (<= X_1 0e5))\n(assert (>= Y_0 -0.0))\n",
        "vnnlib-string-literal.vnnlib": HEAD + BOX + '(set-info :source "(assert (>= Y_1 100))")\n'
                                                     "(assert (>= Y_1 0.5))\n",
        "vnnlib-quoted-symbol.vnnlib": HEAD.replace("X_0 Real", "|X_0| Real") + BOX + "(assert (>= Y_1 0.5))\n",
        "vnnlib-bom.vnnlib": "\ufeff" + HEAD + BOX + "(assert (>= Y_1 0.5))\n",
        "vnnlib-nul-in-number.vnnlib": HEAD + BOX.replace("(<= X_0 1)", "(<= X_0 1\x00)") + "(assert (>= Y_1 0.5))\n",
        # the unsafe condition is false by its constants: nothing to verify
        "vnnlib-vacuous-unsafe.vnnlib": HEAD + BOX + "(assert (<= (- Y_0 Y_0) -1))\n",
        # a disjunct of the unsafe condition over X alone: every x of it is a counterexample
        "vnnlib-input-only-disjunct.vnnlib": HEAD + BOX + "(assert (or (<= X_0 0.25) (>= Y_0 100)))\n",
        "vnnlib-unbounded-input.vnnlib": HEAD + "(assert (>= X_0 0))\n(assert (<= X_0 1))\n(assert (>= Y_1 0.5))\n",
        "vnnlib-input-beyond-net.vnnlib": HEAD + "(declare-const X_2 Real)\n" + BOX
                                          + "(assert (>= X_2 0))\n(assert (<= X_2 1))\n(assert (>= Y_1 0.5))\n",
    }


def normal_form_blowup() -> str:
    """16 disjunctions of two atoms and 2,000 atoms common to all: 65,536 conjunctions of 2,016
    atoms (132 million) from 85 KB."""
    lines = [HEAD]
    lines += [f"(assert (or (<= X_0 {k + 1}) (<= X_1 {k + 1})))\n" for k in range(16)]
    lines += [f"(assert (<= (+ X_0 (* {k + 2} X_1)) {10 ** 6 + k}))\n" for k in range(2000)]
    lines += ["(assert (>= X_0 0))\n(assert (>= X_1 0))\n(assert (>= Y_0 100))\n"]
    return "".join(lines)


def repeated_atom() -> str:
    """16 disjunctions of two atoms, then one atom 100,000 times: merged into each of 65,536
    conjunctions every time (6.5 billion merges), though it adds nothing."""
    return (HEAD + "".join(f"(assert (or (<= X_0 {k + 1}) (<= X_1 {k + 1})))\n" for k in range(16))
            + "(assert (<= X_0 100))\n" * 100_000 + "(assert (>= X_0 0))\n(assert (>= X_1 0))\n(assert (>= Y_0 100))\n")


def deep_nesting() -> str:
    return HEAD + BOX + "(assert " + "(and " * 100_000 + "(>= Y_1 0.5)" + ")" * 100_000 + ")\n"


# -- ONNX ---------------------------------------------------------------------------------------------
def _onnx():
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    return np, TensorProto, helper, numpy_helper


def _small(nodes, inits, *, ins=None, outs=None, opsets=None, elem=None):
    """A one-input model: x (1, 2) float32 by default."""
    np, T, helper, numpy_helper = _onnx()
    elem = T.FLOAT if elem is None else elem
    ins = ins or [helper.make_tensor_value_info("x", elem, [1, 2])]
    outs = outs or [helper.make_tensor_value_info("y", elem, [1, 2])]
    graph = helper.make_graph(nodes, "hostile", ins, outs, inits)
    model = helper.make_model(graph, opset_imports=opsets or [helper.make_opsetid("", 13)],
                              producer_name="symrel-adversarial")
    model.ir_version = 8
    return model


def onnx_models() -> dict:
    np, T, helper, numpy_helper = _onnx()
    f32 = np.float32
    eye = numpy_helper.from_array(np.eye(2, dtype=f32), "W")
    matmul = [helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")]
    out = {}

    m = onnx_net()   # the helper net, its first weight in a file beside it
    w1 = next(t for t in m.graph.initializer if t.name == "W1")
    data = w1.raw_data
    w1.ClearField("raw_data")
    w1.data_location = T.EXTERNAL
    for key, value in (("location", "onnx-external-data.bin"), ("offset", "0"), ("length", str(len(data)))):
        entry = w1.external_data.add()
        entry.key, entry.value = key, value
    out["onnx-external-data.onnx"] = m

    m = _small(matmul, [numpy_helper.from_array(np.eye(2, dtype=f32), "W")])
    w = m.graph.initializer[0]
    w.ClearField("raw_data")
    w.data_location = T.EXTERNAL
    for key, value in (("location", "../../../../../../etc/hostname"), ("offset", "0"), ("length", "16")):
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    out["onnx-external-data-outside.onnx"] = m

    # "" 13 and "ai.onnx" 18: ReduceMax takes axes as an attribute at 13, as an input at 18
    out["onnx-two-default-opsets.onnx"] = _small(
        [helper.make_node("ReduceMax", ["x"], ["y"], name="max", axes=[1], keepdims=1)], [],
        outs=[helper.make_tensor_value_info("y", T.FLOAT, [1, 1])],
        opsets=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx", 18)])

    m = _small(matmul, [])
    m.graph.sparse_initializer.append(helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([9.0], f32), "W"), numpy_helper.from_array(np.array([0], np.int64), ""),
        [2, 2]))
    out["onnx-sparse-initializer.onnx"] = m

    out["onnx-nan-weight.onnx"] = _small(matmul, [numpy_helper.from_array(np.array([[np.nan, 0], [0, 1]], f32), "W")])

    short = numpy_helper.from_array(np.eye(2, dtype=f32), "W")
    short.raw_data = short.raw_data[:-1]
    out["onnx-raw-data-short.onnx"] = _small(matmul, [short])

    # an initializer named as the input: onnxruntime lets a fed value override it
    out["onnx-initializer-named-as-input.onnx"] = _small(
        [helper.make_node("Relu", ["x"], ["y"], name="r")], [numpy_helper.from_array(np.ones((1, 2), f32), "x")])

    # the weight listed among the inputs, first (as IR version 3 had it): onnxruntime feeds x alone
    out["onnx-initializer-listed-as-input.onnx"] = _small(
        matmul, [numpy_helper.from_array(np.array([[1, 2], [3, 4]], f32), "W")],
        ins=[helper.make_tensor_value_info("W", T.FLOAT, [2, 2]), helper.make_tensor_value_info("x", T.FLOAT, [1, 2])])

    out["onnx-output-is-input.onnx"] = _small([], [], outs=[helper.make_tensor_value_info("x", T.FLOAT, [1, 2])])

    out["onnx-duplicate-initializer.onnx"] = _small(
        matmul, [eye, numpy_helper.from_array(2 * np.eye(2, dtype=f32), "W")])

    out["onnx-constant-shadows-initializer.onnx"] = _small(
        [helper.make_node("Constant", [], ["W"], name="c", value=numpy_helper.from_array(3 * np.eye(2, dtype=f32))),
         *matmul], [eye])

    tenth = np.array([[0.1, 0], [0, 1]])
    out["onnx-float16.onnx"] = _small(matmul, [numpy_helper.from_array(tenth.astype(np.float16), "W")],
                                      elem=T.FLOAT16)
    out["onnx-float64.onnx"] = _small(matmul, [numpy_helper.from_array(tenth.astype(np.float64), "W")],
                                      elem=T.DOUBLE)

    out["onnx-dead-node-unknown-domain.onnx"] = _small(
        [*matmul, helper.make_node("Evil", ["x"], ["unused"], name="evil", domain="com.example.evil")],
        [eye], opsets=[helper.make_opsetid("", 13), helper.make_opsetid("com.example.evil", 1)])

    out["onnx-scalar-input.onnx"] = _small(
        [helper.make_node("Relu", ["x"], ["y"], name="r")], [], ins=[helper.make_tensor_value_info("x", T.FLOAT, [])],
        outs=[helper.make_tensor_value_info("y", T.FLOAT, [])])

    out["onnx-huge-declared-input.onnx"] = _small(
        [helper.make_node("Relu", ["x"], ["y"], name="r")], [],
        ins=[helper.make_tensor_value_info("x", T.FLOAT, [1, 2 ** 40])],
        outs=[helper.make_tensor_value_info("y", T.FLOAT, [1, 2 ** 40])])

    m = onnx_net()
    nodes = list(m.graph.node)[::-1]
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    out["onnx-nodes-reversed.onnx"] = m

    out["onnx-dangling-input.onnx"] = _small([helper.make_node("Add", ["x", "ghost"], ["y"], name="add")], [])

    # the input shape (2, 2): four entries, where the JSON model of crossval has two inputs
    m = onnx_net()
    m.graph.input[0].type.tensor_type.shape.dim[0].Clear()
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 2
    m.graph.output[0].type.tensor_type.shape.dim[0].Clear()
    m.graph.output[0].type.tensor_type.shape.dim[0].dim_value = 2
    out["onnx-crossval-other-input.onnx"] = m

    m = onnx_net()   # the helper net saved again by another producer: other bytes, the same network
    m.producer_name = "another-exporter"
    m.doc_string = "the same weights, other bytes"
    out["onnx-reserialized.onnx"] = m
    out.update(attention_models())
    return out


def attention_models() -> dict:
    """Attention graphs (read by symrel.interop.onnx_attention) that raised numpy's errors."""
    from symrel.fileformat import loads_object
    from symrel.interop.onnx_export import to_onnx

    from tests.hardening.kinds import HARDMAX_TRANSFORMER

    def exported():
        return to_onnx(loads_object(json.dumps(HARDMAX_TRANSFORMER)), "float32")[0]

    out = {}
    m = exported()
    dim = m.graph.input[0].type.tensor_type.shape.dim[1]
    dim.Clear()
    dim.dim_value = -2
    out["onnx-attention-negative-dim.onnx"] = m
    return out


# -- .nnet --------------------------------------------------------------------------------------------
def nnet_files() -> dict:
    lines = NNET.split("\n")   # 0: comment, 1: header, 2: sizes, ..., 8: first weight row
    def edited(**at):
        out = list(lines)
        for k, v in at.items():
            out[int(k[1:])] = v
        return "\n".join(out)

    return {
        # the header behind a comment's CR alone: a line of its own for Python's universal newlines,
        # part of the comment for the C readers' fgets (which then take the sizes for the header)
        "nnet-cr-in-comment.nnet": "\n".join([lines[0] + "\r" + lines[1]] + lines[2:]),
        "nnet-header-more-layers.nnet": edited(l1="3,2,2,2,", l2="2,2,2,2,"),
        "nnet-header-fewer-layers.nnet": edited(l1="1,2,2,2,", l2="2,2,"),
        # the largest layer has 2 neurons; C readers size their buffers by this field
        "nnet-max-width-lie.nnet": edited(l1="2,2,2,1,"),
        # a third value in a row of two weights: the format's own readers take the first two
        "nnet-extra-value-in-row.nnet": edited(l8="1,-1,7,"),
        # a negative range: (x - mean) / range reverses the box
        "nnet-negative-range.nnet": edited(l7="-1,-1,1,"),
    }


# -- JSON ---------------------------------------------------------------------------------------------
def _relu_text(weight: str) -> str:
    return ('{"symrel": 1, "kind": "relu", "input_dim": 1, "layers": [{"W": [[' + weight
            + ']], "b": [0], "activation": "none"}]}\n')


def json_files() -> dict:
    return {
        "json-exact-float-overflow.json": _relu_text("1e400"),
        "json-exact-float-underflow.json": _relu_text("1e-400"),
        "json-bom.json": "\ufeff" + _relu_text("1"),
        "json-nan-weight.json": _relu_text("NaN"),
        "json-duplicate-key.json": _relu_text("1").replace('"b": [0]', '"b": [0], "b": [5]'),
        "json-domain-beyond-double.json": json.dumps({"symrel": 1, "kind": "box",
                                                       "bounds": [[0, 1], [0, "1e309"]]}) + "\n",
    }


# -- counterexamples and instance lists ---------------------------------------------------------------
def witness_and_list_files() -> dict:
    return {
        "witness-beyond-double.txt": WITNESS.replace("(X_0 1.0)", "(X_0 1e400)"),
        # Python's line readers see the second X_0; a reader ending comments at LF alone does not
        "witness-cr-in-comment.txt": WITNESS.replace("(X_0 1.0)", "(X_0 0.5) ; was\r(X_0 1.0)"),
        "witness-pair-after-close.txt": WITNESS + "(X_0 0)\n",
        "witness-index-beyond.txt": WITNESS.replace("(X_1 1)", "(X_1 1) (X_" + "9" * 30 + " 0)"),
        "instances-nul-in-path.csv": "helper-net-2.json,helper-prop-2\x00.vnnlib,10\n",
        "instances-device-path.csv": "helper-net-2.json,/dev/zero,10\n",
        "instances-dotdot.csv": "../files/helper-net-2.json,../files/helper-prop-2.vnnlib,30\n",
    }


def helper_files() -> dict:
    """The helpers; the ONNX one only where the onnx extra is installed (:func:`onnx_installed`)."""
    out = {"helper-net-2.nnet": NNET, "helper-net-2.json": json.dumps(NET) + "\n", "helper-prop-2.vnnlib": PROPERTY,
           "helper-sat-2.vnnlib": SAT_PROPERTY, "helper-witness-2.txt": WITNESS}
    if onnx_installed():
        out["helper-net-2.onnx"] = onnx_net().SerializeToString()
    return out


def onnx_installed() -> bool:
    """Whether the onnx extra (onnx and numpy) is installed: the ONNX files, and the certificates
    verified from the ONNX helper, are written only then (symrel's core reads every other file)."""
    from importlib.util import find_spec

    return find_spec("numpy") is not None and find_spec("onnx") is not None


# -- certificates -------------------------------------------------------------------------------------
def certificate_files(folder: Path) -> dict:
    """Certificates edited from the one ``symrel verify`` writes for the helper net and property
    (written in ``folder``, beside the helpers)."""
    import hashlib

    from symrel.cli import main

    cert_path = folder / "verified.json"
    code = main(["verify", str(folder / "helper-net-2.onnx"), str(folder / "helper-prop-2.vnnlib"), "--certificate",
                 str(cert_path), "--executor", "serial"])
    assert code == 0, code
    cert = json.loads(cert_path.read_text())
    cert_path.unlink()
    out = {"helper-certificate-2.json": cert}

    stripped = json.loads(json.dumps(cert))
    del stripped["claim"]["network_file"]
    out["certificate-network-file-stripped.json"] = stripped

    dotdot = json.loads(json.dumps(cert))
    dotdot["claim"]["property_source"] = "../helper-prop-2.vnnlib"
    out["certificate-property-source-dotdot.json"] = dotdot

    other = json.loads(json.dumps(cert))   # the bytes' sha256 of another property, the atoms of this one
    old, new = other["claim"]["property_sha256"], hashlib.sha256(SAT_PROPERTY.encode()).hexdigest()
    other["claim"]["property_sha256"] = new
    other["claim"]["statement"] = other["claim"]["statement"].replace(old[:16], new[:16])
    out["certificate-property-of-other-file.json"] = other
    return {name: json.dumps(c, indent=1, sort_keys=True) + "\n" for name, c in out.items()}


#: the files written by symrel itself (its exporter, its verifier): kept as they were written, not
#: compared with what this module writes today
WRITTEN_BY_SYMREL = ("onnx-attention-negative-dim.onnx", "helper-certificate-2.json",
                     "certificate-network-file-stripped.json", "certificate-property-source-dotdot.json",
                     "certificate-property-of-other-file.json")


def small_files(folder: Path) -> dict:
    """``{name: bytes}`` of every small file (helpers and hostile files) of this module; without the
    onnx extra, every one but the ONNX files and the certificates (:func:`needs_onnx`)."""
    out = {**helper_files(), **vnnlib_files(), **nnet_files(), **json_files(), **witness_and_list_files()}
    if onnx_installed():
        out.update({name: m.SerializeToString() for name, m in onnx_models().items()})
        out["onnx-external-data.bin"] = next(t for t in onnx_net().graph.initializer if t.name == "W1").raw_data
    out = {name: data if isinstance(data, bytes) else data.encode("utf-8") for name, data in out.items()}
    for name, data in out.items():
        (folder / name).write_bytes(data)
    if not onnx_installed():
        return out
    for name, text in certificate_files(folder).items():
        out[name] = text.encode("utf-8")
        (folder / name).write_bytes(out[name])
    return out


def needs_onnx(name: str) -> bool:
    """Whether :func:`small_files` writes the kept file ``name`` only with the onnx extra."""
    return name.endswith((".onnx", ".bin")) or name in WRITTEN_BY_SYMREL


#: the files written by the tests (too large to keep), and how
GENERATED = {"vnnlib-normal-form-blowup.vnnlib": normal_form_blowup, "vnnlib-repeated-atom.vnnlib": repeated_atom,
             "vnnlib-deep-nesting.vnnlib": deep_nesting}
#: the devices made by the tests: symbolic links to /dev/zero under the name of every format
DEVICES = ("device-zero.onnx", "device-zero.nnet", "device-zero.vnnlib", "device-zero.json", "device-zero.txt",
           "device-zero.csv")


def write_generated(folder: Path) -> None:
    for name, make in GENERATED.items():
        (folder / name).write_text(make(), encoding="utf-8")
    for name in DEVICES:
        (folder / name).symlink_to("/dev/zero")


def write_all(folder: Path = FILES) -> None:
    for name, data in small_files(folder).items():
        (folder / name).write_bytes(data)


if __name__ == "__main__":
    write_all()
